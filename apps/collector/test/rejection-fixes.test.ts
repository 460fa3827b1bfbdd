/**
 * "Fixed next" through the real collector: raw OTLP in, the stored repair link of each rejection
 * (attempts.repair_span_id / correction_span_id / fixed, read by the replay) and the analytics
 * parts' fixed counts out. The corrected call is its own span with a new call id (as the AI SDK,
 * OpenAI Agents and the SDK's instrument-only API record it), may name another tool, may come
 * from another instrumentation, may fail again, and may arrive in a later batch.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, hex, jsonRequest, jsonSpan, setupApp, setupDatabase } from './helpers.ts';

let env: Env;
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  env = await setupDatabase({ partitions: new Date('2026-11-30T00:00:00Z') });
  app = await setupApp(env);
  url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/v1/traces`;
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

async function post(spans: Record<string, unknown>[], key: string): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(jsonRequest(spans)),
  });
  expect(res.status, await res.text()).toBe(200);
}

/** One session's spans in the order they start (each span starts 3 ms after the one made before it). */
class Session {
  readonly traceId = hex(16);
  readonly sessionId = `sess_${hex(6)}`;
  readonly root = hex(8);
  readonly spans: Record<string, unknown>[] = [];
  private readonly conv = { 'gen_ai.conversation.id': this.sessionId };

  constructor() {
    this.spans.push(jsonSpan({ traceId: this.traceId, spanId: this.root, name: 'invoke_agent agent', attrs: { ...this.conv, 'gen_ai.operation.name': 'invoke_agent' } }));
  }

  /** A model turn; `repairs`: the attempt span it repairs (guardtrace.repair.attempt_span_id). */
  chat(repairs?: string): string {
    const spanId = hex(8);
    const repair: Record<string, string> = repairs ? { 'guardtrace.repair.attempt_span_id': repairs, 'guardtrace.repair.failure_class': 'invalid_arguments' } : {};
    this.spans.push(
      jsonSpan({
        traceId: this.traceId,
        spanId,
        parentSpanId: this.root,
        name: 'chat gpt-4.1',
        attrs: { ...this.conv, 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 10, ...repair },
      }),
    );
    return spanId;
  }

  /** An SDK tool call of one attempt with a new call id: `{ call, attempt }` span ids. */
  sdkCall(tool: string, a: { outcome: string; failureClass?: string; decision: string; feedback?: string }): { call: string; attempt: string } {
    const call = hex(8);
    const attempt = hex(8);
    const callId = `call_${hex(4)}`;
    const failed: Record<string, string> = a.failureClass ? { 'guardtrace.failure.class': a.failureClass, 'guardtrace.feedback': a.feedback ?? '' } : {};
    this.spans.push(
      jsonSpan({
        traceId: this.traceId,
        spanId: call,
        parentSpanId: this.root,
        name: `execute_tool ${tool}`,
        attrs: { ...this.conv, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool, 'gen_ai.tool.call.id': callId, 'guardtrace.outcome': a.outcome },
      }),
      jsonSpan({
        traceId: this.traceId,
        spanId: attempt,
        parentSpanId: call,
        name: 'guardtrace.attempt',
        attrs: {
          ...this.conv,
          'gen_ai.operation.name': 'guardtrace.attempt',
          'gen_ai.tool.call.id': callId,
          'guardtrace.attempt': 1,
          'guardtrace.outcome': a.outcome,
          'guardtrace.decision': a.decision,
          ...failed,
        },
      }),
    );
    return { call, attempt };
  }

  /** A plain OpenTelemetry GenAI execute_tool span (no guardtrace.* attributes), ERROR status when it failed. */
  genAiTool(tool: string, failed: boolean): string {
    const spanId = hex(8);
    this.spans.push(
      jsonSpan({
        traceId: this.traceId,
        spanId,
        parentSpanId: this.root,
        name: `execute_tool ${tool}`,
        attrs: { ...this.conv, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool, 'gen_ai.tool.call.id': `call_${hex(4)}`, ...(failed ? { 'error.type': 'TimeoutError' } : {}) },
        status: failed ? 2 : 0,
      }),
    );
    return spanId;
  }
}

/** The stored link of an attempt. */
async function link(projectId: string, spanId: string) {
  const { rows } = await env.sql.query(
    `SELECT repair_span_id AS repair, correction_span_id AS corrected, correction_attempt AS attempt, fixed
     FROM attempts WHERE project_id = $1 AND span_id = $2`,
    [projectId, spanId],
  );
  return rows[0];
}

/** Rejections and fixed ones per tool and class, from the analytics parts (what the page sums). */
async function fixedNext(projectId: string): Promise<Record<string, [number, number]>> {
  const { rows } = await env.sql.query(
    `SELECT tool_name || '|' || failure_class AS k, sum(rejections)::int AS r, sum(rejections_fixed)::int AS f
     FROM analytics_session_parts WHERE project_id = $1 AND rejections > 0 GROUP BY 1`,
    [projectId],
  );
  return Object.fromEntries(rows.map((r) => [r.k, [r.r, r.f]]));
}

const rejected = (failureClass: string, feedback: string) => ({ outcome: 'rejected', failureClass, decision: 'reject_with_feedback', feedback });
const ok = { outcome: 'success', decision: 'proceed' };

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

