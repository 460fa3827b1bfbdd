/**
 * "Fixed next" through the real collector (rejection-fixes.test.ts) when the correction failed
 * transiently and was retried in code, and for the rejections of calls one model turn made in
 * parallel.
 */
import { describe, expect, it } from 'vitest';
import { type Env, hex, jsonSpan } from './helpers.ts';
import { rejectionFixesSuite, Session } from './rejection-fixes-support.ts';

let env: Env;
const { post, link, fixedNext } = rejectionFixesSuite((e) => {
  env = e;
});

describe('a correction that failed transiently and was retried in code', () => {
  // The SDK retries a 503 in code (retry_backoff, no model turn): the model's correction went
  // through once the outage passed, so the rejection is fixed; it is not when the retries ran out.
  function scene() {
    const s = new Session();
    const c = { 'gen_ai.conversation.id': s.sessionId };
    const t0 = Date.UTC(2026, 10, 30, 10);
    const attempt = (parent: string, n: number, at: number, a: { outcome: string; decision: string; failureClass?: string }) => {
      const spanId = hex(8);
      s.spans.push(
        jsonSpan({ traceId: s.traceId, spanId, parentSpanId: parent, name: 'guardtrace.attempt', startMs: at,
          attrs: { ...c, 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': n, 'guardtrace.outcome': a.outcome, 'guardtrace.decision': a.decision,
            ...(a.failureClass ? { 'guardtrace.failure.class': a.failureClass, 'guardtrace.feedback': a.failureClass === 'transient' ? 'HTTP 503' : 'Missing required field "path"' } : {}) } }),
      );
      return spanId;
    };
    const call = (at: number, outcome: string) => {
      const spanId = hex(8);
      s.spans.push(jsonSpan({ traceId: s.traceId, spanId, parentSpanId: s.root, name: 'execute_tool read_file', startMs: at,
        attrs: { ...c, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file', 'guardtrace.outcome': outcome } }));
      return spanId;
    };
    const turn = (at: number, repairs: string) => {
      const spanId = hex(8);
      s.spans.push(jsonSpan({ traceId: s.traceId, spanId, parentSpanId: s.root, name: 'chat gpt-4.1', startMs: at,
        attrs: { ...c, 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 1, 'guardtrace.repair.attempt_span_id': repairs, 'guardtrace.repair.failure_class': 'invalid_arguments' } }));
      return spanId;
    };
    return { s, t0, attempt, call, turn };
  }
  const rejectedAttempt = { outcome: 'rejected', decision: 'reject_with_feedback', failureClass: 'invalid_arguments' };
  const outage = { outcome: 'failed', decision: 'retry_backoff', failureClass: 'transient' };
  const retriesRanOut = { outcome: 'failed', decision: 'replan', failureClass: 'transient' };
  const through = { outcome: 'success', decision: 'proceed' };

  it('counts the correcting call as fixed once its retries get through, and not when they ran out', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const { s, t0, attempt, call, turn } = scene();
    const callA = call(t0, 'rejected');
    const badA = attempt(callA, 1, t0 + 1, rejectedAttempt);
    turn(t0 + 5, badA);
    const fixA = call(t0 + 10, 'success');
    attempt(fixA, 1, t0 + 11, outage);
    attempt(fixA, 2, t0 + 20, through);
    const callB = call(t0 + 30, 'rejected');
    const badB = attempt(callB, 1, t0 + 31, rejectedAttempt);
    turn(t0 + 35, badB);
    const fixB = call(t0 + 40, 'failed');
    attempt(fixB, 1, t0 + 41, outage);
    attempt(fixB, 2, t0 + 50, outage);
    attempt(fixB, 3, t0 + 60, retriesRanOut);
    await post(s.spans, key);
    expect(await link(projectId, badA)).toMatchObject({ corrected: fixA, attempt: 1, fixed: true });
    expect(await link(projectId, badB)).toMatchObject({ corrected: fixB, attempt: 1, fixed: false });
    // the call handed back after its retries ran out is a rejection of its own (transient), not fixed yet
    expect(await fixedNext(projectId)).toEqual({ 'read_file|invalid_arguments': [2, 1], 'read_file|transient': [1, 0] });
  });

  it('waits for the retries when they arrive in a later batch (not known, then fixed), and judges the same call the same way', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const { s, t0, attempt, call, turn } = scene();
    const callA = call(t0, 'rejected');
    const badA = attempt(callA, 1, t0 + 1, rejectedAttempt);
    turn(t0 + 5, badA);
    const fixA = call(t0 + 10, 'success');
    attempt(fixA, 1, t0 + 11, outage);
    const early = [...s.spans];
    const late = attempt(fixA, 2, t0 + 20, through);
    // The same call corrected by the model (attempt 2 of it), its 503 retried in code (attempt 3).
    const callC = call(t0 + 30, 'success');
    const badC = attempt(callC, 1, t0 + 31, rejectedAttempt);
    turn(t0 + 35, badC);
    attempt(callC, 2, t0 + 40, outage);
    const lastC = attempt(callC, 3, t0 + 50, through);
    await post(early, key);
    expect(await link(projectId, badA)).toMatchObject({ corrected: fixA, fixed: null });
    expect(await fixedNext(projectId)).toEqual({ 'read_file|invalid_arguments': [1, 0] });
    await post(s.spans.filter((sp) => sp.spanId === late), key);
    expect(await link(projectId, badA)).toMatchObject({ corrected: fixA, fixed: true });
    // The same call's retried correction arrives without its last attempt, then with it.
    await post(s.spans.filter((sp) => !early.includes(sp) && sp.spanId !== late && sp.spanId !== lastC), key);
    expect(await link(projectId, badC)).toMatchObject({ corrected: callC, attempt: 2, fixed: null });
    await post(s.spans, key);
    expect(await link(projectId, badC)).toMatchObject({ corrected: callC, attempt: 2, fixed: true });
    expect(await fixedNext(projectId)).toEqual({ 'read_file|invalid_arguments': [2, 2] });
  });
});

describe('rejections of calls one model turn made in parallel', () => {
  // The AI SDK and LangChain integrations name the first failure of a step on the next model turn;
  // that turn answers every failure of the step. The correction of each is the first call after
  // that turn, as for any rejection (not paired by tool: see the migration).
  function parallel() {
    const s = new Session();
    const c = { 'gen_ai.conversation.id': s.sessionId };
    const t0 = Date.UTC(2026, 10, 30, 11);
    const call = (tool: string, at: number, outcome: string, decision: string) => {
      const spanId = hex(8);
      const attempt = hex(8);
      s.spans.push(
        jsonSpan({ traceId: s.traceId, spanId, parentSpanId: s.root, name: `execute_tool ${tool}`, startMs: at,
          attrs: { ...c, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool, 'guardtrace.outcome': outcome } }),
        jsonSpan({ traceId: s.traceId, spanId: attempt, parentSpanId: spanId, name: 'guardtrace.attempt', startMs: at,
          attrs: { ...c, 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 1, 'guardtrace.outcome': outcome, 'guardtrace.decision': decision,
            ...(outcome === 'success' ? {} : { 'guardtrace.failure.class': 'guard_violation', 'guardtrace.feedback': 'record r1 is locked' }) } }),
      );
      return { call: spanId, attempt };
    };
    const turn = (at: number, repairs?: string) => {
      const spanId = hex(8);
      s.spans.push(jsonSpan({ traceId: s.traceId, spanId, parentSpanId: s.root, name: 'chat gpt-4.1', startMs: at,
        attrs: { ...c, 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 1,
          ...(repairs ? { 'guardtrace.repair.attempt_span_id': repairs, 'guardtrace.repair.failure_class': 'guard_violation' } : {}) } }));
      return spanId;
    };
    turn(t0);
    const del = call('delete_record', t0 + 10, 'rejected', 'replan');
    const arc = call('archive_record', t0 + 11, 'rejected', 'replan');
    const before = s.spans.length;
    const repair = turn(t0 + 20, del.attempt);
    const arcFix = call('archive_record', t0 + 30, 'success', 'proceed');
    call('delete_record', t0 + 31, 'success', 'proceed');
    turn(t0 + 40);
    return { s, del, arc, repair, arcFix, before };
  }

  it('links each to the turn that answered them both, and to the first call that turn made', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const { s, del, arc, repair, arcFix } = parallel();
    await post(s.spans, key);
    expect(await link(projectId, del.attempt)).toMatchObject({ repair, corrected: arcFix.call, fixed: true });
    expect(await link(projectId, arc.attempt)).toMatchObject({ repair, corrected: arcFix.call, fixed: true });
    expect(await fixedNext(projectId)).toEqual({ 'delete_record|guard_violation': [1, 1], 'archive_record|guard_violation': [1, 1] });
  });

  it('links the one the turn does not name when the turn arrives in a later batch', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const { s, del, arc, repair, arcFix, before } = parallel();
    await post(s.spans.slice(0, before), key);
    expect(await link(projectId, arc.attempt)).toMatchObject({ repair: null, fixed: null });
    await post(s.spans.slice(before), key);
    expect(await link(projectId, del.attempt)).toMatchObject({ repair, corrected: arcFix.call, fixed: true });
    expect(await link(projectId, arc.attempt)).toMatchObject({ repair, corrected: arcFix.call, fixed: true });
    expect(await fixedNext(projectId)).toEqual({ 'delete_record|guard_violation': [1, 1], 'archive_record|guard_violation': [1, 1] });
  });

  it('links a rejection to the next model call that names only the class it repairs', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const s = new Session();
    s.chat();
    const bad = s.sdkCall('delete_file', { outcome: 'rejected', failureClass: 'guard_violation', decision: 'replan', feedback: 'outside the workspace' });
    const turn = hex(8);
    s.spans.push(
      jsonSpan({ traceId: s.traceId, spanId: turn, parentSpanId: s.root, name: 'chat gpt-4.1',
        attrs: { 'gen_ai.conversation.id': s.sessionId, 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 1, 'guardtrace.repair.failure_class': 'guard_violation' } }),
    );
    const next = s.sdkCall('delete_file', { outcome: 'rejected', failureClass: 'guard_violation', decision: 'replan', feedback: 'outside the workspace' });
    await post(s.spans, key);
    expect(await link(projectId, bad.attempt)).toMatchObject({ repair: turn, corrected: next.call, fixed: false });
  });
});
