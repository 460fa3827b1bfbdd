/**
 * The per-model rollup of repair turns (analytics_model_daily) is kept in the collector's write
 * transaction: after re-sent spans, a repair turn arriving in a later batch, a late conversation
 * id or a session gone, it equals its key's repair tokens per model recomputed from the rows,
 * and agrees with analytics_daily's failed_tokens of the same day, tool and class; the spend of
 * every model call per session start day and model (analytics_model_spend_daily) likewise.
 */

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { costOf, PriceBook } from '@guardtrace/db';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, hex, jsonRequest, jsonSpan, sdkSession, setupApp, setupDatabase } from './helpers.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const LATEST_CACHE_MIGRATION = '20261208090000_model_call_input_with_cache';

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

/** The stored per-model rollup (rows back at zero left out): `day|tool|class|model` → [input, output, cached]. */
async function stored(projectId: string): Promise<Record<string, number[]>> {
  const { rows } = await env.sql.query(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, tool_name, failure_class, model, input_tokens, output_tokens, cached_input_tokens
     FROM analytics_model_daily WHERE project_id = $1 AND (input_tokens <> 0 OR output_tokens <> 0 OR cached_input_tokens <> 0)`,
    [projectId],
  );
  return Object.fromEntries(
    rows.map((r) => [[r.day, r.tool_name, r.failure_class, r.model].join('|'), [r.input_tokens, r.output_tokens, r.cached_input_tokens]]),
  );
}

/** The stored spend per day and model (rows back at zero left out): `day|model` → [input, output, cached]. */
async function spend(projectId: string): Promise<Record<string, number[]>> {
  const { rows } = await env.sql.query(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, model, input_tokens, output_tokens, cached_input_tokens
     FROM analytics_model_spend_daily WHERE project_id = $1 AND (input_tokens <> 0 OR output_tokens <> 0 OR cached_input_tokens <> 0)`,
    [projectId],
  );
  return Object.fromEntries(rows.map((r) => [`${r.day}|${r.model}`, [r.input_tokens, r.output_tokens, r.cached_input_tokens]]));
}

/** analytics_daily's repair tokens per day, tool and class, which the per-model rows must sum to. */
async function failedTokens(projectId: string): Promise<Record<string, number>> {
  const { rows } = await env.sql.query(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, tool_name, failure_class, sum(failed_tokens)::float8 AS t
     FROM analytics_daily WHERE project_id = $1 GROUP BY 1, 2, 3 HAVING sum(failed_tokens) <> 0`,
    [projectId],
  );
  return Object.fromEntries(rows.map((r) => [[r.day, r.tool_name, r.failure_class].join('|'), r.t]));
}

async function expectAgreesWithDaily(projectId: string): Promise<void> {
  const perModel: Record<string, number> = {};
  for (const [k, [i, o]] of Object.entries(await stored(projectId))) {
    const key = k.split('|').slice(0, 3).join('|');
    perModel[key] = (perModel[key] ?? 0) + (i as number) + (o as number);
  }
  expect(perModel).toEqual(await failedTokens(projectId));
}

const KEY = '2026-11-30|write_file|invalid_arguments|gpt-4.1-mini';

describe('repair turns per model in the write transaction', () => {
  it('writes a session’s repair turn under its attempt’s tool and class and its model, once however often it is sent', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const s = sdkSession();
    await post(s.spans, key);
    expect(await stored(projectId)).toEqual({ [KEY]: [4200, 80, 0] });
    await post(s.spans, key);
    await post([...s.spans.slice(0, 2), ...sdkSession().spans], key);
    expect(await stored(projectId)).toEqual({ [KEY]: [8400, 160, 0] });
    await expectAgreesWithDaily(projectId);
    // Every model call of both sessions (a first turn and a repair turn each), on their start day.
    expect(await spend(projectId)).toEqual({ '2026-11-30|gpt-4.1-mini': [16400, 400, 0] });
  });

  it('counts a repair turn and the attempt it repairs that arrive in a later batch', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const s = sdkSession();
    const late = new Set([s.ids.a1, s.ids.repair]);
    const first = s.spans.filter((sp) => !late.has(sp.spanId as string) && sp.parentSpanId !== s.ids.a1);
    await post(first, key);
    expect(await stored(projectId)).toEqual({});
    // The repair turn alone: its class is its own, its tool unknown until the attempt arrives.
    await post(s.spans.filter((sp) => sp.spanId === s.ids.repair), key);
    expect(Object.values(await stored(projectId))).toEqual([[4200, 80, 0]]);
    await post(s.spans.filter((sp) => !first.includes(sp)), key);
    expect(await stored(projectId)).toEqual({ [KEY]: [4200, 80, 0] });
    await expectAgreesWithDaily(projectId);
  });

  it('follows a trace to its conversation when the conversation id arrives late', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const sessionId = `sess_${hex(6)}`;
    const s = sdkSession({ sessionId, conv: false });
    await post(s.spans, key);
    await post([jsonSpan({ traceId: s.traceId, parentSpanId: s.ids.root, name: 'late', attrs: { 'gen_ai.conversation.id': sessionId } })], key);
    const parts = await env.sql.query('SELECT DISTINCT session_id FROM analytics_model_session_parts WHERE project_id = $1', [projectId]);
    expect(parts.rows.map((r) => r.session_id)).toEqual([sessionId]);
    expect(await stored(projectId)).toEqual({ [KEY]: [4200, 80, 0] });
    expect(await spend(projectId)).toEqual({ '2026-11-30|gpt-4.1-mini': [8200, 200, 0] });
  });

  it('subtracts a session that is gone', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const s = sdkSession();
    await post(s.spans, key);
    await env.sql.query('DELETE FROM model_calls WHERE project_id = $1', [projectId]);
    await env.sql.query('SELECT guardtrace_update_model_costs(ARRAY[$1]::uuid[], ARRAY[$2]::text[])', [projectId, s.sessionId]);
    expect(await stored(projectId)).toEqual({});
    expect(await spend(projectId)).toEqual({});
  });
});

describe('prompt-cache tokens reported beside the input', () => {
  // Anthropic's usage copied as it is: 100 uncached input tokens beside 1,000 cache reads.
  async function send(key: string): Promise<string> {
    const traceId = hex(16);
    const root = hex(8);
    const sessionId = `sess_${hex(6)}`;
    const c = { 'gen_ai.conversation.id': sessionId };
    const chat = (input: number, cached: number, output: number) =>
      jsonSpan({ traceId, parentSpanId: root, name: 'chat claude-sonnet-4-5',
        attrs: { ...c, 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'claude-sonnet-4-5', 'gen_ai.usage.input_tokens': input,
          'gen_ai.usage.cache_read.input_tokens': cached, 'gen_ai.usage.output_tokens': output } });
    await post([jsonSpan({ traceId, spanId: root, name: 'invoke_agent a', attrs: { ...c, 'gen_ai.operation.name': 'invoke_agent' } }), chat(100, 1000, 10), chat(5000, 0, 100)], key);
    return sessionId;
  }
  const price = new PriceBook([]).lookup('claude-sonnet-4-5')?.price;
  // $3 / $0.30 / $15 per million: 100 uncached and 1,000 cached input + 10 output, then 5,000 input + 100 output
  const truth = (100 * 3 + 1000 * 0.3 + 10 * 15 + 5000 * 3 + 100 * 15) / 1e6;

  async function totals(projectId: string, sessionId: string) {
    const calls = await env.sql.query('SELECT input_tokens, cached_input_tokens FROM model_calls WHERE project_id = $1 AND session_id = $2 ORDER BY started_at', [projectId, sessionId]);
    const session = await env.sql.query('SELECT input_tokens FROM sessions WHERE project_id = $1 AND id = $2', [projectId, sessionId]);
    const [row] = Object.values(await spend(projectId));
    const [input, output, cached] = row as number[];
    if (!price) throw new Error('no built-in price for claude-sonnet-4-5');
    return {
      calls: calls.rows.map((r) => [r.input_tokens, r.cached_input_tokens]),
      sessionInput: Number(session.rows[0]?.input_tokens),
      dayCost: costOf({ inputTokens: input as number, outputTokens: output as number, cachedInputTokens: cached as number }, price),
    };
  }

  it('stores the call\'s input as their sum, so the session counts them and the day prices each part at its rate', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const sessionId = await send(key);
    const t = await totals(projectId, sessionId);
    // before: the call's input 100 (the session's 5,100), its 100 uncached tokens priced at nothing ($0.0171)
    expect(t.calls).toEqual([[1100, 1000], [5000, 0]]);
    expect(t.sessionInput).toBe(6100);
    expect(t.dayCost).toBeCloseTo(truth, 12);
  });

  it('the migration gives calls stored before the same input, and recounts their sessions and rollups', async () => {
    const projectId = await env.newProject();
    const { key } = await env.newKey(projectId);
    const sessionId = await send(key);
    // as stored before: the input as reported, the session and rollups counted from it
    await env.sql.query('UPDATE model_calls SET input_tokens = 100 WHERE project_id = $1 AND cached_input_tokens = 1000', [projectId]);
    await env.sql.query('SELECT guardtrace_refresh_sessions(ARRAY[$1]::uuid[], ARRAY[$2]::text[])', [projectId, sessionId]);
    await env.sql.query('SELECT guardtrace_update_model_costs(ARRAY[$1]::uuid[], ARRAY[$2]::text[])', [projectId, sessionId]);
    expect((await totals(projectId, sessionId)).sessionInput).toBe(5100);
    const migration = path.join(here, '../../../prisma/migrations', LATEST_CACHE_MIGRATION, 'migration.sql');
    await env.sql.query(readFileSync(migration, 'utf8'));
    const t = await totals(projectId, sessionId);
    expect(t.calls).toEqual([[1100, 1000], [5000, 0]]);
    expect(t.sessionInput).toBe(6100);
    expect(t.dayCost).toBeCloseTo(truth, 12);
  });
});
