/**
 * Two collector processes against one Postgres, receiving interleaved batches of the same
 * sessions in random order (some sent to both): every span is stored once and every session's
 * totals equal a recomputation from the stored raw spans and rows.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { refreshSessions, textArray } from '../src/sql.ts';
import { type Env, hex, jsonRequest, jsonSpan, sdkSession, setupDatabase, startCollectorProcess } from './helpers.ts';

let env: Env;
const procs: ChildProcess[] = [];
beforeAll(async () => {
  env = await setupDatabase();
}, 180_000);
afterAll(async () => {
  for (const p of procs) p.kill('SIGKILL');
  await env?.close();
}, 180_000);

/** A seeded generator (mulberry32): the shuffle is random but the same on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One export, retried on 429/503 after its Retry-After as an OTLP exporter does; resolves with the final status. */
async function post(url: string, key: string, spans: Record<string, unknown>[]): Promise<number> {
  for (;;) {
    const res = await fetch(`${url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(jsonRequest(spans)),
    });
    await res.arrayBuffer();
    if (res.status !== 429 && res.status !== 503) return res.status;
    await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
  }
}

it('stores each span once and keeps totals equal to a recomputation from raw spans', async () => {
  const [a, b] = await Promise.all([startCollectorProcess(env.db.url), startCollectorProcess(env.db.url)]);
  procs.push(a.proc, b.proc);
  const rnd = random(13);
  // 24 sessions: each a few SDK-shaped traces (8 spans each) with the same conversation id; every
  // third session's second trace carries no conversation id on its first spans (the trace is
  // stored under its trace id, then re-keyed when a span naming the conversation arrives).
  const spans: Record<string, unknown>[] = [];
  const sessionIds: string[] = [];
  for (let i = 0; i < 24; i++) {
    const sessionId = `two_${hex(6)}`;
    sessionIds.push(sessionId);
    for (let t = 0; t < 3; t++) {
      const late = i % 3 === 0 && t === 1;
      const s = sdkSession({ sessionId, conv: !late });
      spans.push(...s.spans);
      if (late) spans.push(jsonSpan({ traceId: s.traceId, parentSpanId: s.ids.root, name: 'late conv', attrs: { 'gen_ai.conversation.id': sessionId } }));
    }
  }
  // Shuffled, cut into batches of 1 to 12 spans, each sent to one collector at random; one
  // batch in five is sent to the other collector too (a retry landing elsewhere).
  for (let i = spans.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [spans[i], spans[j]] = [spans[j] as Record<string, unknown>, spans[i] as Record<string, unknown>];
  }
  const sends: (() => Promise<number>)[] = [];
  const urls = [a.url, b.url];
  for (let at = 0; at < spans.length; ) {
    const n = 1 + Math.floor(rnd() * 12);
    const batch = spans.slice(at, at + n);
    at += n;
    const first = rnd() < 0.5 ? 0 : 1;
    sends.push(() => post(urls[first] as string, env.key, batch));
    if (rnd() < 0.2) sends.push(() => post(urls[1 - first] as string, env.key, batch));
  }
  // 8 exporters at once, each taking the next batch when its last one is acknowledged.
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < sends.length) statuses.push(await (sends[next++] as () => Promise<number>)());
    }),
  );
  expect(new Set(statuses)).toEqual(new Set([200]));

  // No duplicates: one row per (trace id, span id) sent.
  const stored = await env.sql.query<{ n: number; distinct: number }>(
    'SELECT count(*)::int AS n, count(DISTINCT (trace_id, span_id))::int AS distinct FROM spans WHERE project_id = $1',
    [env.projectId],
  );
  expect(stored.rows[0]).toEqual({ n: spans.length, distinct: spans.length });
  for (const table of ['tool_calls', 'attempts', 'guard_checks', 'model_calls']) {
    const r = await env.sql.query<{ n: number; distinct: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT (trace_id, span_id))::int AS distinct FROM ${table} WHERE project_id = $1`,
      [env.projectId],
    );
    expect(r.rows[0]?.n, table).toBe(r.rows[0]?.distinct);
  }
  // Every span went to its conversation's session: no session keyed by a trace id is left.
  const sessions = await env.sql.query<{ id: string }>('SELECT id FROM sessions WHERE project_id = $1 ORDER BY id', [env.projectId]);
  expect(sessions.rows.map((r) => r.id)).toEqual([...sessionIds].sort());

  // Totals straight from the raw spans: spans, tool calls (execute_tool) and attempts per session.
  const fromSpans = await env.sql.query(
    `SELECT session_id AS id, count(*)::int AS span_count,
       (count(*) FILTER (WHERE attributes->>'gen_ai.operation.name' = 'execute_tool'))::int AS tool_call_count,
       (count(*) FILTER (WHERE attributes->>'gen_ai.operation.name' = 'guardtrace.attempt'))::int AS attempt_count
     FROM spans WHERE project_id = $1 GROUP BY session_id ORDER BY session_id`,
    [env.projectId],
  );
  const cols = `id, agent_name, service_name, user_id, started_at, ended_at, outcome, span_count, tool_call_count, attempt_count,
    failed_attempt_count, model_call_count, input_tokens, output_tokens, repair_tokens, sampling_weight`;
  const read = async () => (await env.sql.query(`SELECT ${cols} FROM sessions WHERE project_id = $1 ORDER BY id`, [env.projectId])).rows;
  const written = await read();
  expect(written.map((r) => ({ id: r.id, span_count: r.span_count, tool_call_count: r.tool_call_count, attempt_count: r.attempt_count }))).toEqual(
    fromSpans.rows,
  );
  // And what was sent: 3 traces of 8 spans (3 tool calls, 6 attempts), plus the late span of every third session.
  const sent = new Map(sessionIds.map((id, i) => [id, { span_count: 24 + (i % 3 === 0 ? 1 : 0), tool_call_count: 3, attempt_count: 6 }]));
  for (const r of written) expect({ id: r.id, ...sent.get(r.id) }).toEqual({ id: r.id, span_count: r.span_count, tool_call_count: r.tool_call_count, attempt_count: r.attempt_count });
  // Every column, against the collector's full recomputation over the stored rows.
  await env.sql.query(refreshSessions(textArray(sessionIds.map(() => env.projectId)), textArray(sessionIds)));
  expect(await read()).toEqual(written);
}, 180_000);
