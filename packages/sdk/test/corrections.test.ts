import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpError, registerSeedTools } from './fixtures.ts';
import { traced } from './helpers.ts';

// Rejections and the model's corrections: the corrected call continues the same logical call; replans and discovery.

describe('rejection and correction', () => {
  it('a renamed parameter is rejected with feedback; the corrected call is attempt 2 of the same execute_tool', async () => {
    const { gt, named } = traced();
    const calls = registerSeedTools(gt);
    const s = gt.session({ agentName: 'file-agent' });
    const r1 = await s.callTool('create_file', { filepath: '/src/main.py', content: 'x' }, { callId: 'c1' });
    expect(r1).toMatchObject({ ok: false, failureClass: 'invalid_arguments', decision: 'reject_with_feedback', awaitingCorrection: true });
    if (r1.ok) return;
    expect(r1.feedback).toContain('Missing required field: "path"');
    expect(calls.create).toBe(0);
    s.recordModelCall({ model: 'm', inputTokens: 8000, outputTokens: 50, repairs: r1 });
    const r2 = await s.callTool('create_file', { path: '/src/main.py', content: 'x' }, { callId: 'c2' });
    expect(r2.ok).toBe(true);
    expect(r2.attempts.map((a) => a.decision)).toEqual(['reject_with_feedback', 'proceed']);
    await s.end();

    expect(named('execute_tool')).toHaveLength(1);
    const tool = named('execute_tool')[0]!;
    expect(tool.attributes).toMatchObject({ 'guardtrace.attempt': 2, 'guardtrace.outcome': 'success', 'gen_ai.tool.call.id': 'c1' });
    const attempts = named('guardtrace.attempt');
    expect(attempts.map((a) => a.attributes['guardtrace.attempt'])).toEqual([1, 2]);
    expect(attempts[0]?.attributes).toMatchObject({
      'guardtrace.outcome': 'rejected', 'guardtrace.failure.class': 'invalid_arguments', 'guardtrace.decision': 'reject_with_feedback',
      'error.type': 'invalid_arguments', 'guardtrace.budget.attempts_left': 2, 'guardtrace.budget.rejections_left': 1,
    });
    expect(String(attempts[0]?.attributes['guardtrace.feedback'])).toContain('Expected schema:');
    expect(attempts[1]?.attributes['gen_ai.tool.call.id']).toBe('c2');
    const failedGuard = named('apply_guardrail').find((g) => g.attributes['gen_ai.guardrail.verdict'] === 'fail');
    expect(failedGuard?.attributes).toMatchObject({ 'guardtrace.decision': 'reject_with_feedback', 'guardtrace.failure.class': 'invalid_arguments' });
    const chat = named('chat')[0]!;
    expect(chat.attributes).toMatchObject({
      'guardtrace.repair.failure_class': 'invalid_arguments',
      'guardtrace.repair.attempt_span_id': attempts[0]!.spanContext().spanId,
      'guardtrace.repair.tokens': 8050,
    });
    expect(s.tokens.repairByClass).toEqual({ invalid_arguments: 8050 });
  });

  it('never sends the same rejection twice: an identical invalid call escalates to a human', async () => {
    const { gt, named } = traced();
    registerSeedTools(gt);
    const s = gt.session({ agentName: 'a' });
    const bad = '{"filepath":"a.py","content":""}';
    const r1 = await s.callTool('create_file', bad);
    const r2 = await s.callTool('create_file', bad);
    expect(r1).toMatchObject({ decision: 'reject_with_feedback' });
    // no budget ran out: the class stays the attempt's own, the reason says why it escalated
    expect(r2).toMatchObject({ ok: false, decision: 'escalate_human', failureClass: 'invalid_arguments', awaitingCorrection: false });
    if (r2.ok) return;
    // within one logical call the model repeated its own call: `repeated_call`
    expect(r2.escalation).toMatchObject({ kind: 'escalate_human', reason: 'repeated_call' });
    expect(r2.escalation?.history).toHaveLength(2);
    expect(r2.feedback).toMatch(/already rejected/);
    expect(await s.end()).toBe('escalated');
    expect(named('guardtrace.attempt')[1]?.attributes['guardtrace.escalation.reason']).toBe('repeated_call');
    expect(named('guardtrace.attempt')[1]?.attributes['guardtrace.failure.class']).toBe('invalid_arguments');
    expect(named('guardtrace.attempt')[1]?.attributes['guardtrace.budget.exhausted']).toBeUndefined();
    expect(named('execute_tool')[0]?.attributes).toMatchObject({
      'guardtrace.failure.class': 'invalid_arguments',
      'error.type': 'invalid_arguments',
      'guardtrace.escalation.reason': 'repeated_call',
    });
    expect(named('invoke_agent')[0]?.attributes['guardtrace.session.outcome']).toBe('escalated');
  });

  it('a hallucinated tool name is rejected with the valid names, closest first', async () => {
    const { gt, named } = traced();
    registerSeedTools(gt);
    const s = gt.session({ agentName: 'a' });
    const r = await s.callTool('charge_cards', { customer_id: 'c', amount_cents: 5 });
    expect(r).toMatchObject({ ok: false, failureClass: 'unknown_tool', decision: 'reject_with_feedback' });
    if (r.ok) return;
    expect(r.candidates?.[0]).toBe('charge_card');
    expect(r.feedback).toContain('TOOL CALL REJECTED: Unknown tool "charge_cards".');
    expect(r.feedback.indexOf('- charge_card')).toBeLessThan(r.feedback.indexOf('- lookup_customer'));
    const guard = named('apply_guardrail')[0]!;
    expect(guard.attributes).toMatchObject({ 'gen_ai.guardrail.name': 'tool_exists', 'gen_ai.guardrail.verdict': 'fail', 'guardtrace.guard.stage': 'schema' });
    expect(guard.attributes['guardtrace.guard.candidates']).toEqual(['charge_card', 'create_file', 'lookup_customer']);
  });

  it('once a made-up name is corrected to a registered tool, an earlier made-up name of the same turn no longer waits', async () => {
    // the model guessed two names (open_file, read_files) and then found the real tool: a later
    // step's fresh open_file is a mistake of its own, not the second failure of the stale call
    const { gt } = traced({ autoRepair: false });
    registerSeedTools(gt);
    const s = gt.session({ agentName: 'a' });
    expect(await s.callTool('open_file', { email: 'x' })).toMatchObject({ awaitingCorrection: true });
    expect(await s.callTool('read_files', { email: 'x' })).toMatchObject({ awaitingCorrection: true });
    expect(await s.callTool('lookup_customer', { email: 'x' })).toMatchObject({ ok: true });
    const r = await s.callTool('open_file', { report_id: 'r' });
    expect(r.attempts).toHaveLength(1);
    expect(r).toMatchObject({ decision: 'reject_with_feedback', awaitingCorrection: true });
  });

  it('continues the call after an unknown tool name: the corrected call is attempt 2 under the same execute_tool span', async () => {
    // the model's own correction (auto-repair off: lookup_customr has one sound correction)
    const { gt, named, childrenOf } = traced({ autoRepair: false });
    const calls = registerSeedTools(gt);
    const s = gt.session({ agentName: 'a' });
    const args = { customer_id: 'c', amount_cents: 5 };
    const r1 = await s.callTool('charge_cards', args, { callId: 'call_1' });
    expect(r1).toMatchObject({ ok: false, failureClass: 'unknown_tool', awaitingCorrection: true });
    const r2 = await s.callTool('charge_card', args, { callId: 'call_1' });
    expect(r2).toMatchObject({ ok: true, tool: 'charge_card', callId: 'call_1' });
    expect(r2.attempts.map((a) => [a.attempt, a.tool])).toEqual([[1, 'charge_cards'], [2, 'charge_card']]);
    expect(calls.charge).toBe(1);
    // without a call id, the next call of a registered tool is the correction
    const r3 = await s.callTool('lookup_customr', { email: 'x' });
    expect(r3).toMatchObject({ awaitingCorrection: true });
    expect((await s.callTool('lookup_customer', { email: 'x' })).attempts).toHaveLength(2);
    // the handle names the corrected tool (a new task: two rejections per task are spent)
    s.startTask();
    const call = s.toolCall('create_fil');
    expect(await call.attempt({ path: 'a', content: '' })).toMatchObject({ awaitingCorrection: true });
    expect(await call.attempt({ path: 'a', content: '' }, { tool: 'create_file' })).toMatchObject({ ok: true, tool: 'create_file' });
    expect(await s.end()).toBe('success');

    const tools = named('execute_tool');
    expect(tools.map((t) => t.name)).toEqual(['execute_tool charge_card', 'execute_tool lookup_customer', 'execute_tool create_file']);
    const attempts = childrenOf(tools[0]!).filter((c) => c.name === 'guardtrace.attempt');
    expect(attempts.map((a) => [a.attributes['guardtrace.attempt'], a.attributes['gen_ai.tool.name']])).toEqual([[1, 'charge_cards'], [2, 'charge_card']]);
    expect(tools[0]?.attributes).toMatchObject({ 'gen_ai.tool.name': 'charge_card', 'guardtrace.attempt': 2, 'guardtrace.outcome': 'success', 'guardtrace.tool.external': true });
  });

  it('caps rejections per task at 2', async () => {
    const { gt } = traced();
    registerSeedTools(gt);
    const s = gt.session({ agentName: 'a' });
    await s.callTool('nope_1', {});
    await s.callTool('nope_2', {});
    const r = await s.callTool('nope_3', {});
    expect(r).toMatchObject({ decision: 'escalate_human', escalation: { reason: 'rejections_per_task' } });
  });
});

describe('which waiting call a one-shot call continues (README rule)', () => {
  const bad = { filepath: 'a.py', content: 'x' };
  const good = { path: 'a.py', content: 'x' };

  it('same intent id first, then same call id, then (no intent) the waiting call of the same tool, whatever its call id', async () => {
    const { gt, named } = traced();
    registerSeedTools(gt);
    const s = gt.session({ agentName: 'a' });
    await s.callTool('create_file', bad, { callId: 'c1' });
    // another tool never continues it
    expect((await s.callTool('lookup_customer', { email: 'x' }, { callId: 'c2' })).attempts).toHaveLength(1);
    // providers give the corrected call a new id: the tool name continues it
    const r = await s.callTool('create_file', good, { callId: 'c3' });
    expect(r.attempts.map((a) => a.callId)).toEqual(['c1', 'c3']);
    expect(r.callId).toBe('c1');

    // with intent ids, only the same intent continues; a different intent is a call of its own
    s.startTask();
    expect(await s.callTool('create_file', { filepath: 'c.py', content: 'x' }, { callId: 'c4', intentId: 'i1' })).toMatchObject({ awaitingCorrection: true });
    expect((await s.callTool('create_file', { path: 'b.py', content: 'y' }, { callId: 'c5', intentId: 'i2' })).attempts).toHaveLength(1);
    expect((await s.callTool('create_file', good, { callId: 'c6', intentId: 'i1' })).attempts.map((a) => a.callId)).toEqual(['c4', 'c6']);
    await s.end();
    expect(named('execute_tool').map((t) => t.attributes['gen_ai.tool.call.id'])).toEqual(['c2', 'c1', 'c5', 'c4']);
  });
});

describe('replan feedback', () => {
  it('escalates when the model repeats a call that was already answered with a replan', async () => {
    const { gt } = traced();
    registerSeedTools(gt, { lookup: () => { throw httpError(404); } });
    const s = gt.session({ agentName: 'a' });
    expect(await s.callTool('lookup_customer', { email: 'x' })).toMatchObject({ decision: 'replan' });
    expect(await s.callTool('lookup_customer', { email: 'y' })).toMatchObject({ decision: 'replan' });
    expect(await s.callTool('lookup_customer', { email: 'x' })).toMatchObject({ decision: 'escalate_human', escalation: { reason: 'repeated_rejection' } });
  });
});

describe('the same rejection twice', () => {
  // seed 001: "If the model returns the identical invalid argument after reading your first error, the
  // error is not actually actionable". Once the model fixed the call, the error was actionable: the
  // same mistake in a later step is a new mistake, answered again, not escalated as a repeat.
  it('answers the same mistake again once a call of that tool succeeded after the rejection', async () => {
    const { gt } = traced();
    let fail = true;
    registerSeedTools(gt, { lookup: () => { if (fail) throw httpError(404); return { id: 'cus_1' }; } });
    const s = gt.session({ agentName: 'a' });
    expect(await s.callTool('lookup_customer', { email: 'x' })).toMatchObject({ decision: 'replan' });
    fail = false;
    expect(await s.callTool('lookup_customer', { email: 'y' })).toMatchObject({ ok: true });
    fail = true;
    expect(await s.callTool('lookup_customer', { email: 'x' })).toMatchObject({ decision: 'replan' });
    // still unanswered: the identical call right after its replan escalates
    expect(await s.callTool('lookup_customer', { email: 'x' })).toMatchObject({ decision: 'escalate_human', escalation: { reason: 'repeated_rejection' } });
  });
});

describe('discovery before replanning', () => {
  it('runs the declared read-only discovery tool on a 403 and puts its answer in the feedback', async () => {
    const { gt, named } = traced();
    gt.tool({ name: 'list_reports', description: 'reports you can read', schema: z.object({ owner: z.string() }), flags: { readOnly: true }, execute: (a) => [`${a.owner}/rep_7`] });
    gt.tool({
      name: 'fetch_report',
      description: 'fetch a report',
      schema: z.object({ owner: z.string(), id: z.string() }),
      flags: { readOnly: true, external: true },
      discover: { tool: 'list_reports', args: (a) => ({ owner: a.owner }) },
      execute: () => { throw httpError(403); },
    });
    const s = gt.session({ agentName: 'a' });
    const r = await s.callTool('fetch_report', { owner: 'acme', id: 'rep_9' });
    expect(r).toMatchObject({ ok: false, failureClass: 'guard_violation', decision: 'replan' });
    if (!r.ok) expect(r.feedback).toContain('Discovery (list_reports) found: ["acme/rep_7"]');
    expect(named('execute_tool').map((t) => t.name)).toEqual(['execute_tool list_reports', 'execute_tool fetch_report']);
    // the discovery call is the runtime's, not the model's: its span names the call it ran for
    const [discovery, call] = named('execute_tool');
    expect(discovery?.attributes['guardtrace.discovery.for_call_id']).toBe(call?.attributes['gen_ai.tool.call.id']);
    expect(call?.attributes['guardtrace.discovery.for_call_id']).toBeUndefined();
    expect(String(named('guardtrace.attempt').find((a) => a.attributes['gen_ai.tool.name'] === 'fetch_report')?.attributes['guardtrace.feedback'])).toContain('acme/rep_7');
  });
});
