import { ATTR_GUARDTRACE_STEP_SEQUENCE } from '@guardtrace/semconv';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { sessionCore } from '../src/session.ts';
import { registerSeedTools } from './fixtures.ts';
import { traced } from './helpers.ts';

// guardtrace.step.sequence: the order of a session's model turns and tool calls as the loop
// took them, which the replay uses where start times tie.

const seq = (s: ReadableSpan | undefined) => s?.attributes[ATTR_GUARDTRACE_STEP_SEQUENCE];

describe('step sequence', () => {
  it('numbers model turns and tool calls 1, 2, 3… in the order the loop took them, per session', async () => {
    const { gt, spans } = traced({ autoRepair: false }); // `mail` is the model's to correct here
    registerSeedTools(gt);
    const s = gt.session({ id: 'sess_seq', agentName: 'a' });
    s.recordModelCall({ model: 'm', inputTokens: 10, outputTokens: 1 });
    const failed = await s.callTool('lookup_customer', { mail: 'a@b.co' }, { callId: 'c1' });
    if (failed.ok) throw new Error('the call without its required field passed');
    s.recordModelCall({ model: 'm', inputTokens: 10, outputTokens: 1, repairs: failed });
    // the correction continues the waiting call: no new step, and no new number
    expect((await s.callTool('lookup_customer', { email: 'a@b.co' }, { callId: 'c1' })).ok).toBe(true);
    expect((await s.callTool('lookup_customer', { email: 'c@d.co' }, { callId: 'c2' })).ok).toBe(true);
    // a second session in the same process counts on its own
    const other = gt.session({ id: 'sess_other', agentName: 'a' });
    expect((await other.callTool('lookup_customer', { email: 'e@f.co' })).ok).toBe(true);
    await s.end();
    await other.end();

    const steps = (id: string) =>
      spans()
        .filter((x) => x.attributes['gen_ai.conversation.id'] === id && (x.name.startsWith('chat ') || x.name.startsWith('execute_tool ')))
        .sort((a, b) => Number(seq(a)) - Number(seq(b)))
        .map((x) => [seq(x), x.name.split(' ')[0], x.attributes['gen_ai.tool.call.id'] ?? x.attributes['guardtrace.repair.failure_class'] ?? null]);
    expect(steps('sess_seq')).toEqual([
      [1, 'chat', null],
      [2, 'execute_tool', 'c1'],
      [3, 'chat', 'invalid_arguments'],
      [4, 'execute_tool', 'c2'],
    ]);
    expect(steps('sess_other')).toEqual([[1, 'execute_tool', 'sess_other_call_1']]);
    // attempts and guard checks are not steps: they carry no number
    for (const x of spans()) if (x.name === 'guardtrace.attempt' || x.name.startsWith('apply_guardrail')) expect(seq(x)).toBeUndefined();
  });

  it('keeps a reserved number for a model turn recorded after the calls it asked for', async () => {
    const { gt, named } = traced();
    registerSeedTools(gt);
    const s = gt.session({ agentName: 'a' });
    const core = sessionCore(s);
    const turn = core.reserveStep();
    await s.callTool('lookup_customer', { email: 'a@b.co' });
    core.recordModelCall({ model: 'm', inputTokens: 1, outputTokens: 1 }, turn);
    s.recordModelCall({ model: 'late', inputTokens: 1, outputTokens: 1 });
    await s.end();
    expect(named('chat').map((c) => [c.name, seq(c)])).toEqual([['chat m', 1], ['chat late', 3]]);
    expect(named('execute_tool').map(seq)).toEqual([2]);
  });
});
