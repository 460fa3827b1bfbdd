/**
 * The harness of the analytics rollup tests (analytics-rollup*.test.ts): a database and two
 * collectors on it per test file, spans posted over real HTTP, and the stored rollup
 * (analytics_daily, analytics_cost_daily) compared with a recomputation from the derived rows.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { type Env, jsonRequest, setupApp, setupDatabase } from './helpers.ts';

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

/** The file's database and two collectors on it (made before its tests, closed after; `ready` gets the database), and what the tests do with them. */
export function analyticsRollupSuite(ready: (env: Env) => void) {
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
    ready(env);
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

  return { post, expectConsistent };
}

export const TEMPLATE = 'Missing required field "…"';
