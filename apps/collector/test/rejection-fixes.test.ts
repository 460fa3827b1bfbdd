/**
 * "Fixed next" through the real collector: raw OTLP in, the stored repair link of each rejection
 * (attempts.repair_span_id / correction_span_id / fixed, read by the replay) and the analytics
 * parts' fixed counts out. The corrected call is its own span with a new call id (as the AI SDK,
 * OpenAI Agents and the SDK's instrument-only API record it), may name another tool, may come
 * from another instrumentation, may fail again, and may arrive in a later batch. Corrections
 * retried in code and rejections of parallel calls: rejection-fixes-retries.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { type Env, hex, jsonSpan } from './helpers.ts';
import { ok, rejected, rejectionFixesSuite, Session } from './rejection-fixes-support.ts';

let env: Env;
const { post, link, fixedNext } = rejectionFixesSuite((e) => {
  env = e;
});

describe('a rejection is fixed by the call that corrects it', () => {
  it('counts a corrected call with a new call id, after the repair turn, as fixed', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const s = new Session();
    s.chat();
    const bad = s.sdkCall('write_file', rejected('invalid_arguments', 'Missing required field "content"'));
    const repair = s.chat(bad.attempt);
    const good = s.sdkCall('write_file', ok);
    s.chat();
    await post(s.spans, key);
    expect(await link(projectId, bad.attempt)).toEqual({ repair, corrected: good.call, attempt: 1, fixed: true });
    expect(await fixedNext(projectId)).toEqual({ 'write_file|invalid_arguments': [1, 1] });
  });

  it('counts a hallucinated tool corrected under its real name as fixed, under the hallucinated name', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const s = new Session();
    s.chat();
    const bad = s.sdkCall('search_codebase', rejected('unknown_tool', 'Unknown tool "search_codebase". Did you mean "search_files"?'));
    s.chat(bad.attempt);
    const good = s.sdkCall('search_files', ok);
    await post(s.spans, key);
    expect(await link(projectId, bad.attempt)).toMatchObject({ corrected: good.call, fixed: true });
    expect(await fixedNext(projectId)).toEqual({ 'search_codebase|unknown_tool': [1, 1] });
  });

  it('does not count a correction that fails again; the second correction fixes the second rejection', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const s = new Session();
    s.chat();
    const first = s.sdkCall('write_file', rejected('invalid_arguments', 'Missing required field "content"'));
    s.chat(first.attempt);
    const second = s.sdkCall('write_file', rejected('invalid_arguments', 'Expected at most 3 files, got 12'));
    s.chat(second.attempt);
    const third = s.sdkCall('write_file', ok);
    await post(s.spans, key);
    expect(await link(projectId, first.attempt)).toMatchObject({ corrected: second.call, fixed: false });
    expect(await link(projectId, second.attempt)).toMatchObject({ corrected: third.call, fixed: true });
    expect(await fixedNext(projectId)).toEqual({ 'write_file|invalid_arguments': [2, 1] });
    const { rows } = await env.sql.query(
      `SELECT feedback_template AS t, rejections_fixed AS f FROM analytics_session_parts WHERE project_id = $1 AND rejections > 0 ORDER BY 1`,
      [projectId],
    );
    expect(rows).toEqual([
      { t: 'Expected at most N files, got N', f: 1 },
      { t: 'Missing required field "…"', f: 0 },
    ]);
  });

  it('moves the count when the correction arrives in a later batch, its attempt before its call span, once', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const s = new Session();
    s.chat();
    const bad = s.sdkCall('write_file', rejected('invalid_arguments', 'Missing required field "content"'));
    s.chat(bad.attempt);
    const good = s.sdkCall('write_file', ok);
    const callSpan = s.spans.at(-2) as Record<string, unknown>;
    const attemptSpan = s.spans.at(-1) as Record<string, unknown>;
    const early = s.spans.slice(0, -2);
    await post(early, key);
    expect(await link(projectId, bad.attempt)).toMatchObject({ corrected: null, fixed: null });
    expect(await fixedNext(projectId)).toEqual({ 'write_file|invalid_arguments': [1, 0] });
    await post([attemptSpan], key);
    expect(await link(projectId, bad.attempt)).toMatchObject({ corrected: good.call, fixed: true });
    expect(await fixedNext(projectId)).toEqual({ 'write_file|invalid_arguments': [1, 1] });
    await post([callSpan, attemptSpan], key);
    await post(s.spans, key);
    expect(await link(projectId, bad.attempt)).toMatchObject({ corrected: good.call, attempt: 1, fixed: true });
    expect(await fixedNext(projectId)).toEqual({ 'write_file|invalid_arguments': [1, 1] });
  });

  it('links an escalated attempt a repair turn answered for the replay, and leaves it out of Fixed next', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const s = new Session();
    s.chat();
    const bad = s.sdkCall('write_file', { outcome: 'rejected', failureClass: 'invalid_arguments', decision: 'escalate_human', feedback: 'Missing "content"' });
    const repair = s.chat(bad.attempt);
    const good = s.sdkCall('write_file', ok);
    await post(s.spans, key);
    expect(await link(projectId, bad.attempt)).toEqual({ repair, corrected: good.call, attempt: 1, fixed: true });
    expect(await fixedNext(projectId)).toEqual({});
  });

  it("links a repair turn to a new call, not to an earlier call's later attempt in the same millisecond", async () => {
    // Derived rows keep milliseconds: a fast agent's waiting call may take its corrected attempt in
    // the millisecond of another failure's repair turn. That attempt continues an earlier call; the
    // correction of the other failure is the call that starts after its turn.
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const s = new Session();
    const c = { 'gen_ai.conversation.id': s.sessionId };
    const t0 = Date.UTC(2026, 10, 30, 9);
    const [callA, a1, a2, callB, b1, turnB, callC, c1] = [hex(8), hex(8), hex(8), hex(8), hex(8), hex(8), hex(8), hex(8)];
    const attempt = (spanId: string, parent: string, n: number, at: number, outcome: string, decision: string) =>
      jsonSpan({ traceId: s.traceId, spanId, parentSpanId: parent, name: 'guardtrace.attempt', startMs: at,
        attrs: { ...c, 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': n, 'guardtrace.outcome': outcome, 'guardtrace.decision': decision,
          ...(outcome === 'success' ? {} : { 'guardtrace.failure.class': 'invalid_arguments', 'guardtrace.feedback': 'Missing required field "path"' }) } });
    const call = (spanId: string, at: number, outcome: string) =>
      jsonSpan({ traceId: s.traceId, spanId, parentSpanId: s.root, name: 'execute_tool read_file', startMs: at,
        attrs: { ...c, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file', 'guardtrace.outcome': outcome } });
    const turn = (spanId: string, at: number, repairs: string) =>
      jsonSpan({ traceId: s.traceId, spanId, parentSpanId: s.root, name: 'chat gpt-4.1', startMs: at,
        attrs: { ...c, 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 1, 'guardtrace.repair.attempt_span_id': repairs, 'guardtrace.repair.failure_class': 'invalid_arguments' } });
    s.spans.push(
      call(callA, t0, 'success'), attempt(a1, callA, 1, t0 + 1, 'rejected', 'reject_with_feedback'), turn(hex(8), t0 + 2, a1),
      call(callB, t0 + 10, 'rejected'), attempt(b1, callB, 1, t0 + 10, 'rejected', 'escalate_human'), turn(turnB, t0 + 12, b1),
      attempt(a2, callA, 2, t0 + 12, 'success', 'proceed'),
      call(callC, t0 + 13, 'success'), attempt(c1, callC, 1, t0 + 13, 'success', 'proceed'),
    );
    await post(s.spans, key);
    expect(await link(projectId, a1)).toMatchObject({ corrected: callA, attempt: 2, fixed: true });
    expect(await link(projectId, b1)).toMatchObject({ repair: turnB, corrected: callC, attempt: 1, fixed: true });
  });

  // A Guardtrace call (it says its outcome, so its attempts are its own spans) whose attempt has no decision.
  it('stores an attempt with no decision that succeeded (not a rejection), alone under its key', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const s = new Session();
    const tool = hex(8);
    s.spans.push(
      jsonSpan({ traceId: s.traceId, spanId: tool, parentSpanId: s.root, name: `execute_tool lone_${hex(3)}`, attrs: { 'gen_ai.conversation.id': s.sessionId, 'gen_ai.operation.name': 'execute_tool', 'guardtrace.outcome': 'success' } }),
      jsonSpan({ traceId: s.traceId, parentSpanId: tool, name: 'guardtrace.attempt', attrs: { 'gen_ai.conversation.id': s.sessionId, 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 1, 'guardtrace.outcome': 'success' } }),
    );
    await post(s.spans, key);
    const { rows } = await env.sql.query('SELECT attempts, rejections FROM analytics_daily WHERE project_id = $1', [projectId]);
    expect(rows).toEqual([{ attempts: 1, rejections: 0 }]);
  });

  // A failed foreign tool span is an attempt of its own call (class tool_error, conventions/index.ts):
  // its rejection is linked like any other.
  it("links another instrumentation's failed execute_tool span to the model's next call (GenAI spans)", async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const s = new Session();
    s.chat();
    const failed = s.genAiTool('search_files', true);
    const turn = s.chat();
    const retried = s.genAiTool('search_files', false);
    s.chat();
    await post(s.spans, key);
    // The failed span is an attempt (class tool_error) of its own call: its repair turn is the model's
    // next call (no decision recorded), its correction the call that model call made.
    const { rows } = await env.sql.query(
      `SELECT span_id, failure_class, repair_span_id AS repair, correction_span_id AS corrected, fixed
       FROM attempts WHERE project_id = $1 AND outcome IS DISTINCT FROM 'success'`,
      [projectId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ repair: turn, corrected: retried, fixed: true });
    expect(rows[0].span_id === failed || rows[0].corrected !== failed).toBe(true);
    expect(await fixedNext(projectId)).toEqual({ [`search_files|${rows[0].failure_class}`]: [1, 1] });
  });
});
