import { ATTR_GEN_AI_CONVERSATION_ID } from '@guardtrace/semconv';
import { describe, expect, it } from 'vitest';
import { traced } from './helpers.ts';
import { registerSeedTools } from './fixtures.ts';

// The span tree of a guarded call, and a tracer that fails or is off.

describe('span tree', () => {
  it('emits invoke_agent > execute_tool > guardtrace.attempt > apply_guardrail with the session id on every span', async () => {
    const { gt, spans, named, childrenOf } = traced();
    registerSeedTools(gt);
    const s = gt.session({ id: 'sess_a', agentName: 'invoice-agent', userId: 'u1' });
    s.recordModelCall({ model: 'gpt-4.1-mini', provider: 'openai', inputTokens: 4000, outputTokens: 120 });
    const r = await s.callTool('lookup_customer', '{"email":"a@b.co"}', { callId: 'call_1' });
    expect(r.ok).toBe(true);
    expect(await s.end()).toBe('success');

    const [root] = named('invoke_agent');
    const [tool] = named('execute_tool');
    const [attempt] = named('guardtrace.attempt');
    const [chat] = named('chat');
    expect(root?.name).toBe('invoke_agent invoice-agent');
    expect(root?.attributes['guardtrace.session.outcome']).toBe('success');
    expect(root?.attributes['gen_ai.agent.name']).toBe('invoice-agent');
    expect(chat?.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 4000, 'gen_ai.usage.output_tokens': 120, 'gen_ai.request.model': 'gpt-4.1-mini' });
    expect(tool?.name).toBe('execute_tool lookup_customer');
    expect(tool?.attributes).toMatchObject({
      'gen_ai.tool.name': 'lookup_customer',
      'gen_ai.tool.call.id': 'call_1',
      'guardtrace.tool.read_only': true,
      'guardtrace.tool.external': true,
      'guardtrace.outcome': 'success',
      'guardtrace.decision': 'proceed',
      'guardtrace.attempt': 1,
    });
    expect(childrenOf(root!).map((x) => x.name).sort()).toEqual(['chat gpt-4.1-mini', 'execute_tool lookup_customer']);
    expect(childrenOf(tool!)).toEqual([attempt]);
    expect(attempt?.attributes).toMatchObject({ 'guardtrace.attempt': 1, 'gen_ai.tool.call.arguments': '{"email":"a@b.co"}', 'guardtrace.outcome': 'success' });
    const guards = childrenOf(attempt!);
    expect(guards.map((g) => g.name)).toEqual(['apply_guardrail schema']);
    expect(guards[0]?.attributes).toMatchObject({ 'gen_ai.guardrail.verdict': 'pass', 'guardtrace.guard.stage': 'schema' });
    expect(typeof guards[0]?.attributes['guardtrace.guard.duration_us']).toBe('number');
    for (const sp of spans()) expect(sp.attributes[ATTR_GEN_AI_CONVERSATION_ID]).toBe('sess_a');
  });

  it('keeps working when the tracer throws, and with tracing off', async () => {
    const broken = { startSpan: () => { throw new Error('exporter down'); }, startActiveSpan: () => { throw new Error('x'); } };
    for (const opts of [{ tracer: broken as never }, { tracing: false }]) {
      const { gt } = traced(opts);
      registerSeedTools(gt);
      const s = gt.session({ agentName: 'a' });
      const r = await s.callTool('lookup_customer', { email: 'x' });
      expect(r.ok).toBe(true);
      if (r.ok) expect(r.attempts[0]?.spanId).toBe('');
      expect(await s.end()).toBe('success');
    }
  });
});
