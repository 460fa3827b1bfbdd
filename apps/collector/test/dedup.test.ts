/**
 * A span is stored once per (trace id, span id), whatever start time it is re-sent with (issue
 * 13, item 5): +1 ms or -40 days, in one request, across requests and by two collectors at
 * once, over real HTTP. Session totals count it once. The partitions are made for fixed dates
 * (the spans' own), so the test does not depend on the day it runs.
 */
import type { ChildProcess } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, jsonRequest, one, sdkSession, setupApp, setupDatabase, startCollectorProcess } from './helpers.ts';

let env: Env;
const apps: FastifyInstance[] = [];
const procs: ChildProcess[] = [];
/** Two collectors in this process, then two collector processes of their own. */
const urls: string[] = [];

beforeAll(async () => {
  // Monthly partitions October 2026 to January 2027: the sessions below start on 2026-11-30
  // (helpers' clock), and 40 days earlier is in October.
  env = await setupDatabase({ partitions: new Date('2026-11-15T00:00:00Z') });
  for (let i = 0; i < 2; i++) {
    const app = await setupApp(env);
    apps.push(app);
    urls.push(`${await app.listen({ port: 0, host: '127.0.0.1' })}/v1/traces`);
  }
  for (let i = 0; i < 2; i++) {
    const { proc, url } = await startCollectorProcess(env.db.url);
    procs.push(proc);
    urls.push(`${url}/v1/traces`);
  }
});
afterAll(async () => {
  for (const a of apps) await a.close();
  for (const p of procs) {
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM');
    await exited;
  }
  await env?.close();
});

const DAY_MS = 86_400_000;

/** The spans with start and end moved by `ms` (ids, attributes, everything else unchanged). */
function shifted(spans: Record<string, unknown>[], ms: number): Record<string, unknown>[] {
  const by = BigInt(ms) * 1_000_000n;
  const move = (ns: unknown) => (BigInt(ns as string) + by).toString();
  return spans.map((s) => ({ ...s, startTimeUnixNano: move(s.startTimeUnixNano), endTimeUnixNano: move(s.endTimeUnixNano) }));
}

async function post(spans: Record<string, unknown>[], collector = 0): Promise<void> {
  const res = await fetch(urls[collector] as string, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${env.key}` },
    body: JSON.stringify(jsonRequest(spans)),
  });
  expect(res.status, await res.text()).toBe(200);
}

/** Rows per span id of a trace, the partitions they are in, and the session's totals. */
async function stored(traceId: string, sessionId: string) {
  const rows = await env.sql.query<{ span_id: string; n: number }>(
    'SELECT span_id, count(*)::int AS n FROM spans WHERE project_id = $1 AND trace_id = $2 GROUP BY span_id',
    [env.projectId, traceId],
  );
  const derived = await one<{ n: number }>(
    env.sql,
    `SELECT (SELECT count(*) FROM tool_calls WHERE trace_id = $1) + (SELECT count(*) FROM attempts WHERE trace_id = $1)
      + (SELECT count(*) FROM guard_checks WHERE trace_id = $1) + (SELECT count(*) FROM model_calls WHERE trace_id = $1) AS n`,
    [traceId],
  );
  const totals = await one(
    env.sql,
    `SELECT span_count, tool_call_count, attempt_count, failed_attempt_count, model_call_count,
       input_tokens::int, output_tokens::int, repair_tokens::int
     FROM sessions WHERE project_id = $1 AND id = $2`,
    [env.projectId, sessionId],
  );
  return { spans: rows.rows.length, maxCopies: Math.max(0, ...rows.rows.map((r) => r.n)), derived: Number(derived.n), totals };
}

// sdkSession(): 8 spans; 1 tool call, 2 attempts, 2 guard checks, 2 model calls (one a repair).
const ONCE = {
  spans: 8,
  maxCopies: 1,
  derived: 7,
  totals: {
    span_count: 8,
    tool_call_count: 1,
    attempt_count: 2,
    failed_attempt_count: 1,
    model_call_count: 2,
    input_tokens: 8200,
    output_tokens: 200,
    repair_tokens: 4280,
  },
};

describe('a span re-sent with another start time', () => {
  it('has the partitions its start times fall in (else the test would prove nothing about them)', async () => {
    const r = await one<{ oct: string | null; nov: string | null }>(
      env.sql,
      `SELECT to_regclass('spans_p2026_10')::text AS oct, to_regclass('spans_p2026_11')::text AS nov`,
    );
    expect(r).toEqual({ oct: 'spans_p2026_10', nov: 'spans_p2026_11' });
  });

  it('is stored once when one request carries it at three start times (+1 ms, -40 days)', async () => {
    const s = sdkSession();
    await post([...s.spans, ...shifted(s.spans, 1), ...shifted(s.spans, -40 * DAY_MS)]);
    expect(await stored(s.traceId, s.sessionId)).toEqual(ONCE);
  });

  it('is stored once when later requests re-send it 1 ms later and 40 days earlier', async () => {
    const s = sdkSession();
    await post(s.spans);
    await post(shifted(s.spans, 1));
    await post(shifted(s.spans, -40 * DAY_MS));
    expect(await stored(s.traceId, s.sessionId)).toEqual(ONCE);
  });

  it('is stored once when a session without a conversation id is re-sent 40 days earlier', async () => {
    const s = sdkSession({ conv: false });
    await post(shifted(s.spans, -40 * DAY_MS));
    await post(s.spans);
    expect(await stored(s.traceId, s.traceId)).toEqual(ONCE);
  });

  it('is stored once when two collectors receive it at once with different start times', async () => {
    for (let round = 0; round < 5; round++) {
      const s = sdkSession();
      await Promise.all([
        post(s.spans, 0),
        post(shifted(s.spans, 1), 1),
        post(shifted(s.spans, -40 * DAY_MS), 0),
        post(shifted(s.spans, -40 * DAY_MS + 1), 1),
      ]);
      expect(await stored(s.traceId, s.sessionId)).toEqual(ONCE);
    }
  });

  it('is stored once when two collector processes race on the same batches at different start times', async () => {
    // Batches of 20 sessions (160 spans), each sent to both processes at once, twice with other start times.
    for (let round = 0; round < 4; round++) {
      const sessions = Array.from({ length: 20 }, () => sdkSession());
      const batch = sessions.flatMap((x) => x.spans);
      await Promise.all([
        post(batch, 2),
        post(shifted(batch, 1), 3),
        post(shifted(batch, -40 * DAY_MS), 3),
        post(shifted(batch, -40 * DAY_MS + 1), 2),
      ]);
      for (const x of sessions) expect(await stored(x.traceId, x.sessionId)).toEqual(ONCE);
    }
  });
});
