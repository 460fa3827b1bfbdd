/**
 * The analytics rollup (analytics_daily) is kept in the collector's write transaction: after
 * any sequence of batches over real HTTP (re-sent spans, a session split over two batches, an
 * attempt's outcome or a repair turn arriving later, a sampling weight, a late conversation
 * id) it equals a recomputation from the derived rows. The partitions are made for the
 * helpers' fixed dates, so nothing depends on the day the test runs.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, hex, jsonRequest, jsonSpan, random, sdkSession, setupApp, setupDatabase } from './helpers.ts';

let env: Env;
const apps: FastifyInstance[] = [];
/** Two collectors on one database. */
const urls: string[] = [];

beforeAll(async () => {
  env = await setupDatabase({ partitions: new Date('2026-11-30T00:00:00Z') });
  for (let i = 0; i < 2; i++) {
    const app = await setupApp(env);
    apps.push(app);
    urls.push(`${await app.listen({ port: 0, host: '127.0.0.1' })}/v1/traces`);
  }
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await env?.close();
});

async function post(spans: Record<string, unknown>[], key = env.key, collector = 0): Promise<void> {
  const res = await fetch(urls[collector] as string, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(jsonRequest(spans)),
  });
  expect(res.status, await res.text()).toBe(200);
}

type Metrics = Record<'attempts' | 'weighted' | 'failed' | 'rejections' | 'fixed' | 'exhausted' | 'sessions' | 'tokens', number>;

/** Feedback with quoted values and numbers masked (the rule the rollup documents). */
const template = (f: string | null) =>
  (f ?? '')
    .replace(/"[^"]*"|'[^']*'|`[^`]*`/g, '"…"')
    .replace(/[-+]?\b[0-9]+(\.[0-9]+)?\b/g, 'N')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 160);

/** A failed attempt whose feedback went back to the model (the rule the README states). */
const isRejection = (a: { decision: string | null; outcome: string | null }) =>
  a.decision === 'reject_with_feedback' || a.decision === 'replan' || (a.decision === null && a.outcome !== 'success');

/**
 * Whether each failed attempt (analytics counts the rejections among them) was fixed, by the README's rule, recomputed in JavaScript from the rows:
 * the same call's next attempt, else the first call started at or after its repair turn (the
 * recorded one, or with no decision recorded the first model call after it); fixed when that
 * attempt (the call's first, or the call itself without attempts) succeeded. Unlinked: absent.
 */
async function fixedByLink(projectId: string): Promise<Map<string, boolean>> {
  const q = async (sql: string) => (await env.sql.query(sql, [projectId])).rows;
  const attempts = await q(
    `SELECT session_id, span_id, coalesce(tool_call_span_id, span_id) AS call, tool_call_span_id, number, started_at, outcome, decision
     FROM attempts WHERE project_id = $1`,
  );
  const calls = await q('SELECT session_id, span_id, started_at, outcome FROM tool_calls WHERE project_id = $1');
  const models = await q('SELECT session_id, span_id, started_at, repair_attempt_span_id, repair_failure_class FROM model_calls WHERE project_id = $1');
  const t = (d: Date) => d.getTime();
  const first = <T extends { started_at: Date; span_id: string }>(rows: T[]) =>
    [...rows].sort((a, b) => t(a.started_at) - t(b.started_at) || (a.span_id < b.span_id ? -1 : 1))[0];
  const byNumber = <T extends { number: number; started_at: Date }>(rows: T[]) => [...rows].sort((a, b) => a.number - b.number || t(a.started_at) - t(b.started_at));
  // Whether a correction went through, from its first attempt: an attempt that failed transiently
  // and was retried in code (retry_backoff) is judged by the first later one of its call that was
  // not; undefined while that one has not arrived.
  const settled = (session: string, call: string, from: { number: number; outcome: string | null; decision: string | null }): boolean | undefined => {
    if (from.outcome === 'success' || from.decision !== 'retry_backoff') return from.outcome === 'success';
    const end = byNumber(attempts.filter((y) => y.session_id === session && y.tool_call_span_id === call && y.number > from.number)).find(
      (y) => y.outcome === 'success' || y.decision !== 'retry_backoff',
    );
    return end ? end.outcome === 'success' : undefined;
  };
  const out = new Map<string, boolean>();
  for (const r of attempts) {
    if (r.outcome === 'success') continue;
    const same = attempts.filter((n) => n.session_id === r.session_id && n.tool_call_span_id === r.tool_call_span_id && r.tool_call_span_id && n.number === r.number + 1);
    if (same[0]) {
      const v = settled(r.session_id, r.tool_call_span_id, same[0]);
      if (v !== undefined) out.set(r.span_id, v);
      continue;
    }
    const mine = models.filter((m) => m.session_id === r.session_id);
    // Recorded, else the first model call after it: any for no decision recorded; a repair turn for
    // the runtime's feedback or replan (a rejection beside the one that turn names).
    const next = first(mine.filter((m) => t(m.started_at) > t(r.started_at)));
    const turn =
      first(mine.filter((m) => m.repair_attempt_span_id === r.span_id)) ??
      (r.decision === null || ((r.decision === 'reject_with_feedback' || r.decision === 'replan') && (next?.repair_attempt_span_id || next?.repair_failure_class))
        ? next
        : undefined);
    if (!turn) continue;
    const after = [
      ...calls.filter((c) => c.session_id === r.session_id && t(c.started_at) >= t(turn.started_at) && c.span_id !== r.tool_call_span_id),
      // a call's first attempt only (a later one continues a call that started earlier)
      ...attempts
        .filter((y) => y.session_id === r.session_id && y.number === 1 && t(y.started_at) >= t(turn.started_at) && y.call !== r.tool_call_span_id)
        .map((y) => ({ span_id: y.call as string, started_at: y.started_at as Date })),
    ];
    const corrected = first(after);
    if (!corrected) continue;
    const firstAttempt = byNumber(attempts.filter((y) => y.session_id === r.session_id && y.call === corrected.span_id))[0];
    const v = firstAttempt
      ? settled(r.session_id, corrected.span_id, firstAttempt)
      : calls.find((c) => c.session_id === r.session_id && c.span_id === corrected.span_id)?.outcome === 'success';
    if (v !== undefined) out.set(r.span_id, v);
  }
  return out;
}

/** The rollup recomputed in JavaScript from the derived rows of a project. */
async function recompute(projectId: string): Promise<Map<string, Metrics>> {
  const attempts = (
    await env.sql.query(
      `SELECT a.session_id, a.span_id, a.tool_call_span_id, a.number, a.started_at,
         to_char(a.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, coalesce(a.tool_name, c.tool_name) AS tool_name,
         a.outcome, a.failure_class, a.decision, a.feedback, a.budget_exhausted, a.fixed, s.sampling_weight
       FROM attempts a LEFT JOIN tool_calls c ON c.project_id = a.project_id AND c.trace_id = a.trace_id
         AND c.span_id = a.tool_call_span_id
         LEFT JOIN sessions s ON s.project_id = a.project_id AND s.id = a.session_id
       WHERE a.project_id = $1`,
      [projectId],
    )
  ).rows;
  const models = (
    await env.sql.query(
      `SELECT m.session_id, to_char(m.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, m.input_tokens + m.output_tokens AS tokens,
         m.repair_attempt_span_id, m.repair_failure_class, s.sampling_weight
       FROM model_calls m LEFT JOIN sessions s ON s.project_id = m.project_id AND s.id = m.session_id
       WHERE m.project_id = $1 AND (m.repair_attempt_span_id IS NOT NULL OR m.repair_failure_class IS NOT NULL)`,
      [projectId],
    )
  ).rows;
  const fixed = await fixedByLink(projectId);
  const out = new Map<string, Metrics>();
  const seen = new Set<string>();
  const add = (session: string, k: string, m: Partial<Metrics>) => {
    const e = out.get(k) ?? { attempts: 0, weighted: 0, failed: 0, rejections: 0, fixed: 0, exhausted: 0, sessions: 0, tokens: 0 };
    for (const [f, v] of Object.entries(m)) e[f as keyof Metrics] += v;
    if (!seen.has(`${session}|${k}`)) {
      seen.add(`${session}|${k}`);
      e.sessions++;
    }
    out.set(k, e);
  };
  const keyOf = (a: (typeof attempts)[number]) =>
    [a.day, a.tool_name ?? '', a.failure_class ?? '', template(a.feedback)].join('|');
  for (const a of attempts) {
    const rejected = isRejection(a);
    // The stored link (what the replay shows) is the rule's, for every failed attempt.
    expect(a.fixed ?? null, `attempt ${a.span_id}`).toBe(a.outcome === 'success' ? null : (fixed.get(a.span_id) ?? null));
    add(a.session_id, keyOf(a), {
      attempts: 1,
      // Each attempt stands for its session's sampling weight of them.
      weighted: Number(a.sampling_weight ?? 1),
      failed: a.outcome === 'success' ? 0 : 1,
      rejections: rejected ? 1 : 0,
      fixed: rejected && fixed.get(a.span_id) === true ? 1 : 0,
      exhausted: a.budget_exhausted ? 1 : 0,
    });
  }
  for (const m of models) {
    const a = attempts.find((x) => x.session_id === m.session_id && x.span_id === m.repair_attempt_span_id);
    const k = a
      ? [a.day, a.tool_name ?? '', a.failure_class || m.repair_failure_class || '', template(a.feedback)].join('|')
      : [m.day, '', m.repair_failure_class ?? '', ''].join('|');
    add(m.session_id, k, { tokens: Number(m.tokens) * Number(m.sampling_weight ?? 1) });
  }
  return out;
}

/** The stored rollup of a project (rows that came back to all zeros left out). */
async function rollup(projectId: string): Promise<Map<string, Metrics>> {
  const { rows } = await env.sql.query(
    `SELECT to_char(r.day, 'YYYY-MM-DD') AS day, r.tool_name, r.failure_class, r.feedback_template, r.attempts, r.failed_attempts,
       r.rejections, coalesce(p.fixed, 0)::int AS rejections_fixed, r.retry_exhausted, r.sessions, r.failed_tokens,
       r.weighted_attempts
     FROM analytics_daily r
     -- Whether a rejection was fixed is kept in the session parts only (the link step's).
     LEFT JOIN (SELECT project_id, day, tool_name, failure_class, feedback_template, sum(rejections_fixed) AS fixed
       FROM analytics_session_parts GROUP BY 1, 2, 3, 4, 5) p
       ON p.project_id = r.project_id AND p.day = r.day AND p.tool_name = r.tool_name AND p.failure_class = r.failure_class
         AND p.feedback_template = r.feedback_template
     WHERE r.project_id = $1`,
    [projectId],
  );
  const out = new Map<string, Metrics>();
  for (const r of rows) {
    const m = {
      attempts: r.attempts,
      weighted: Math.round(r.weighted_attempts * 1e6) / 1e6,
      failed: r.failed_attempts,
      rejections: r.rejections,
      fixed: r.rejections_fixed,
      exhausted: r.retry_exhausted,
      sessions: r.sessions,
      tokens: Math.round(r.failed_tokens * 1e6) / 1e6,
    };
    if (Object.values(m).some((v) => v !== 0)) out.set([r.day, r.tool_name, r.failure_class, r.feedback_template].join('|'), m);
  }
  return out;
}

/** The cost-per-session rollup next to the same grouping of the sessions rows. */
async function costs(projectId: string) {
  const q = async (sql: string) => (await env.sql.query(sql, [projectId])).rows;
  return {
    stored: await q(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, bucket, sessions, estimated_sessions, tokens, repair_tokens
       FROM analytics_cost_daily WHERE project_id = $1 AND (sessions <> 0 OR tokens <> 0) ORDER BY day, bucket`,
    ),
    recomputed: await q(
      `SELECT to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
         CASE WHEN t < 1000 THEN 0 WHEN t < 2000 THEN 1 WHEN t < 5000 THEN 2 WHEN t < 10000 THEN 3 WHEN t < 20000 THEN 4
           WHEN t < 50000 THEN 5 WHEN t < 100000 THEN 6 WHEN t < 200000 THEN 7 WHEN t < 500000 THEN 8
           WHEN t < 1000000 THEN 9 ELSE 10 END AS bucket,
         count(*)::int AS sessions, sum(sampling_weight)::float8 AS estimated_sessions,
         sum(t * sampling_weight)::float8 AS tokens, sum(repair_tokens * sampling_weight)::float8 AS repair_tokens
       FROM (SELECT *, input_tokens + output_tokens AS t FROM sessions WHERE project_id = $1) s
       GROUP BY 1, 2 ORDER BY 1, 2`,
    ),
  };
}

async function expectConsistent(projectId: string): Promise<Map<string, Metrics>> {
  const stored = await rollup(projectId);
  expect(stored).toEqual(await recompute(projectId));
  const c = await costs(projectId);
  expect(c.stored).toEqual(c.recomputed);
  return stored;
}

const TEMPLATE = 'Missing required field "…"';

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

  it('stays equal to the recomputation over a long session sent in many batches, in any order', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const sessionId = `sess_${hex(6)}`;
    // 30 turns of one session, each its own trace; their 240 spans shuffled and sent in 24
    // batches, so attempts come before or after their tool call, a fix before or after the
    // rejection it fixes and a repair turn before or after the attempt it repairs. Every batch
    // after the first updates the stored session by the rows it can change (listed), not whole.
    const turns = Array.from({ length: 30 }, () => sdkSession({ sessionId }));
    const rnd = random(13);
    const spans = turns.flatMap((t) => t.spans);
    for (let i = spans.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [spans[i], spans[j]] = [spans[j] as Record<string, unknown>, spans[i] as Record<string, unknown>];
    }
    for (let i = 0; i < spans.length; i += 10) {
      await post(spans.slice(i, i + 10), key);
      if (i % 60 === 0) await expectConsistent(projectId);
    }
    // A re-send of a few batches' spans changes nothing.
    await post(spans.slice(0, 40), key);
    const stored = await expectConsistent(projectId);
    expect(stored.get(`2026-11-30|write_file|invalid_arguments|${TEMPLATE}`)).toEqual({
      attempts: 30,
      weighted: 30,
      failed: 30,
      rejections: 30,
      fixed: 30,
      exhausted: 0,
      sessions: 1,
      tokens: 30 * 4280,
    });
    const parts = await env.sql.query('SELECT row_count FROM analytics_session_parts WHERE project_id = $1 ORDER BY row_count', [projectId]);
    // Under the rejection's key: 30 attempts and 30 repair turns; under the success's: 30 attempts.
    expect(parts.rows.map((r) => r.row_count)).toEqual([30, 60]);
  });

  it('stays equal to the recomputation when two collectors write the same sessions at once', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const sessions = Array.from({ length: 6 }, () => sdkSession());
    // Each session split in two halves, each half sent to both collectors, all at once.
    const posts = sessions.flatMap((s) => {
      const half = Math.ceil(s.spans.length / 2);
      const parts = [s.spans.slice(0, half), s.spans.slice(half)];
      return parts.flatMap((part) => [post(part, key, 0), post(part, key, 1)]);
    });
    await Promise.all(posts);
    const stored = await expectConsistent(projectId);
    expect(stored.get(`2026-11-30|write_file|invalid_arguments|${TEMPLATE}`)).toMatchObject({
      attempts: 6,
      rejections: 6,
      fixed: 6,
      sessions: 6,
      tokens: 6 * 4280,
    });
  });
});
