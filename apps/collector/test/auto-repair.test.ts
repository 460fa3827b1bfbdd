/**
 * Repairs done in code (SDK auto-repair), through the real SDK, its OTLP exporter and the real
 * collector: the repaired attempt is stored with decision `auto_repair`, what was corrected, the
 * pointers into the corrected call's arguments and the tool used instead; its guard check keeps
 * the "before" pointers; and the correction link names the same call's next attempt (fixed), with
 * no repair turn (no model call answered it).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Guardtrace } from '@guardtrace/sdk';
import { fileExists } from '@guardtrace/sdk/guards/files';
import { setupGuardtrace } from '@guardtrace/sdk/setup';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Env, setupApp, setupDatabase } from './helpers.ts';

let env: Env;
let app: FastifyInstance;
let endpoint: string;
const root = mkdtempSync(path.join(tmpdir(), 'gt-collector-autorepair-'));
writeFileSync(path.join(root, 'Button.tsx'), 'export {}\n');

beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env);
  endpoint = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

interface AttemptRow {
  tool: string;
  number: number;
  decision: string;
  outcome: string;
  failure_class: string | null;
  auto_repair_kind: string | null;
  auto_repair_pointers: string[] | null;
  auto_repair_tool: string | null;
  repair_span_id: string | null;
  correction_span_id: string | null;
  correction_attempt: number | null;
  fixed: boolean | null;
  call: string;
  before: string[] | null;
}

async function attemptsOf(sessionId: string): Promise<AttemptRow[]> {
  const { rows } = await env.sql.query<AttemptRow>(
    `SELECT a.tool_name AS tool, a.number, a.decision, a.outcome, a.failure_class, a.auto_repair_kind,
       a.auto_repair_pointers, a.auto_repair_tool, a.repair_span_id, a.correction_span_id, a.correction_attempt,
       a.fixed, a.tool_call_span_id AS call,
       (SELECT g.failed_pointers FROM guard_checks g WHERE g.project_id = a.project_id AND g.attempt_span_id = a.span_id
          AND g.verdict = 'fail' LIMIT 1) AS before
     FROM attempts a WHERE a.project_id = $1 AND a.session_id = $2
     ORDER BY a.tool_call_span_id, a.number`,
    [env.projectId, sessionId],
  );
  // Calls in the order the test made them: span start times have millisecond precision, so two
  // quick calls can tie; each call here is told apart by its first attempt's tool and decision.
  const calls = new Map<string, AttemptRow[]>();
  for (const r of rows) calls.set(r.call, [...(calls.get(r.call) ?? []), r]);
  const key = (c: AttemptRow[]) => CALL_ORDER.indexOf(`${c[0]?.tool} ${c[0]?.decision}`);
  return [...calls.values()].sort((a, b) => key(a) - key(b)).flat();
}

const CALL_ORDER = ['search_files auto_repair', 'search_codebase auto_repair', 'read_file auto_repair', 'search_files reject_with_feedback'];

describe('an auto-repaired attempt', () => {
  it('stores kind, before/after pointers and the substitute tool, linked to the next attempt of the same call', async () => {
    const otel = setupGuardtrace({ endpoint, apiKey: env.key, serviceName: 'autorepair', register: false, flushOnExit: false, shutdownTimeoutMillis: 30_000 });
    const gt = new Guardtrace({ tracer: otel.tracer });
    gt.tool({
      name: 'search_files',
      description: 'Search the files',
      schema: z.object({ query: z.string(), limit: z.number().int().optional() }),
      flags: { readOnly: true },
      execute: (a) => ({ hits: [`${a.query}.ts`] }),
    });
    gt.tool({
      name: 'read_file',
      description: 'Read a file',
      schema: z.object({ path: z.string() }),
      flags: { readOnly: true },
      guards: [fileExists<{ path: string }>({ root, paths: (a) => a.path })],
      execute: (a) => a.path,
    });
    const s = gt.session({ id: 'sess_autorepair_1', agentName: 'agent' });
    expect(await s.callTool('search_files', { query_text: 'Button', limit: 3 })).toMatchObject({ ok: true });
    expect(await s.callTool('search_codebase', { query: 'Button' })).toMatchObject({ ok: true, tool: 'search_files' });
    expect(await s.callTool('read_file', { path: 'Buton.tsx' })).toMatchObject({ ok: true });
    // A mistake with no sound correction: rejected, repaired by the model, corrected by it.
    const wrong = await s.callTool('search_files', { query: 42 });
    expect(wrong).toMatchObject({ ok: false, decision: 'reject_with_feedback' });
    if (!wrong.ok) s.recordModelCall({ model: 'gpt-test', provider: 'openai', inputTokens: 300, outputTokens: 20, repairs: wrong });
    expect(await s.callTool('search_files', { query: '42' })).toMatchObject({ ok: true });
    await s.end();
    await otel.shutdown();

    const rows = await attemptsOf('sess_autorepair_1');
    expect(rows.map((r) => [r.tool, r.number, r.decision, r.outcome])).toEqual([
      ['search_files', 1, 'auto_repair', 'rejected'],
      ['search_files', 2, 'proceed', 'success'],
      ['search_codebase', 1, 'auto_repair', 'rejected'],
      ['search_files', 2, 'proceed', 'success'],
      ['read_file', 1, 'auto_repair', 'rejected'],
      ['read_file', 2, 'proceed', 'success'],
      ['search_files', 1, 'reject_with_feedback', 'rejected'],
      ['search_files', 2, 'proceed', 'success'],
    ]);
    const [arg, , tool, , file] = rows as [AttemptRow, AttemptRow, AttemptRow, AttemptRow, AttemptRow];
    expect(arg).toMatchObject({ failure_class: 'invalid_arguments', auto_repair_kind: 'argument_name', auto_repair_pointers: ['/query'], auto_repair_tool: null, before: ['/query', '/query_text'] });
    expect(tool).toMatchObject({ failure_class: 'unknown_tool', auto_repair_kind: 'tool_name', auto_repair_pointers: null, auto_repair_tool: 'search_files' });
    expect(file).toMatchObject({ failure_class: 'missing_resource', auto_repair_kind: 'path', auto_repair_pointers: ['/path'], auto_repair_tool: null, before: ['/path'] });
    // Corrected by the same call's next attempt, in code: no repair turn.
    for (const r of [arg, tool, file]) expect(r).toMatchObject({ repair_span_id: null, correction_span_id: r.call, correction_attempt: 2, fixed: true });
    // (Attempts of one call, ordered by their spans' nanosecond starts: derived rows keep milliseconds.)
    // The corrected attempts are not repairs themselves.
    for (const r of rows.filter((x) => x.decision === 'proceed')) expect(r).toMatchObject({ auto_repair_kind: null, auto_repair_pointers: null, auto_repair_tool: null });
    // The model's repair is linked to its repair turn; a repair in code to none.
    expect(rows[6]?.repair_span_id).not.toBeNull();

    // Analytics: repairs in code per class beside the rejections the model repaired, and the repair
    // turns (the model's one: 300 + 20 tokens) that measure what a repair turn costs.
    const { rows: parts } = await env.sql.query(
      `SELECT failure_class AS cls, sum(repairs_in_code)::int AS in_code, sum(rejections)::int AS by_model,
         sum(repair_turns)::float8 AS turns, sum(failed_tokens)::float8 AS tokens
       FROM analytics_session_parts WHERE project_id = $1 AND session_id = $2 AND failure_class <> '' GROUP BY 1 ORDER BY 1`,
      [env.projectId, 'sess_autorepair_1'],
    );
    expect(parts).toEqual([
      { cls: 'invalid_arguments', in_code: 1, by_model: 1, turns: 1, tokens: 320 },
      { cls: 'missing_resource', in_code: 1, by_model: 0, turns: 0, tokens: 0 },
      { cls: 'unknown_tool', in_code: 1, by_model: 0, turns: 0, tokens: 0 },
    ]);
  });
});
