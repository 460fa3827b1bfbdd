/**
 * The analytics rollup (analytics_daily) is kept in the collector's write transaction: after
 * any sequence of batches over real HTTP (re-sent spans, a session split over two batches, an
 * attempt's outcome or a repair turn arriving later, a sampling weight, a late conversation
 * id) it equals a recomputation from the derived rows. The partitions are made for the
 * helpers' fixed dates, so nothing depends on the day the test runs.
 * Long sessions in shuffled batches and two collectors at once: analytics-rollup-order.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { analyticsRollupSuite, TEMPLATE } from './analytics-rollup-support.ts';
import { type Env, hex, jsonSpan, sdkSession } from './helpers.ts';

let env: Env;
const { post, expectConsistent } = analyticsRollupSuite((e) => {
  env = e;
});

describe('analytics rollup in the write transaction', () => {
  it('writes one SDK session’s rollup: the rejection fixed on the next attempt, its repair tokens', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    await post(sdkSession().spans, key);
    const stored = await expectConsistent(projectId);
    expect(stored.get(`2026-11-30|write_file|invalid_arguments|${TEMPLATE}`)).toEqual({
      attempts: 1,
      weighted: 1,
      failed: 1,
      rejections: 1,
      fixed: 1,
      exhausted: 0,
      sessions: 1,
      tokens: 4280,
    });
    expect(stored.get('2026-11-30|write_file||')).toMatchObject({ attempts: 1, failed: 0, sessions: 1 });
  });

  it('adds nothing when the same spans are re-sent, alone or with new ones', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const a = sdkSession();
    const b = sdkSession();
    await post(a.spans, key);
    const before = await expectConsistent(projectId);
    await post(a.spans, key);
    await post([...a.spans.slice(0, 3), ...b.spans], key);
    const after = await expectConsistent(projectId);
    const k = `2026-11-30|write_file|invalid_arguments|${TEMPLATE}`;
    expect(before.get(k)?.rejections).toBe(1);
    expect(after.get(k)).toMatchObject({ attempts: 2, rejections: 2, fixed: 2, sessions: 2, tokens: 8560 });
  });

  it('counts a fix and repair tokens that arrive in a later batch of the session, once', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const s = sdkSession();
    const late = new Set([s.ids.a2, s.ids.repair]);
    const first = s.spans.filter((sp) => !late.has(sp.spanId as string) && sp.parentSpanId !== s.ids.a2);
    const second = s.spans.filter((sp) => !first.includes(sp));
    await post(first, key);
    const k = `2026-11-30|write_file|invalid_arguments|${TEMPLATE}`;
    expect((await expectConsistent(projectId)).get(k)).toMatchObject({ rejections: 1, fixed: 0, tokens: 0, sessions: 1 });
    await post(second, key);
    expect((await expectConsistent(projectId)).get(k)).toMatchObject({ rejections: 1, fixed: 1, tokens: 4280, sessions: 1 });
    await post(second, key);
    expect((await expectConsistent(projectId)).get(k)).toMatchObject({ rejections: 1, fixed: 1, tokens: 4280, sessions: 1 });
  });

  it('keeps a failed session at weight 1 when a sampling weight arrives after its repair tokens', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const s = sdkSession();
    await post(s.spans, key);
    const weighted = jsonSpan({
      traceId: s.traceId,
      parentSpanId: s.ids.root,
      name: 'guardtrace.sampling',
      attrs: { 'gen_ai.conversation.id': s.sessionId, 'guardtrace.sampling.weight': 4 },
    });
    await post([weighted], key);
    const stored = await expectConsistent(projectId);
    // A failure anywhere keeps the session whole at weight 1 (sampling across processes): the
    // late weight of 4 is another process's verdict on a clean part, not a thinning of this one.
    expect(stored.get(`2026-11-30|write_file|invalid_arguments|${TEMPLATE}`)?.tokens).toBe(4280);
  });

  it('moves a trace’s rollup to its conversation when the conversation id arrives late', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const sessionId = `sess_${hex(6)}`;
    const s = sdkSession({ sessionId, conv: false });
    await post(s.spans, key);
    const parts = async () =>
      (await env.sql.query('SELECT DISTINCT session_id FROM analytics_session_parts WHERE project_id = $1', [projectId])).rows.map(
        (r) => r.session_id,
      );
    expect(await parts()).toEqual([s.traceId]);
    await post([jsonSpan({ traceId: s.traceId, parentSpanId: s.ids.root, name: 'late', attrs: { 'gen_ai.conversation.id': sessionId } })], key);
    expect(await parts()).toEqual([sessionId]);
    const stored = await expectConsistent(projectId);
    expect(stored.get(`2026-11-30|write_file|invalid_arguments|${TEMPLATE}`)).toMatchObject({ sessions: 1, rejections: 1, fixed: 1 });
  });

  it('counts attempts that ran out of a budget, masks values in feedback templates', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const traceId = hex(16);
    const conv = { 'gen_ai.conversation.id': `sess_${hex(6)}` };
    const tool = hex(8);
    const attempt = (n: number, feedback: string, extra: Record<string, string | number> = {}) =>
      jsonSpan({
        traceId,
        parentSpanId: tool,
        name: 'guardtrace.attempt',
        attrs: {
          ...conv,
          'gen_ai.operation.name': 'guardtrace.attempt',
          'guardtrace.attempt': n,
          'guardtrace.outcome': 'failed',
          'guardtrace.failure.class': 'transient',
          'guardtrace.decision': n < 3 ? 'retry_backoff' : 'escalate_human',
          'guardtrace.feedback': feedback,
          ...extra,
        },
      });
    await post(
      [
        jsonSpan({ traceId, spanId: tool, name: 'execute_tool fetch', attrs: { ...conv, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'fetch' } }),
        attempt(1, 'HTTP 503 from "api.example.com" after 1200 ms'),
        attempt(2, 'HTTP 502 from "api2.example.com" after 31.5 ms'),
        attempt(3, 'HTTP 503 from "api.example.com" after 900 ms', { 'guardtrace.budget.exhausted': 'attempts_per_call' }),
      ],
      key,
    );
    const stored = await expectConsistent(projectId);
    expect(stored.get('2026-11-30|fetch|transient|HTTP N from "…" after N ms')).toEqual({
      attempts: 3,
      weighted: 3,
      failed: 3,
      rejections: 0,
      fixed: 0,
      exhausted: 1,
      sessions: 1,
      tokens: 0,
    });
  });
});
