import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { runDemo, runDemoSessions } from './demo-agent.ts';

describe('demo agent', () => {
  it('produces one session per scenario with the expected decisions and repair tokens', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const sessions = await runDemoSessions(provider.getTracer('demo'));
    expect(sessions.map((s) => [s.scenario, s.outcome])).toEqual([
      ['clean-success', 'success'],
      ['renamed-parameter', 'success'],
      ['hallucinated-tool', 'success'],
      ['transient-503', 'success'],
      ['charge-timeout-reconcile', 'escalated'],
      ['retry-budget-exhausted', 'escalated'],
    ]);
    const spans = exporter.getFinishedSpans();
    const attempts = (sid: string) =>
      spans.filter((s) => s.name === 'guardtrace.attempt' && s.attributes['gen_ai.conversation.id'] === sid).map((s) => s.attributes['guardtrace.decision']);
    const [clean, renamed, hallucinated, transient, charge, budget] = sessions.map((s) => s.id) as string[];
    expect(attempts(clean!)).toEqual(['proceed', 'proceed']);
    expect(attempts(renamed!)).toEqual(['reject_with_feedback', 'proceed']);
    expect(attempts(hallucinated!)).toEqual(['reject_with_feedback', 'proceed']);
    expect(attempts(transient!)).toEqual(['retry_backoff', 'proceed']);
    expect(attempts(charge!)).toEqual(['proceed', 'fail_reconcile']);
    const perCall = ['retry_backoff', 'retry_backoff', 'replan'];
    expect(attempts(budget!)).toEqual([...perCall, ...perCall, ...perCall, ...perCall, ...perCall, 'escalate_human']);
    const last = spans.filter((s) => s.name === 'guardtrace.attempt' && s.attributes['gen_ai.conversation.id'] === budget).at(-1);
    expect(last?.attributes['guardtrace.escalation.reason']).toBe('circuit_breaker');
    const repairs = spans.filter((s) => s.name.startsWith('chat ') && s.attributes['guardtrace.repair.failure_class']);
    // the renamed parameter's and the hallucinated name's repair turns, then one per outage hand-back
    expect(repairs.map((s) => s.attributes['guardtrace.repair.failure_class'])).toEqual(['invalid_arguments', 'unknown_tool', ...Array(5).fill('transient')]);
    // each turn replays the context so far: the outage's repair turns cost more the longer it lasts
    expect(repairs.map((s) => s.attributes['gen_ai.usage.input_tokens'])).toEqual([6000, 6000, 6000, 8000, 10000, 12000, 14000]);
    const chargeTool = spans.find((s) => s.name === 'execute_tool charge_card');
    expect(chargeTool?.attributes['guardtrace.reconcile.status']).toBe('committed');
  });

  it('runDemo exports every session over OTLP and flushes before resolving', async () => {
    const bodies: Buffer[] = [];
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      bodies.push(Buffer.concat(chunks));
      res.writeHead(200).end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const r = await runDemo({ endpoint: `http://127.0.0.1:${port}`, apiKey: 'gt_demo' });
      expect(r).toEqual({ sessions: 6 });
    } finally {
      server.close();
    }
    const all = Buffer.concat(bodies).toString('latin1');
    for (const name of ['clean-success', 'renamed-parameter', 'hallucinated-tool', 'transient-503', 'charge-timeout-reconcile', 'retry-budget-exhausted']) {
      expect(all).toContain(`demo-${name}-`);
    }
  });
});
