/**
 * A session written over many transactions: each batch's totals are merged into the stored
 * row when the row decides every value, else the session is recomputed; either way the row must
 * equal a full recomputation from the stored rows, whatever order the spans arrive in.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Normalizer } from '../src/normalize.ts';
import { createPool } from '../src/pg.ts';
import { refreshSessions, textArray } from '../src/sql.ts';
import { Writer } from '../src/writer.ts';
import { type Env, hex, jsonRequest, jsonSpan, random, sdkSession, setupDatabase } from './helpers.ts';

let env: Env;
let pool: ReturnType<typeof createPool>;
let writer: Writer;
beforeAll(async () => {
  env = await setupDatabase();
  pool = createPool(env.db.url);
  writer = new Writer(pool, { maxBatchSpans: 1000, maxQueueSpans: 10_000, retryAfterSeconds: 1, concurrency: 1 });
});
afterAll(async () => {
  await writer?.drain();
  await pool?.end();
  await env?.close();
});

const normalize = (body: unknown) => new Normalizer().normalize(JSON.parse(JSON.stringify(body))).spans;

it('keeps every total equal to a recomputation when a session arrives span by span in any order', async () => {
  const rnd = random(7);
  const ids: string[] = [];
  const requests: { spans: Record<string, unknown>[]; service: string }[] = [];
  for (let i = 0; i < 12; i++) {
    const sessionId = `merge_${hex(5)}`;
    ids.push(sessionId);
    const spans: Record<string, unknown>[] = [];
    // Three traces of the same conversation, 8 SDK-shaped spans each, with values that compete
    // between batches: agent names, users of the three conventions, outcomes, escalations, weights.
    for (let t = 0; t < 3; t++) {
      const s = sdkSession({ sessionId });
      spans.push(...s.spans);
      const c = { 'gen_ai.conversation.id': sessionId };
      // Within a minute after this trace's SDK spans: their times come from the helpers' clock, which
      // the other test files of the worker (isolate: false) have moved on by an unknown amount.
      const sdkStartMs = Number(BigInt(s.spans[0]?.startTimeUnixNano as string) / 1_000_000n);
      const startMs = sdkStartMs + Math.floor(rnd() * 60_000);
      if ((i + t) % 2 === 0) spans.push(jsonSpan({ traceId: s.traceId, name: 'agent', startMs, attrs: { ...c, 'gen_ai.agent.name': `agent-${t}` } }));
      if ((i + t) % 3 === 0) spans.push(jsonSpan({ traceId: s.traceId, name: 'user', startMs: startMs + 1, attrs: { ...c, 'user.id': `otel-${t}` } }));
      if (i % 4 === 1 && t === 2) spans.push(jsonSpan({ traceId: s.traceId, name: 'user', startMs, attrs: { ...c, 'guardtrace.user.id': 'gt-user' } }));
      if (i % 5 === 2) {
        spans.push(jsonSpan({ traceId: s.traceId, name: 'outcome', startMs: startMs + 2, attrs: { ...c, 'guardtrace.session.outcome': t === 1 ? 'escalated' : 'failed' } }));
      }
      if (i % 3 === 1 && t === 1) {
        spans.push(
          jsonSpan({
            traceId: s.traceId,
            parentSpanId: s.ids.tool,
            name: 'guardtrace.attempt',
            startMs,
            status: 2,
            attrs: { ...c, 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.decision': 'escalate_human', 'guardtrace.sampling.weight': 4 },
          }),
        );
      }
      if (i % 6 === 5) spans.push(jsonSpan({ traceId: s.traceId, name: 'weight', startMs, attrs: { ...c, 'guardtrace.sampling.weight': t === 0 ? 1.5 : 2 } }));
      // A root span that failed, in some sessions only.
      if (i % 4 === 3 && t === 0) spans.push(jsonSpan({ traceId: s.traceId, name: 'root failed', startMs, status: 2, attrs: c }));
    }
    // One to three spans per request, in random order, from two services.
    for (let k = spans.length - 1; k > 0; k--) {
      const j = Math.floor(rnd() * (k + 1));
      [spans[k], spans[j]] = [spans[j] as Record<string, unknown>, spans[k] as Record<string, unknown>];
    }
    for (let at = 0; at < spans.length; ) {
      const n = 1 + Math.floor(rnd() * 3);
      requests.push({ spans: spans.slice(at, at + n), service: rnd() < 0.5 ? 'svc-a' : 'svc-b' });
      at += n;
    }
  }
  // Sessions interleaved; one request at a time, so every batch after a session's first meets its stored row.
  for (let k = requests.length - 1; k > 0; k--) {
    const j = Math.floor(rnd() * (k + 1));
    [requests[k], requests[j]] = [requests[j] as (typeof requests)[number], requests[k] as (typeof requests)[number]];
  }
  for (const r of requests) await writer.submit(env.projectId, normalize(jsonRequest(r.spans, r.service)));

  const cols = `id, agent_name, service_name, user_id, started_at, ended_at, outcome, span_count, error_span_count, tool_call_count,
    attempt_count, failed_attempt_count, model_call_count, input_tokens, output_tokens, repair_tokens, sampling_weight`;
  const read = async () => (await env.sql.query(`SELECT ${cols} FROM sessions WHERE id = ANY($1) ORDER BY id`, [ids])).rows;
  const written = await read();
  expect(written).toHaveLength(12);
  // The values compete: several agents, users, outcomes and weights appear across the sessions.
  expect(new Set(written.map((r) => r.outcome)).size).toBeGreaterThan(1);
  expect(new Set(written.map((r) => r.user_id)).size).toBeGreaterThan(2);
  // Error spans, merged batch by batch, as counted again from all the stored spans.
  expect(written.some((r) => r.error_span_count > 1)).toBe(true);
  await env.sql.query(refreshSessions(textArray(ids.map(() => env.projectId)), textArray(ids)));
  expect(await read()).toEqual(written);
}, 120_000);
