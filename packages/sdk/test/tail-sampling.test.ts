import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { Guardtrace } from '../src/guardtrace.ts';
import { tailSamplingProcessor } from '../src/setup.ts';

// Tail sampling in front of an exporter of the user's own (the OTel in-memory exporter here).

function agent(cleanSessionRate: number) {
  const sampled = new InMemorySpanExporter();
  // every span, unsampled, to compare with: a session that is kept must arrive whole
  const all = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [tailSamplingProcessor(sampled, { batch: { scheduledDelayMillis: 10 } }), new SimpleSpanProcessor(all)] });
  const gt = new Guardtrace({ tracer: provider.getTracer('test'), sampling: { cleanSessionRate } });
  gt.tool({
    name: 'get_order',
    description: 'Reads an order.',
    schema: z.object({ id: z.string().regex(/^ord_\d+$/) }),
    flags: { readOnly: true },
    execute: (a) => ({ id: a.id, total: 12 }),
  });
  const ofSession = (exp: InMemorySpanExporter, id: string) =>
    exp.getFinishedSpans().filter((s) => s.attributes['gen_ai.conversation.id'] === id).map((s) => s.spanContext().spanId).sort();
  return { gt, provider, sampled, all, ofSession };
}

describe('tailSamplingProcessor(exporter)', () => {
  it("never hands a sampled-out clean session's spans to the exporter, and exports a session with a failure whole", async () => {
    const { gt, provider, sampled, all, ofSession } = agent(0);
    const clean = gt.session({ agentName: 'a', id: 'sess_clean' });
    expect((await clean.callTool('get_order', { id: 'ord_1' })).ok).toBe(true);
    await clean.end();

    const failed = gt.session({ agentName: 'a', id: 'sess_failed' });
    expect(await failed.callTool('get_order', { id: '1' })).toMatchObject({ ok: false, decision: 'reject_with_feedback' });
    expect((await failed.callTool('get_order', { id: 'ord_1' })).ok).toBe(true);
    await failed.end();
    await provider.forceFlush();

    expect(ofSession(all, 'sess_clean').length).toBeGreaterThan(2);
    expect(ofSession(sampled, 'sess_clean')).toEqual([]);
    // root, execute_tool, two attempts and their guard spans: every one the session made
    expect(ofSession(sampled, 'sess_failed').length).toBeGreaterThan(4);
    expect(ofSession(sampled, 'sess_failed')).toEqual(ofSession(all, 'sess_failed'));
    await provider.shutdown();
    expect(ofSession(sampled, 'sess_clean')).toEqual([]);
  });

  it('exports a sampled-in clean session whole, with its weight on the root, and passes spans outside any session at once', async () => {
    const { gt, provider, sampled, all, ofSession } = agent(1);
    const s = gt.session({ agentName: 'a', id: 'sess_kept' });
    await s.callTool('get_order', { id: 'ord_2' });
    provider.getTracer('host').startSpan('GET /health').end();
    await provider.forceFlush();
    // the session is still open: its spans are held; the host's span went through
    expect(ofSession(sampled, 'sess_kept')).toEqual([]);
    expect(sampled.getFinishedSpans().map((sp) => sp.name)).toEqual(['GET /health']);
    await s.end();
    await provider.forceFlush();
    expect(ofSession(sampled, 'sess_kept')).toEqual(ofSession(all, 'sess_kept'));
    const root = sampled.getFinishedSpans().find((sp) => sp.name === 'invoke_agent a');
    expect(root?.attributes['guardtrace.sampling.weight']).toBe(1);
    await provider.shutdown();
  });
});
