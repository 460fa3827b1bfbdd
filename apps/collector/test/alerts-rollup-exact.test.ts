/**
 * The alerts' per-minute rollup (alert_minutes) is kept per write batch by adding each batch's new
 * rows; these tests check it stays what a rebuild from the stored attempts and repair turns would
 * give after the paths that change stored rows without being new: a session's weight decided by a
 * later batch, a trace stored before its conversation id was known and then moved into its
 * session (re-keyed: the writer recomputes both sessions whole), held sessions the sampling sweep
 * deletes, and sessions retention deletes. Real HTTP, real Postgres; times are fixed, session ids
 * chosen by their hash against the project's clean sampling rate (as the SDK decides).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyRetention } from '@guardtrace/db/server';
import { sessionHash } from '@guardtrace/sdk';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepHeldSessions } from '../src/sampling-sweep.ts';
import { failingSession } from './alerts-support.ts';
import { type Env, hex, jsonRequest, jsonSpan, setupApp, setupDatabase } from './helpers.ts';

let env: Env;
let app: FastifyInstance;
let url: string;
let endpoint: string;
const fixture = fileURLToPath(new URL('./fixtures/sampling-process.ts', import.meta.url));
const tsx = createRequire(import.meta.url).resolve('tsx');
const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);
const RATE = 0.25;

beforeAll(async () => {
  env = await setupDatabase({ partitions: new Date('2026-11-20T00:00:00Z') });
  // The sweep's timer is off: the tests run it.
  app = await setupApp(env, { samplingDecisionWaitMs: 0 });
  endpoint = await app.listen({ port: 0, host: '127.0.0.1' });
  url = `${endpoint}/v1/traces`;
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

async function send(key: string, spans: Record<string, unknown>[], service = 'agent'): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(jsonRequest(spans, service)),
  });
  expect(res.status, await res.text()).toBe(200);
}

/** A project whose clean sessions are kept at RATE, and its key. */
async function project(): Promise<{ projectId: string; key: string }> {
  const projectId = await env.newProject();
  await env.sql.query('UPDATE projects SET clean_sample_rate = $1 WHERE id = $2', [RATE, projectId]);
  return { projectId, key: (await env.newKey(projectId)).key };
}

/** A session id (with `prefix`) that the project's rate keeps (`kept`) or drops when clean. */
function sessionId(prefix: string, kept: boolean): string {
  for (let i = 0; ; i++) {
    const id = `${prefix}-${hex(3)}-${i}`;
    if (sessionHash(id) < RATE === kept) return id;
  }
}

/** The weight a process writes on its part's root: the SDK's rule (a failure keeps it whole). */
const weightOf = (id: string, clean: boolean) => (!clean ? 1 : sessionHash(id) < RATE ? 1 / RATE : 0);

/** One process of a multi-process agent using the real SDK (its cross-process sampling at the project's rate, fetched from the collector) over `plan`. */
function runProcess(key: string, service: string, plan: { id: string; fail: boolean }[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', tsx, fixture, endpoint, key, service, JSON.stringify(plan)], {
      cwd: path.dirname(fixture),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += String(d);
    });
    child.stderr.on('data', (d) => {
      out += String(d);
    });
    child.once('exit', (code) => (code === 0 && out.includes(`${service} done`) ? resolve() : reject(new Error(`${service} exited ${code}: ${out}`))));
  });
}

type Row = Record<string, number>;
const COLUMNS = [
  'attempts',
  'weighted_attempts',
  'failed_attempts',
  'escalations',
  'exhausted',
  'rejections_unfixed',
  'repair_input_tokens',
  'repair_output_tokens',
  'repair_cached_input_tokens',
] as const;

function byKey(rows: (Row & { k: string })[]): Record<string, Row> {
  const out: Record<string, Row> = {};
  for (const r of rows) {
    const v: Row = {};
    for (const c of COLUMNS) v[c] = Math.round(Number(r[c]) * 1e6) / 1e6;
    // A key whose counts are all back to 0 holds nothing a rebuild would have.
    if (COLUMNS.some((c) => v[c] !== 0)) out[r.k] = v;
  }
  return out;
}

/** alert_minutes of a project, by key. */
async function rollup(projectId: string): Promise<Record<string, Row>> {
  const { rows } = await env.sql.query(
    `SELECT to_char(minute AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI') || ' ' || tool_name || ' ' || failure_class || ' ' || model AS k, ${COLUMNS.join(', ')}
     FROM alert_minutes WHERE project_id = $1`,
    [projectId],
  );
  return byKey(rows);
}

/**
 * What alert_minutes would hold, rebuilt from the project's stored rows alone: every attempt at its
 * session's weight now (under its tool, or its tool call's), the rejections whose linked correction
 * failed at that correction's minute, every repair turn under the tool and class of the attempt it
 * answers (else its own class).
 */
async function rebuild(projectId: string): Promise<Record<string, Row>> {
  const { rows } = await env.sql.query(
    `WITH a AS (
       SELECT x.*, coalesce(x.tool_name, (SELECT c.tool_name FROM tool_calls c
         WHERE c.project_id = x.project_id AND c.trace_id = x.trace_id AND c.span_id = x.tool_call_span_id LIMIT 1), '') AS tool
       FROM attempts x WHERE x.project_id = $1
     ),
     parts AS (
       SELECT date_trunc('minute', a.started_at) AS minute, a.tool, coalesce(a.failure_class, '') AS cls, '' AS model,
         1 AS attempts, s.sampling_weight AS weighted_attempts, (a.outcome IS DISTINCT FROM 'success')::int AS failed_attempts,
         (a.outcome IS DISTINCT FROM 'success' AND a.decision IN ('escalate_human', 'fail_reconcile', 'abort'))::int AS escalations,
         (a.budget_exhausted IS NOT NULL)::int AS exhausted, 0 AS rejections_unfixed, 0 AS i, 0 AS o, 0 AS ci
       FROM a JOIN sessions s ON s.project_id = a.project_id AND s.id = a.session_id
       UNION ALL
       SELECT date_trunc('minute', a.correction_started_at), a.tool, coalesce(a.failure_class, ''), '', 0, 0, 0, 0, 0, 1, 0, 0, 0
       FROM a WHERE a.fixed IS FALSE AND a.correction_started_at IS NOT NULL
         AND (a.decision IN ('reject_with_feedback', 'replan') OR (a.decision IS NULL AND a.outcome IS DISTINCT FROM 'success'))
       UNION ALL
       SELECT date_trunc('minute', m.started_at), coalesce(r.tool, ''), coalesce(r.failure_class, m.repair_failure_class, ''),
         coalesce(m.model, ''), 0, 0, 0, 0, 0, 0, m.input_tokens, m.output_tokens, m.cached_input_tokens
       FROM model_calls m
       LEFT JOIN LATERAL (SELECT a.tool, a.failure_class FROM a WHERE a.span_id = m.repair_attempt_span_id LIMIT 1) r ON true
       WHERE m.project_id = $1 AND (m.repair_attempt_span_id IS NOT NULL OR m.repair_failure_class IS NOT NULL)
     )
     SELECT to_char(minute AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI') || ' ' || tool || ' ' || cls || ' ' || model AS k,
       sum(attempts) AS attempts, sum(weighted_attempts) AS weighted_attempts, sum(failed_attempts) AS failed_attempts,
       sum(escalations) AS escalations, sum(exhausted) AS exhausted, sum(rejections_unfixed) AS rejections_unfixed,
       sum(i) AS repair_input_tokens, sum(o) AS repair_output_tokens, sum(ci) AS repair_cached_input_tokens
     FROM parts GROUP BY 1`,
    [projectId],
  );
  return byKey(rows);
}

/** The rollup equals its rebuild, and every example session it names is still stored. */
async function expectExact(projectId: string, step: string): Promise<void> {
  const built = await rebuild(projectId);
  expect(Object.keys(built).length, `${step}: the rebuild has rows`).toBeGreaterThan(0);
  expect(await rollup(projectId), step).toEqual(built);
  const { rows } = await env.sql.query<{ id: string }>(
    `SELECT DISTINCT a.worst_session_id AS id FROM alert_minutes a WHERE a.project_id = $1 AND a.worst_session_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.project_id = a.project_id AND s.id = a.worst_session_id)`,
    [projectId],
  );
  expect(rows, `${step}: example sessions that are not stored`).toEqual([]);
}

/** The root of one process's part of a session, with that process's sampling verdict. */
const rootSpan = (traceId: string, spanId: string, conv: string | null, startMs: number, weight: number, outcome = 'success') =>
  jsonSpan({
    traceId,
    spanId,
    name: 'invoke_agent agent',
    startMs,
    durMs: 40_000,
    attrs: {
      ...(conv ? { 'gen_ai.conversation.id': conv } : {}),
      'gen_ai.operation.name': 'invoke_agent',
      'guardtrace.session.outcome': outcome,
      'guardtrace.sampling.weight': weight,
    },
  });

/** A tool call of `tool` under `parent` with one attempt per outcome ('success', or a failure class), 100 ms apart. */
function toolCall(traceId: string, parent: string, conv: string | null, startMs: number, tool: string, outcomes: string[]) {
  const c: Record<string, string> = conv ? { 'gen_ai.conversation.id': conv } : {};
  const call = hex(8);
  const last = outcomes[outcomes.length - 1];
  const spans = [
    jsonSpan({
      traceId,
      spanId: call,
      parentSpanId: parent,
      name: `execute_tool ${tool}`,
      startMs,
      durMs: 100 * outcomes.length + 50,
      attrs: { ...c, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool, 'guardtrace.outcome': last === 'success' ? 'success' : 'failed' },
    }),
  ];
  outcomes.forEach((o, i) => {
    spans.push(
      jsonSpan({
        traceId,
        parentSpanId: call,
        name: 'guardtrace.attempt',
        startMs: startMs + 10 + 100 * i,
        attrs: {
          ...c,
          'gen_ai.operation.name': 'guardtrace.attempt',
          'guardtrace.attempt': i + 1,
          ...(o === 'success'
            ? { 'guardtrace.outcome': 'success', 'guardtrace.decision': 'proceed' }
            : { 'guardtrace.outcome': 'failed', 'guardtrace.failure.class': o, 'guardtrace.decision': i + 1 < outcomes.length ? 'retry_backoff' : 'escalate_human' }),
        },
      }),
    );
  });
  return spans;
}

describe('alert_minutes equals its rebuild from the stored rows', () => {
  it("after a later batch changes a session's weight: its root brings it, or a failure keeps it whole", async () => {
    const p = await project();
    const start = T0;
    // A clean session the rate keeps (weight 4): its calls first, its root a batch later.
    const kept = sessionId('kept', true);
    const kt = hex(16);
    const kr = hex(8);
    await send(p.key, [...toolCall(kt, kr, kept, start + 100, 'search', ['success']), ...toolCall(kt, kr, kept, start + 400, 'search', ['success'])]);
    await expectExact(p.projectId, 'attempts before their root');
    await send(p.key, [rootSpan(kt, kr, kept, start, weightOf(kept, true))]);
    await expectExact(p.projectId, 'the root brings weight 4');
    // Another session kept at 4 by its first process, which a later batch sees fail: weight 1.
    const later = sessionId('later', true);
    const lt = hex(16);
    const lr = hex(8);
    await send(p.key, [rootSpan(lt, lr, later, start + 1_000, weightOf(later, true)), ...toolCall(lt, lr, later, start + 1_100, 'search', ['success'])]);
    await send(p.key, toolCall(hex(16), hex(8), later, start + 2_000, 'search', ['transient', 'success']), 'tool-service');
    await expectExact(p.projectId, 'a later failure keeps the session whole');
    // And a failing session beside them, with a repair turn.
    await send(p.key, failingSession({ startMs: start + 3_000, tool: 'search', failures: [{ cls: 'transient', repair: { model: 'gpt-4.1', input: 900, output: 50 } }] }).spans);
    await expectExact(p.projectId, 'a failing session beside them');
  });

  it('after traces stored before their conversation id was known are moved into their session', async () => {
    const p = await project();
    const start = T0 + 10 * 60_000;
    // The session as its agent's process sends it: one failure, so weight 1.
    const conv = sessionId('moved', true);
    const at = hex(16);
    const ar = hex(8);
    await send(p.key, [rootSpan(at, ar, conv, start, 1, 'failed'), ...toolCall(at, ar, conv, start + 100, 'search', ['transient', 'success'])]);
    // A tool service's part of it, clean, whose spans carry no conversation id yet: stored under its
    // trace id, with that process's verdict for a clean session (kept at 4).
    const bt = hex(16);
    const br = hex(8);
    await send(p.key, [rootSpan(bt, br, null, start + 1_000, weightOf(conv, true)), ...toolCall(bt, br, null, start + 1_100, 'fetch', ['success', 'success'])], 'tool-service');
    // Another part with a failure of its own, also without the conversation id yet.
    const ct = hex(16);
    const cr = hex(8);
    await send(p.key, [rootSpan(ct, cr, null, start + 2_000, 1, 'failed'), ...toolCall(ct, cr, null, start + 2_100, 'fetch', ['timeout', 'timeout'])], 'tool-service');
    // And a clean session's only part, whose conversation id comes last too (kept at 4 by the rate).
    const other = sessionId('moved', true);
    const dt = hex(16);
    const dr = hex(8);
    await send(p.key, [rootSpan(dt, dr, null, start + 5_000, weightOf(other, true)), ...toolCall(dt, dr, null, start + 5_100, 'search', ['success'])]);
    await expectExact(p.projectId, 'parts stored under their trace ids');
    // Their last spans name the conversation: the first two traces move into the session, the last
    // into a session of its own not stored before.
    await send(p.key, toolCall(bt, br, conv, start + 3_000, 'fetch', ['success']), 'tool-service');
    await send(p.key, toolCall(ct, cr, conv, start + 4_000, 'fetch', ['success']), 'tool-service');
    await send(p.key, toolCall(dt, dr, other, start + 6_000, 'search', ['success']));
    const { rows } = await env.sql.query<{ id: string; w: number }>('SELECT id, sampling_weight AS w FROM sessions WHERE project_id = $1 ORDER BY id', [
      p.projectId,
    ]);
    expect(rows).toEqual(
      [
        { id: conv, w: 1 },
        { id: other, w: 4 },
      ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
    await expectExact(p.projectId, 'parts moved into their session');
  });

  it('after the sampling sweep deletes the sessions every process would drop', async () => {
    const p = await project();
    const start = T0 + 20 * 60_000;
    const dropped = [sessionId('drop', false), sessionId('drop', false), sessionId('drop', false)];
    const keptId = sessionId('keep', true);
    const saved = sessionId('saved', false);
    // Clean sessions, each in two processes: the agent's part and a tool service's, both with the
    // verdict of the project's rate (0 for the dropped ones, 4 for the kept one).
    for (const [i, id] of [...dropped, keptId, saved].entries()) {
      const t = hex(16);
      const r = hex(8);
      await send(p.key, [rootSpan(t, r, id, start + i * 1_000, weightOf(id, true)), ...toolCall(t, r, id, start + i * 1_000 + 100, 'search', ['success', 'success'])]);
      const u = hex(16);
      const v = hex(8);
      // The tool service sees `saved` fail: that session is kept whole (weight 1).
      const failed = id === saved;
      await send(
        p.key,
        [rootSpan(u, v, id, start + i * 1_000 + 200, weightOf(id, !failed), failed ? 'failed' : 'success'), ...toolCall(u, v, id, start + i * 1_000 + 300, 'fetch', failed ? ['transient', 'success'] : ['success'])],
        'tool-service',
      );
    }
    await expectExact(p.projectId, 'held sessions stored at weight 0');
    expect(await sweepHeldSessions(env.sql, { decisionWaitMs: 0 })).toBe(dropped.length);
    const { rows } = await env.sql.query<{ id: string }>('SELECT id FROM sessions WHERE project_id = $1 ORDER BY id', [p.projectId]);
    expect(rows.map((r) => r.id)).toEqual([keptId, saved].sort());
    await expectExact(p.projectId, 'held sessions swept');
  });

  it("after the real SDK's processes send their parts at the project's rate and the sweep deletes the dropped sessions", async () => {
    const p = await project();
    const kept = [sessionId('sdk-kept', true), sessionId('sdk-kept', true)];
    const dropped = [sessionId('sdk-drop', false), sessionId('sdk-drop', false), sessionId('sdk-drop', false)];
    // A session the agent would drop but the tool service sees fail, and one the rate keeps that fails too.
    const saved = [sessionId('sdk-saved', false), sessionId('sdk-saved', true)];
    const all = [...kept, ...dropped, ...saved];
    await runProcess(p.key, 'agent', all.map((id) => ({ id, fail: false })));
    await expectExact(p.projectId, "the agent's parts");
    await runProcess(p.key, 'tool-service', all.map((id) => ({ id, fail: saved.includes(id) })));
    await expectExact(p.projectId, "the tool service's parts");
    expect(await sweepHeldSessions(env.sql, { decisionWaitMs: 0 })).toBe(dropped.length);
    const { rows } = await env.sql.query<{ id: string; w: number }>('SELECT id, sampling_weight AS w FROM sessions WHERE project_id = $1 ORDER BY id', [p.projectId]);
    expect(rows).toEqual([...kept.map((id) => ({ id, w: 1 / RATE })), ...saved.map((id) => ({ id, w: 1 }))].sort((a, b) => (a.id < b.id ? -1 : 1)));
    await expectExact(p.projectId, 'dropped sessions swept');
  }, 120_000);

  it('after retention deletes the sessions past it', async () => {
    const p = await project();
    await env.sql.query('UPDATE projects SET retention_days = 1 WHERE id = $1', [p.projectId]);
    const old = T0 + 30 * 60_000;
    const recent = old + 13 * 3_600_000;
    // Failing sessions in the same minutes, then one 13 hours later (past midnight UTC).
    for (const startMs of [old, old + 1_000, recent]) {
      await send(
        p.key,
        failingSession({ startMs, tool: 'search', failures: [{ cls: 'transient', repair: { model: 'gpt-4.1', input: 700, output: 30 } }, { cls: 'transient', decision: 'escalate_human' }] }).spans,
      );
    }
    const kept = sessionId('kept', true);
    const t = hex(16);
    const r = hex(8);
    await send(p.key, [rootSpan(t, r, kept, recent + 5_000, weightOf(kept, true)), ...toolCall(t, r, kept, recent + 5_100, 'search', ['success'])]);
    await expectExact(p.projectId, 'before retention');
    // A day after the first ones ended (plus 12 hours): they go, the later ones stay.
    const report = await applyRetention(env.db.url, { now: new Date(old + 36 * 3_600_000) });
    expect(report.deletedSessions).toBeGreaterThanOrEqual(2);
    const { rows } = await env.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions WHERE project_id = $1', [p.projectId]);
    expect(rows[0]?.n).toBe(2);
    await expectExact(p.projectId, 'after retention');
  });

  it('after repair turns stored before the attempts they answer', async () => {
    const p = await project();
    const start = T0 + 40 * 60_000;
    // Two failures of one call, each answered by a repair turn; the second turn names its class
    // itself (as the SDK's do). Each turn reaches the collector before its attempt (a model span
    // exported first: another process, a retried export).
    const s = failingSession({
      startMs: start,
      tool: 'search',
      failures: [
        { cls: 'invalid_arguments', repair: { model: 'gpt-4.1', input: 900, output: 50 } },
        { cls: 'invalid_arguments', repair: { model: 'gpt-4.1-mini', input: 400, output: 20 } },
      ],
    });
    const isTurn = (span: Record<string, unknown>) => String(span.name).startsWith('chat ');
    const turns = s.spans.filter(isTurn);
    const second = turns[1] as { attributes: object[] };
    second.attributes.push({ key: 'guardtrace.repair.failure_class', value: { stringValue: 'invalid_arguments' } });
    await send(p.key, turns);
    await expectExact(p.projectId, 'the repair turns alone');
    const rest = s.spans.filter((span) => !isTurn(span));
    await send(p.key, rest.slice(0, 3));
    await expectExact(p.projectId, 'the first attempt arrives');
    await send(p.key, rest.slice(3));
    await expectExact(p.projectId, 'the rest arrives');
    // Re-sent, nothing moves again.
    await send(p.key, s.spans);
    await expectExact(p.projectId, 'the whole session re-sent');
  });

  it('after attempts that name no tool are stored before the tool call that names it', async () => {
    const p = await project();
    const start = T0 + 50 * 60_000;
    // Two rejections a minute apart, each answered by a repair turn; the first one's correction (the
    // second attempt) fails, so it counts as unfixed at the second's minute. The attempt spans name
    // no tool: the execute_tool span, which ends after them, does.
    const s = failingSession({
      startMs: start,
      tool: 'search',
      gapMs: 61_000,
      failures: [
        { cls: 'invalid_arguments', repair: { model: 'gpt-4.1', input: 900, output: 50 } },
        { cls: 'invalid_arguments', repair: { model: 'gpt-4.1-mini', input: 400, output: 20 } },
      ],
    });
    const [root, call, ...rest] = s.spans as Record<string, unknown>[];
    await send(p.key, rest.slice(0, 2));
    await expectExact(p.projectId, 'the first attempt and its repair turn');
    await send(p.key, rest.slice(2));
    await expectExact(p.projectId, 'the other attempts: the first rejection is unfixed');
    await send(p.key, [root, call] as Record<string, unknown>[]);
    await expectExact(p.projectId, 'the tool call arrives');
    await send(p.key, s.spans);
    await expectExact(p.projectId, 'the whole session re-sent');
    // A clean session the rate keeps: its attempts counted at weight 1 under no tool, then its call
    // and its root (weight 4) in one batch: under the call's tool, at 4.
    const kept = sessionId('kept', true);
    const t = hex(16);
    const r = hex(8);
    const [keptCall, ...keptAttempts] = toolCall(t, r, kept, start + 200_000, 'search', ['success']);
    await send(p.key, keptAttempts);
    await expectExact(p.projectId, 'a kept session: its attempts alone');
    await send(p.key, [keptCall as Record<string, unknown>, rootSpan(t, r, kept, start + 199_000, weightOf(kept, true))]);
    await expectExact(p.projectId, 'a kept session: its call and its root');
  });
});
