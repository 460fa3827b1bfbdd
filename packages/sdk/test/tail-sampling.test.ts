import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
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

  it('exports a sampled-in clean session whole, with its weight on the root, and passes a span outside any session once its trace (no session in it) ends', async () => {
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

describe("tail sampling and the host's spans around a session", () => {
  // the host's OpenTelemetry setup (NodeSDK) propagates the active span: a context manager
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(() => {
    context.disable();
  });

  // A request span of the host's own tracing around the agent's session (the README's setup: the
  // session nests under the active span), a span of the host's before the agent starts, and one of
  // another instrumentation inside the session (no conversation id): they follow the session.
  async function request(cleanSessionRate: number, id: string, fail = false) {
    const { gt, provider, sampled } = agent(cleanSessionRate);
    const host = provider.getTracer('host');
    await host.startActiveSpan('GET /chat', async (req) => {
      host.startSpan('SELECT users').end();
      const s = gt.session({ agentName: 'a', id });
      await host.startActiveSpan('POST api.openai.com', async (http) => http.end());
      await s.callTool('get_order', { id: fail ? 'x' : 'ord_1' });
      await s.end();
      req.end();
    });
    await provider.forceFlush();
    const names = sampled.getFinishedSpans().map((sp) => sp.name);
    await provider.shutdown();
    return names;
  }

  it("drops the host's spans of the trace with a dropped session: no trace of only the request reaches the collector", async () => {
    expect(await request(0, 'sess_dropped')).toEqual([]);
  });

  it("forwards them with a kept session, and with a failed one", async () => {
    const kept = await request(1, 'sess_kept_host');
    expect(kept).toEqual(expect.arrayContaining(['GET /chat', 'SELECT users', 'POST api.openai.com', 'invoke_agent a']));
    const failed = await request(0, 'sess_failed_host', true);
    expect(failed).toEqual(expect.arrayContaining(['GET /chat', 'SELECT users', 'POST api.openai.com', 'invoke_agent a']));
  });

  it('holds a span outside any session until its local root ends, then forwards it when the trace has no session', async () => {
    const { provider, sampled } = agent(0);
    const host = provider.getTracer('host');
    const root = host.startSpan('job');
    host.startSpan('step', {}, trace.setSpan(context.active(), root)).end();
    await provider.forceFlush();
    expect(sampled.getFinishedSpans()).toEqual([]);
    root.end();
    await provider.forceFlush();
    expect(sampled.getFinishedSpans().map((sp) => sp.name).sort()).toEqual(['job', 'step']);
    await provider.shutdown();
  });

  it('waits for a session still open after the request span ended (work left running)', async () => {
    const { gt, provider, sampled } = agent(0);
    const host = provider.getTracer('host');
    const s = await host.startActiveSpan('GET /start', async (req) => {
      const session = gt.session({ agentName: 'a', id: 'sess_later' });
      req.end();
      return session;
    });
    await provider.forceFlush();
    expect(sampled.getFinishedSpans()).toEqual([]);
    await s.callTool('get_order', { id: 'ord_1' });
    await s.end();
    await provider.forceFlush();
    expect(sampled.getFinishedSpans()).toEqual([]);
    await provider.shutdown();
  });
});
