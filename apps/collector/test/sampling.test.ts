/**
 * Sampling across processes: two real processes (child processes using the SDK with its OTLP
 * exporter and cross-process sampling, the project's rate read from GET /v1/sampling) export
 * their parts of the same sessions to one collector on a real Postgres. Session ids are chosen
 * by their hash, so which clean sessions the rate keeps is known in advance: no statistics.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sessionHash } from '@guardtrace/sdk';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepHeldSessions } from '../src/sampling-sweep.ts';
import { type Env, hex, jsonRequest, jsonSpan, setupApp, setupDatabase } from './helpers.ts';

const RATE = 0.25;
const fixture = fileURLToPath(new URL('./fixtures/sampling-process.ts', import.meta.url));
const tsx = createRequire(import.meta.url).resolve('tsx');

let env: Env;
let app: FastifyInstance;
let endpoint: string;

beforeAll(async () => {
  env = await setupDatabase();
  await env.sql.query('UPDATE projects SET clean_sample_rate = $1 WHERE id = $2', [RATE, env.projectId]);
  // The sweep's timer is off: the test runs it when it wants.
  app = await setupApp(env, { samplingDecisionWaitMs: 0 });
  endpoint = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

/** `n` session ids (with `prefix`) whose hash is below the rate (`kept`) or not. */
function ids(prefix: string, n: number, kept: boolean): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const id = `${prefix}-${i}`;
    if (sessionHash(id) < RATE === kept) out.push(id);
  }
  return out;
}

/** Runs one process of the agent over `plan`; resolves when it has exported and exited. */
function runProcess(service: string, plan: { id: string; fail: boolean }[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', tsx, fixture, endpoint, env.key, service, JSON.stringify(plan)], {
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

interface SessionRow {
  id: string;
  sampling_weight: number;
  span_count: number;
  services: string[];
}

async function stored(prefix: string): Promise<Map<string, SessionRow>> {
  const { rows } = await env.sql.query<SessionRow>(
    `SELECT s.id, s.sampling_weight, s.span_count,
       (SELECT array_agg(DISTINCT sp.service_name ORDER BY sp.service_name) FROM spans sp
         WHERE sp.project_id = s.project_id AND sp.session_id = s.id) AS services
     FROM sessions s WHERE s.project_id = $1 AND s.id LIKE $2`,
    [env.projectId, `${prefix}%`],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

async function leftovers(sessionIds: string[]): Promise<number> {
  let n = 0;
  // The analytics rollups' per-session shares too: a swept session counts nowhere.
  for (const table of ['spans', 'tool_calls', 'attempts', 'guard_checks', 'model_calls', 'analytics_session_parts', 'analytics_session_costs']) {
    const { rows } = await env.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1 AND session_id = ANY($2)`, [
      env.projectId,
      sessionIds,
    ]);
    n += rows[0]?.n ?? 0;
  }
  const { rows } = await env.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM traces WHERE project_id = $1 AND session_id = ANY($2)', [
    env.projectId,
    sessionIds,
  ]);
  return n + (rows[0]?.n ?? 0);
}

describe('sampling across processes', () => {
  it('keeps or drops each session whole in both processes, keeps one a later process saw fail, and weights counts right', async () => {
    // 8 clean sessions, of which exactly RATE x 8 = 2 hash below the rate: the weighted count
    // of clean sessions (2 x 1/RATE) equals the true count, as it does in expectation.
    const cleanKept = ids('clean', 2, true);
    const cleanDropped = ids('clean', 6, false);
    // Sessions only process B (a tool service, exporting after the agent) sees fail: on both
    // sides of the rate.
    const failDropHash = ids('fail', 2, false);
    const failKeepHash = ids('fail', 1, true);
    const all = [...cleanKept, ...cleanDropped, ...failDropHash, ...failKeepHash];
    const failing = new Set([...failDropHash, ...failKeepHash]);

    // The agent first, then the tool service: its failure reaches the collector later.
    await runProcess('agent', all.map((id) => ({ id, fail: false })));
    await runProcess('tool-service', all.map((id) => ({ id, fail: failing.has(id) })));

    const before = await stored('');
    // Held, not yet deleted: every session is stored, those every process would drop at weight 0.
    expect([...before.keys()].sort()).toEqual([...all].sort());
    for (const id of cleanDropped) expect(before.get(id)?.sampling_weight).toBe(0);
    // A sweep whose wait is not over deletes nothing.
    expect(await sweepHeldSessions(env.sql, { decisionWaitMs: 60_000 })).toBe(0);
    expect(await sweepHeldSessions(env.sql, { decisionWaitMs: 0 })).toBe(cleanDropped.length);

    const after = await stored('');
    expect([...after.keys()].sort()).toEqual([...cleanKept, ...failDropHash, ...failKeepHash].sort());
    for (const id of after.keys()) {
      const s = after.get(id) as SessionRow;
      // Whole: both processes' spans (each: root, tool call, attempt, its guard checks).
      expect(s.services).toEqual(['agent', 'tool-service']);
      expect(s.sampling_weight).toBe(failing.has(id) ? 1 : 1 / RATE);
    }
    expect(await leftovers(cleanDropped)).toBe(0);
    // Their share of the analytics rollups went with them: the cost histogram and the daily rows
    // count the stored sessions only (every session here has its attempts under one key).
    const counted = await env.sql.query<{ costs: number; daily: number }>(
      `SELECT (SELECT coalesce(sum(sessions), 0)::int FROM analytics_cost_daily WHERE project_id = $1) AS costs,
         (SELECT coalesce(max(sessions), 0)::int FROM analytics_daily WHERE project_id = $1) AS daily`,
      [env.projectId],
    );
    expect(counted.rows[0]).toEqual({ costs: after.size, daily: after.size });
    // Weighted counts equal the true counts: clean 2 x 4 = 8, failed 3 x 1 = 3.
    const weighted = (set: string[]) => set.reduce((sum, id) => sum + (after.get(id)?.sampling_weight ?? 0), 0);
    expect(weighted([...cleanKept, ...cleanDropped])).toBe(cleanKept.length + cleanDropped.length);
    expect(weighted([...failDropHash, ...failKeepHash])).toBe(failing.size);
  }, 120_000);

  it('refuses a weight that is no weight with its span alone: a negative one never reads as "drop" (swept), a huge one never scales the session', async () => {
    const send = async (weight: number) => {
      const sessionId = `bad-weight-${hex(4)}`;
      const traceId = hex(16);
      const root = jsonSpan({ traceId, name: 'invoke_agent', attrs: { 'gen_ai.conversation.id': sessionId, 'guardtrace.sampling.weight': weight } });
      const turn = jsonSpan({ traceId, parentSpanId: root.spanId as string, name: 'chat', attrs: { 'gen_ai.conversation.id': sessionId, 'gen_ai.operation.name': 'chat' } });
      const res = await fetch(`${endpoint}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${env.key}` },
        body: JSON.stringify(jsonRequest([root, turn])),
      });
      expect(res.status).toBe(200);
      const out = (await res.json()) as { partialSuccess?: { rejectedSpans: string; errorMessage: string } };
      return { sessionId, out };
    };
    const negative = await send(-5);
    const huge = await send(1e9);
    for (const { out } of [negative, huge]) {
      expect(out.partialSuccess?.rejectedSpans).toBe('1');
      expect(out.partialSuccess?.errorMessage).toContain('attributes["guardtrace.sampling.weight"] is');
      expect(out.partialSuccess?.errorMessage).toContain('a sampling weight is a number, 0 (the session is dropped) or 1/rate from 1 to 1000000');
    }
    // The sweep deletes sessions held at weight 0 once their decision wait is over (0 here).
    await sweepHeldSessions(env.sql, { decisionWaitMs: 0 });
    const { rows } = await env.sql.query<{ id: string; sampling_weight: number; span_count: number }>(
      'SELECT id, sampling_weight, span_count FROM sessions WHERE project_id = $1 AND id = ANY($2) ORDER BY id',
      [env.projectId, [negative.sessionId, huge.sessionId]],
    );
    expect(rows.map((r) => [r.id, r.sampling_weight, r.span_count]).sort()).toEqual([[huge.sessionId, 1, 1], [negative.sessionId, 1, 1]].sort());
  });
});
