/**
 * `POST /v1/datasets/{id}/runs` over raw HTTP against a listening collector and a real Postgres:
 * a run report is stored as a run and its changed attempts, answered 201 with the run's web
 * path; a bad report is a 400 naming the bad field's path and stores nothing; a dataset of
 * another project is a 404 like an unknown one; no key is a 401.
 */
import { randomUUID } from 'node:crypto';
import { REPLAY_RUN_FORMAT, type ReplayResult, type ReplayRunReport } from '@guardtrace/semconv';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Env, setupApp, setupDatabase } from './helpers.ts';

let env: Env;
let app: Awaited<ReturnType<typeof setupApp>>;
let base: string;
beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env);
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

async function newDataset(projectId: string): Promise<string> {
  const id = randomUUID();
  await env.sql.query(
    `INSERT INTO datasets (id, project_id, name, source_kind, source, item_count, created_at)
     VALUES ($1, $2, $3, 'query', 'tool:read_file', 0, '2026-12-01T10:00:00Z')`,
    [id, projectId, `ds-${id.slice(0, 8)}`],
  );
  return id;
}

function result(n: number, change: ReplayResult['change']): ReplayResult {
  return {
    itemId: `trace${n}:span${n}`,
    attempt: 1,
    tool: 'read_file',
    sessionId: `s-${n}`,
    stepPath: `/sessions/s-${n}?project=p&call=span${n}`,
    change,
    arguments: { path: `docs/${n}.md` },
    recorded: { allowed: true, decision: 'proceed', failureClass: null, feedback: null, checks: [] },
    now: {
      allowed: false,
      decision: 'reject_with_feedback',
      failureClass: 'guard_violation',
      feedback: `Path "docs/${n}.md" is outside the allowed folders (src).`,
      checks: [{ guard: 'insideWorkspace', stage: 'logical', verdict: 'fail', reason: 'outside', failureClass: 'guard_violation', pointers: ['/path'] }],
    },
    definition: { recordedHash: '0123456789abcdef', currentHash: 'fedcba9876543210', changes: ['guard insideWorkspace: option roots changed ["src","docs"] → ["src"]'] },
  };
}

function report(datasetId: string | null, results: ReplayResult[]): ReplayRunReport {
  return {
    format: REPLAY_RUN_FORMAT,
    datasetId,
    label: 'drop docs/',
    startedAt: '2026-12-02T09:00:00.000Z',
    finishedAt: '2026-12-02T09:00:03.500Z',
    options: { execute: 'none', failOn: ['newly_rejected'] },
    summary: {
      calls: results.length + 10,
      attempts: results.length + 12,
      unchanged: 12,
      newly_rejected: results.filter((r) => r.change === 'newly_rejected').length,
      newly_allowed: results.filter((r) => r.change === 'newly_allowed').length,
      class_changed: 0,
      feedback_changed: 0,
      not_replayed: 0,
    },
    results,
  };
}

const post = (datasetId: string, body: unknown, key: string | null = env.key, type = 'application/json') =>
  fetch(`${base}/v1/datasets/${datasetId}/runs`, {
    method: 'POST',
    headers: { 'content-type': type, ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

it('stores a run and its changed attempts, and answers with the run page', async () => {
  const datasetId = await newDataset(env.projectId);
  // More results than one INSERT takes, so the chunks are joined in order.
  const results = Array.from({ length: 1_203 }, (_, i) => result(i, i % 3 === 0 ? 'newly_allowed' : 'newly_rejected'));
  const res = await post(datasetId, report(datasetId, results));
  expect(res.status).toBe(201);
  const body = (await res.json()) as { id: string; url: string };
  expect(body.url).toBe(`/datasets/${datasetId}/runs/${body.id}?project=${env.projectId}`);

  const run = (await env.sql.query('SELECT * FROM replay_runs WHERE id = $1', [body.id])).rows[0];
  expect(run).toMatchObject({ project_id: env.projectId, dataset_id: datasetId, label: 'drop docs/' });
  expect(run.started_at.toISOString()).toBe('2026-12-02T09:00:00.000Z');
  expect(run.finished_at.toISOString()).toBe('2026-12-02T09:00:03.500Z');
  expect(run.summary).toMatchObject({ calls: 1_213, attempts: 1_215, unchanged: 12, newly_rejected: 802, newly_allowed: 401 });
  expect(run.options).toEqual({ execute: 'none', failOn: ['newly_rejected'] });

  const rows = (await env.sql.query('SELECT * FROM replay_run_results WHERE run_id = $1 ORDER BY ordinal', [body.id])).rows;
  expect(rows).toHaveLength(1_203);
  expect(rows.map((r) => r.ordinal)).toEqual(results.map((_, i) => i));
  expect(rows[1000]).toMatchObject({ item_id: 'trace1000:span1000', attempt: 1, change: 'newly_rejected', tool: 'read_file', session_id: 's-1000', step_path: '/sessions/s-1000?project=p&call=span1000' });
  expect(rows[1000].result).toEqual(results[1000]);
});

it('takes a report whose datasetId is null (read from a file) as a run of the dataset it is posted to', async () => {
  const datasetId = await newDataset(env.projectId);
  const res = await post(datasetId, report(null, [result(1, 'newly_rejected')]));
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  expect((await env.sql.query('SELECT dataset_id FROM replay_runs WHERE id = $1', [id])).rows[0].dataset_id).toBe(datasetId);
});

it('refuses a malformed report with the path of each bad field, and stores nothing', async () => {
  const datasetId = await newDataset(env.projectId);
  const bad = report(datasetId, [result(0, 'newly_rejected'), result(1, 'newly_rejected')]) as unknown as { results: Record<string, unknown>[] };
  bad.results[1] = { ...bad.results[1], change: 'got_worse', attempt: 0 };
  const res = await post(datasetId, bad);
  expect(res.status).toBe(400);
  const { message } = (await res.json()) as { message: string };
  expect(message).toContain(`not a ${REPLAY_RUN_FORMAT} report`);
  expect(message).toContain('results[1].attempt:');
  expect(message).toMatch(/results\[1\]\.change: .*"newly_rejected"/);

  const wrongFormat = await post(datasetId, { ...report(datasetId, []), format: 'something/v9', startedAt: 'yesterday' });
  expect(wrongFormat.status).toBe(400);
  const m2 = ((await wrongFormat.json()) as { message: string }).message;
  expect(m2).toContain('format:');
  expect(m2).toContain('startedAt:');

  const notJson = await post(datasetId, '{"format": ');
  expect(notJson.status).toBe(400);
  expect(((await notJson.json()) as { message: string }).message).toMatch(/^the body is not JSON/);

  const otherDataset = await post(datasetId, report(randomUUID(), []));
  expect(otherDataset.status).toBe(400);
  expect(((await otherDataset.json()) as { message: string }).message).toMatch(/^datasetId: the report is of dataset/);

  const protobuf = await post(datasetId, report(datasetId, []), env.key, 'application/x-protobuf');
  expect(protobuf.status).toBe(415);

  const nul = report(datasetId, [result(0, 'newly_rejected')]);
  (nul.results[0] as ReplayResult).arguments = { path: 'a\u0000b' };
  const nulRes = await post(datasetId, nul);
  expect(nulRes.status).toBe(400);
  // In the run's label and a result's tool (it failed the request with 500: Postgres text holds no NUL).
  for (const [where, bad] of [
    ['$.label', { ...report(datasetId, []), label: 'a\u0000b' }],
    ['$.results[0].tool', { ...report(datasetId, [result(0, 'newly_rejected')]), results: [{ ...result(0, 'newly_rejected'), tool: 'a\u0000b' }] }],
  ] as const) {
    const res = await post(datasetId, bad);
    expect(res.status, where).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe(`${where} holds a NUL character (\\u0000), which cannot be stored: remove it`);
  }

  expect((await env.sql.query('SELECT count(*)::int AS n FROM replay_runs WHERE dataset_id = $1', [datasetId])).rows[0].n).toBe(0);
  expect((await env.sql.query('SELECT count(*)::int AS n FROM replay_run_results r JOIN replay_runs u ON u.id = r.run_id WHERE u.dataset_id = $1', [datasetId])).rows[0].n).toBe(0);
});

it('answers 404 for a dataset of another project, as for an unknown one, and 401 without a key', async () => {
  const otherProject = await env.newProject();
  const theirs = await newDataset(otherProject);
  for (const id of [theirs, randomUUID(), 'not-a-uuid']) {
    const res = await post(id, report(null, [result(0, 'newly_rejected')]));
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toBe('no dataset with this id in the project of this API key');
  }
  expect((await env.sql.query('SELECT count(*)::int AS n FROM replay_runs WHERE dataset_id = $1', [theirs])).rows[0].n).toBe(0);
  // Their own key stores it there.
  const { key } = await env.newKey(otherProject);
  expect((await post(theirs, report(theirs, []), key)).status).toBe(201);

  const anonymous = await post(theirs, report(theirs, []), null);
  expect(anonymous.status).toBe(401);
});
