import { describe, expect, it } from 'vitest';
import { traced } from './helpers.ts';

describe('instrument-only API (agents with their own loop and guards)', () => {
  it('records attempts, guard results and model calls as the same span tree, with repair attribution', async () => {
    const { gt, named, childrenOf, spans } = traced();
    const s = gt.session({ id: 'own_loop_1', agentName: 'langgraph-agent', userId: 'u7' });
    s.recordModelCall({ model: 'claude-sonnet-4', provider: 'anthropic', inputTokens: 4000, outputTokens: 90 });
    const call = s.toolCall('read_file', { callId: 'toolu_1', flags: { readOnly: true }, description: 'Read a file' });
    const failed = call.recordAttempt({
      args: { path: 'componets/Button.tsx' },
      outcome: 'rejected',
      failureClass: 'missing_resource',
      decision: 'reject_with_feedback',
      feedback: 'Path not found. Did you mean src/components/Button.tsx? token=sk-abcdefghijklmnopqrstuvwx',
      guards: [
        { name: 'schema', stage: 'schema', verdict: 'pass', durationUs: 12 },
        { name: 'file_exists', verdict: 'fail', reason: 'File not found: componets/Button.tsx', durationUs: 340, candidates: ['src/components/Button.tsx'] },
      ],
    });
    s.recordModelCall({ model: 'claude-sonnet-4', inputTokens: 6000, outputTokens: 40, repairs: failed });
    call.recordAttempt({ args: { path: 'src/components/Button.tsx' }, outcome: 'success', callId: 'toolu_2' });
    const result = call.end({ value: 'file text' });
    expect(result).toMatchObject({ ok: true, value: 'file text' });
    const other = s.recordToolCall('charge_card', {
      callId: 'toolu_3',
      flags: { external: true },
      idempotencyKey: 'idk_own',
      attempts: [{ args: { amount: 5 }, outcome: 'failed', failureClass: 'uncertain_side_effect', decision: 'fail_reconcile', errorType: 'ETIMEDOUT' }],
    });
    expect(other).toMatchObject({ ok: false, decision: 'fail_reconcile' });
    expect(await s.end()).toBe('escalated');

    const tools = named('execute_tool');
    expect(tools.map((t) => t.name)).toEqual(['execute_tool read_file', 'execute_tool charge_card']);
    expect(tools[0]?.attributes).toMatchObject({ 'guardtrace.attempt': 2, 'guardtrace.outcome': 'success', 'guardtrace.tool.read_only': true, 'gen_ai.tool.description': 'Read a file' });
    expect(tools[1]?.attributes).toMatchObject({ 'guardtrace.idempotency_key': 'idk_own', 'guardtrace.decision': 'fail_reconcile', 'guardtrace.tool.external': true });
    const attempts = childrenOf(tools[0]!);
    expect(attempts.map((a) => a.attributes['gen_ai.tool.call.id'])).toEqual(['toolu_1', 'toolu_2']);
    expect(String(attempts[0]?.attributes['guardtrace.feedback'])).not.toContain('sk-abcdef');
    const guards = childrenOf(attempts[0]!);
    expect(guards.map((g) => [g.name, g.attributes['gen_ai.guardrail.verdict']])).toEqual([
      ['apply_guardrail schema', 'pass'],
      ['apply_guardrail file_exists', 'fail'],
    ]);
    expect(guards[1]?.attributes).toMatchObject({
      'guardtrace.guard.stage': 'logical',
      'guardtrace.guard.duration_us': 340,
      'guardtrace.failure.class': 'missing_resource',
      'guardtrace.decision': 'reject_with_feedback',
    });
    const repair = named('chat').find((c) => c.attributes['guardtrace.repair.failure_class']);
    expect(repair?.attributes['guardtrace.repair.attempt_span_id']).toBe(attempts[0]?.spanContext().spanId);
    expect(s.tokens).toMatchObject({ input: 10_000, output: 130, repair: 6040, repairByClass: { missing_resource: 6040 } });
    for (const sp of spans()) expect(sp.attributes['gen_ai.conversation.id']).toBe('own_loop_1');
  });

  it('a call recorded after the fact spans its attempts, not the moment it was recorded', async () => {
    const { gt, named } = traced();
    const s = gt.session({ id: 'own_loop_times', agentName: 'a' });
    const t0 = Date.UTC(2026, 10, 30, 12);
    s.recordToolCall('search_docs', {
      attempts: [
        { args: { q: 'x' }, outcome: 'failed', failureClass: 'transient', decision: 'retry_backoff', startTime: t0, endTime: t0 + 200 },
        { args: { q: 'x' }, outcome: 'success', startTime: t0 + 700, endTime: t0 + 900 },
      ],
    });
    await s.end();
    const [tool] = named('execute_tool');
    const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;
    expect(ms(tool!.startTime)).toBeCloseTo(t0, 0);
    expect(ms(tool!.endTime)).toBeCloseTo(t0 + 900, 0);
  });
});
