/**
 * The harness of the alerts' rollup exactness tests (alerts-rollup-exact.test.ts,
 * alerts-rollup-arrival.test.ts): a database and a collector app per test file, projects at a clean
 * sampling rate, spans sent over real HTTP, and alert_minutes compared with a rebuild from the
 * project's stored rows. Times are fixed; session ids are chosen by their hash against the
 * project's rate (as the SDK decides).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sessionHash } from '@guardtrace/sdk';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { type Env, hex, jsonRequest, jsonSpan, setupApp, setupDatabase } from './helpers.ts';

const fixture = fileURLToPath(new URL('./fixtures/sampling-process.ts', import.meta.url));
const tsx = createRequire(import.meta.url).resolve('tsx');
export const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);
export const RATE = 0.25;

/** The file's database and collector (made before its tests, closed after), and what the tests do with them. */
export function rollupHarness() {
  let env: Env;
  let app: FastifyInstance;
  let url: string;
  let endpoint: string;

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
           (a.budget_exhausted IS NOT NULL)::int AS exhausted, 0 AS rejections_unfixed, 0 AS i, 0 AS o, 0 AS ci, 0 AS u
         FROM a JOIN sessions s ON s.project_id = a.project_id AND s.id = a.session_id
         UNION ALL
         SELECT date_trunc('minute', a.correction_started_at), a.tool, coalesce(a.failure_class, ''), '', 0, 0, 0, 0, 0, 1, 0, 0, 0, 0
         FROM a WHERE a.fixed IS FALSE AND a.correction_started_at IS NOT NULL
           AND (a.decision IN ('reject_with_feedback', 'replan') OR (a.decision IS NULL AND a.outcome IS DISTINCT FROM 'success'))
         UNION ALL
         SELECT date_trunc('minute', m.started_at), coalesce(r.tool, ''), coalesce(r.failure_class, m.repair_failure_class, ''),
           coalesce(m.model, ''), 0, 0, 0, 0, 0, 0, m.input_tokens, m.output_tokens, m.cached_input_tokens,
           greatest(m.input_tokens - m.cached_input_tokens, 0)
         FROM model_calls m
         LEFT JOIN LATERAL (SELECT a.tool, a.failure_class FROM a WHERE a.span_id = m.repair_attempt_span_id LIMIT 1) r ON true
         WHERE m.project_id = $1 AND (m.repair_attempt_span_id IS NOT NULL OR m.repair_failure_class IS NOT NULL)
       )
       SELECT to_char(minute AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI') || ' ' || tool || ' ' || cls || ' ' || model AS k,
         sum(attempts) AS attempts, sum(weighted_attempts) AS weighted_attempts, sum(failed_attempts) AS failed_attempts,
         sum(escalations) AS escalations, sum(exhausted) AS exhausted, sum(rejections_unfixed) AS rejections_unfixed,
         sum(i) AS repair_input_tokens, sum(o) AS repair_output_tokens, sum(ci) AS repair_cached_input_tokens,
         sum(u) AS repair_uncached_input_tokens
       FROM parts GROUP BY 1`,
      [projectId],
    );
    return byKey(rows);
  }

  /** The rollup equals its rebuild. */
  async function expectExact(projectId: string, step: string): Promise<void> {
    const built = await rebuild(projectId);
    expect(Object.keys(built).length, `${step}: the rebuild has rows`).toBeGreaterThan(0);
    expect(await rollup(projectId), step).toEqual(built);
  }

  return {
    /** The file's database (set once its tests run). */
    get env(): Env {
      return env;
    },
    send,
    project,
    runProcess,
    expectExact,
  };
}

/** A session id (with `prefix`) that the project's rate keeps (`kept`) or drops when clean. */
export function sessionId(prefix: string, kept: boolean): string {
  for (let i = 0; ; i++) {
    const id = `${prefix}-${hex(3)}-${i}`;
    if (sessionHash(id) < RATE === kept) return id;
  }
}

/** The weight a process writes on its part's root: the SDK's rule (a failure keeps it whole). */
export const weightOf = (id: string, clean: boolean) => (!clean ? 1 : sessionHash(id) < RATE ? 1 / RATE : 0);

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
  'repair_uncached_input_tokens',
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

/** The root of one process's part of a session, with that process's sampling verdict. */
export const rootSpan = (traceId: string, spanId: string, conv: string | null, startMs: number, weight: number, outcome = 'success') =>
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
export function toolCall(traceId: string, parent: string, conv: string | null, startMs: number, tool: string, outcomes: string[]) {
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
