/**
 * Datasets are snapshots: their items are copied JSON, so the retention job deleting the sessions
 * they came from leaves them whole; and a session or step source copies all its calls or one.
 * Fixed dates, passed as the retention job's clock.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDataset, datasetItemLines, deleteDataset, getDataset, pgQueryable } from '../src/datasets.ts';
import { createTestDatabase, type TestDatabase } from '../src/dev.ts';
import { applyRetention, maintainSpanPartitions } from '../src/server.ts';

let db: TestDatabase;
let client: pg.Client;
beforeAll(async () => {
  db = await createTestDatabase({ partitions: false });
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await maintainSpanPartitions(db.url, { now: new Date('2027-03-15T00:00:00Z') });
});
afterAll(async () => {
  await client?.end();
  await db?.close();
});

let seq = 0;
const span = () => (++seq).toString(16).padStart(16, '0');

/** A session with `calls` tool calls, each with one failed attempt (arguments, feedback) and its failed check. */
async function session(projectId: string, id: string, start: string, calls: number) {
  await client.query('INSERT INTO sessions (project_id, id, started_at, ended_at) VALUES ($1, $2, $3, $3)', [projectId, id, start]);
  const trace = randomUUID().replaceAll('-', '');
  await client.query('INSERT INTO traces (project_id, trace_id, session_id, start_time) VALUES ($1, $2, $3, $4)', [projectId, trace, id, start]);
  const ids: string[] = [];
  for (let i = 0; i < calls; i++) {
    const call = span();
    const attempt = span();
    ids.push(call);
    await client.query(
      `INSERT INTO tool_calls (project_id, trace_id, span_id, session_id, tool_name, started_at, duration_ms, outcome, failure_class)
       VALUES ($1, $2, $3, $4, 'read_file', $5::timestamptz + make_interval(secs => $6), 1, 'rejected', 'guard_violation')`,
      [projectId, trace, call, id, start, i],
    );
    await client.query(
      `INSERT INTO attempts (project_id, trace_id, span_id, session_id, tool_call_span_id, number, started_at, duration_ms, outcome, failure_class, decision, feedback, arguments)
       VALUES ($1, $2, $3, $4, $5, 1, $6, 1, 'rejected', 'guard_violation', 'reject_with_feedback', 'outside the workspace', $7)`,
      [projectId, trace, attempt, id, call, start, `{"path":"/etc/${i}"}`],
    );
    await client.query(
      `INSERT INTO guard_checks (project_id, trace_id, span_id, session_id, attempt_span_id, guard_name, verdict, started_at, duration_us, failed_pointers)
       VALUES ($1, $2, $3, $4, $5, 'insideWorkspace', 'fail', $6, 1, '["/path"]')`,
      [projectId, trace, span(), id, attempt, start],
    );
  }
  return { trace, ids };
}

it('keeps a dataset whole after retention deleted the sessions it was made from', async () => {
  const projectId = randomUUID();
  await client.query('INSERT INTO projects (id, name, retention_days) VALUES ($1, $2, 7)', [projectId, 'p-ds']);
  await session(projectId, 'old-1', '2027-02-01T00:00:00Z', 2);
  await session(projectId, 'old-2', '2027-02-02T00:00:00Z', 1);
  const q = pgQueryable(client);
  const progress: number[] = [];
  // What the web app's dataset page reads while it is saved: the row, building, its count growing.
  const seen: Promise<{ status: string; item_count: number }>[] = [];
  const made = await createDataset(q, {
    projectId,
    name: 'old calls',
    source: { kind: 'query', query: 'tool:read_file' },
    chunkSessions: 1,
    onProgress: (p) => {
      progress.push(p.items);
      seen.push(client.query('SELECT status, item_count FROM datasets WHERE id = $1', [p.datasetId]).then((r) => r.rows[0]));
    },
  });
  expect(made).toMatchObject({ itemCount: 3, status: 'ready', sourceKind: 'query', source: 'tool:read_file' });
  expect(progress).toEqual([2, 3]);
  expect(await Promise.all(seen)).toEqual([
    { status: 'building', item_count: 2 },
    { status: 'building', item_count: 3 },
  ]);
  const before = [];
  for await (const line of datasetItemLines(q, made.id, 2)) before.push(line);
  expect(before).toHaveLength(3);

  const report = await applyRetention(db.url, { now: new Date('2027-03-15T00:00:00Z') });
  expect(report.deletedSessions).toBe(2);
  expect((await client.query('SELECT count(*)::int AS n FROM tool_calls WHERE project_id = $1', [projectId])).rows[0].n).toBe(0);

  const after = [];
  for await (const line of datasetItemLines(q, made.id, 2)) after.push(line);
  expect(after).toEqual(before);
  const first = JSON.parse(after[0] as string);
  expect(first).toMatchObject({ sessionId: 'old-1', tool: 'read_file', failureClass: 'guard_violation' });
  expect(first.attempts[0]).toMatchObject({ arguments: { path: '/etc/0' }, feedback: 'outside the workspace', checks: [{ guard: 'insideWorkspace', verdict: 'fail', pointers: ['/path'] }] });
  expect((await getDataset(q, projectId, made.id))?.itemCount).toBe(3);
});

it('copies all calls of a session, or one step, and deletes a dataset with its items', async () => {
  const projectId = randomUUID();
  await client.query('INSERT INTO projects (id, name) VALUES ($1, $2)', [projectId, 'p-ds2']);
  const { ids } = await session(projectId, 's/1', '2027-03-01T00:00:00Z', 3);
  const q = pgQueryable(client);
  const whole = await createDataset(q, { projectId, name: 'session', source: { kind: 'session', sessionId: 's/1' } });
  expect(whole.itemCount).toBe(3);
  const step = await createDataset(q, { projectId, name: 'step', source: { kind: 'step', sessionId: 's/1', spanId: ids[1] as string } });
  expect(step).toMatchObject({ itemCount: 1, source: `/sessions/s%2F1?project=${projectId}&call=${ids[1]}` });
  const lines: string[] = [];
  for await (const line of datasetItemLines(q, step.id)) lines.push(line);
  expect(lines.map((l) => JSON.parse(l).stepPath)).toEqual([step.source]);
  await expect(createDataset(q, { projectId, name: ' ', source: { kind: 'session', sessionId: 's/1' } })).rejects.toThrow('needs a name');
  expect(await deleteDataset(q, randomUUID(), step.id)).toBe(false);
  expect(await deleteDataset(q, projectId, step.id)).toBe(true);
  expect((await client.query('SELECT count(*)::int AS n FROM dataset_items WHERE dataset_id = $1', [step.id])).rows[0].n).toBe(0);
});

it('copies a call whose recorded arguments escape a NUL character (no jsonb) as their exact text, and its neighbours whole', async () => {
  const projectId = randomUUID();
  await client.query('INSERT INTO projects (id, name) VALUES ($1, $2)', [projectId, 'p-ds-nul']);
  const { ids } = await session(projectId, 's-nul', '2027-03-01T00:00:00Z', 2);
  await client.query('UPDATE attempts SET arguments = $1 WHERE project_id = $2 AND tool_call_span_id = $3', ['{"path":"a\\u0000b"}', projectId, ids[0]]);
  const q = pgQueryable(client);
  const ds = await createDataset(q, { projectId, name: 'nul', source: { kind: 'session', sessionId: 's-nul' } });
  expect(ds.itemCount).toBe(2);
  const items: { attempts: { arguments: unknown; argumentsText: string | null; argumentsInexact: boolean }[] }[] = [];
  for await (const line of datasetItemLines(q, ds.id)) items.push(JSON.parse(line));
  // jsonb cannot hold it parsed; its text is what was recorded, nothing left out: a replay parses that
  expect(items.map((i) => i.attempts[0])).toMatchObject([
    { arguments: null, argumentsText: '{"path":"a\\u0000b"}', argumentsInexact: false },
    { arguments: { path: '/etc/1' }, argumentsText: '{"path":"/etc/1"}', argumentsInexact: false },
  ]);
});

it('reads a building dataset whose saving stopped moving as interrupted, and a moving one as building', async () => {
  const projectId = randomUUID();
  await client.query('INSERT INTO projects (id, name) VALUES ($1, $2)', [projectId, 'p-ds3']);
  await session(projectId, 's/3', '2027-03-01T00:00:00Z', 2);
  const q = pgQueryable(client);
  const made = await createDataset(q, { projectId, name: 'cut off', source: { kind: 'session', sessionId: 's/3' } });
  // What a restart mid-save leaves: the row still building, its last progress long ago (the
  // database's own clock decides, as it does when the web app reads it).
  await client.query(`UPDATE datasets SET status = 'building', item_count = 1, updated_at = now() - interval '1 hour' WHERE id = $1`, [made.id]);
  expect(await getDataset(q, projectId, made.id)).toMatchObject({ status: 'interrupted', itemCount: 1 });
  await client.query(`UPDATE datasets SET updated_at = now() - interval '4 minutes' WHERE id = $1`, [made.id]);
  expect((await getDataset(q, projectId, made.id))?.status).toBe('building');
});

it('narrows a query to the calls that failed on the `failed:` days, in a session that began before them', async () => {
  const projectId = randomUUID();
  await client.query('INSERT INTO projects (id, name) VALUES ($1, $2)', [projectId, 'p-ds-failed']);
  const { ids } = await session(projectId, 'long', '2027-03-01T10:00:00Z', 3);
  // The third call's attempt failed two days into the conversation.
  await client.query(`UPDATE attempts SET started_at = '2027-03-03T09:00:00Z' WHERE project_id = $1 AND tool_call_span_id = $2`, [projectId, ids[2]]);
  const q = pgQueryable(client);
  const later = await createDataset(q, { projectId, name: 'later', source: { kind: 'query', query: 'class:guard_violation failed:>=2027-03-02' } });
  expect(later.itemCount).toBe(1);
  const lines: string[] = [];
  for await (const line of datasetItemLines(q, later.id)) lines.push(line);
  expect(lines.map((l) => JSON.parse(l).spanId)).toEqual([ids[2]]);
  // started: is the call's own start, the session's too: nothing began on 2027-03-02 or later.
  expect((await createDataset(q, { projectId, name: 'started', source: { kind: 'query', query: 'started:>=2027-03-02' } })).itemCount).toBe(0);
  expect((await createDataset(q, { projectId, name: 'first day', source: { kind: 'query', query: 'tool:read_file failed:2027-03-01' } })).itemCount).toBe(2);
});

it('narrows a query to the calls whose own attempt the decision:, budget:, unfixed: or repaired: names, not every call of the session', async () => {
  const projectId = randomUUID();
  await client.query('INSERT INTO projects (id, name) VALUES ($1, $2)', [projectId, 'p-ds-kinds']);
  const { trace, ids } = await session(projectId, 'kinds', '2027-03-01T10:00:00Z', 4);
  const attemptOf = async (call: string) =>
    (await client.query<{ span_id: string }>('SELECT span_id FROM attempts WHERE project_id = $1 AND tool_call_span_id = $2', [projectId, call])).rows[0]?.span_id;
  // Call 0: rejected, its correction failed at 10:05 (counted as not fixed then). Call 1: aborted.
  // Call 2: ran out of its attempts. Call 3: a model turn at 10:07 repaired it.
  await client.query(`UPDATE attempts SET fixed = false, correction_started_at = '2027-03-01T10:05:00Z', alert_unfixed_at = '2027-03-01T10:05:00Z' WHERE project_id = $1 AND tool_call_span_id = $2`, [projectId, ids[0]]);
  await client.query(`UPDATE attempts SET decision = 'abort' WHERE project_id = $1 AND tool_call_span_id = $2`, [projectId, ids[1]]);
  await client.query(`UPDATE attempts SET budget_exhausted = 'attempts_per_call', decision = 'replan' WHERE project_id = $1 AND tool_call_span_id = $2`, [projectId, ids[2]]);
  await client.query(
    `INSERT INTO model_calls (project_id, trace_id, span_id, session_id, model, started_at, duration_ms, input_tokens, output_tokens, repair_attempt_span_id)
     VALUES ($1, $2, $3, 'kinds', 'gpt-4.1-mini', '2027-03-01T10:07:00Z', 1, 100, 10, $4)`,
    [projectId, trace, span(), await attemptOf(ids[3] as string)],
  );
  const q = pgQueryable(client);
  const calls = async (query: string) => {
    const ds = await createDataset(q, { projectId, name: query, source: { kind: 'query', query } });
    const lines: string[] = [];
    for await (const line of datasetItemLines(q, ds.id)) lines.push(line);
    return lines.map((l) => JSON.parse(l).spanId);
  };
  expect(await calls('decision:abort')).toEqual([ids[1]]);
  expect(await calls('decision:reject_with_feedback')).toEqual([ids[0], ids[3]]);
  expect(await calls('budget:any')).toEqual([ids[2]]);
  expect(await calls('unfixed:any')).toEqual([ids[0]]);
  expect(await calls('unfixed:>=2027-03-01T10:05Z unfixed:<=2027-03-01T10:05Z')).toEqual([ids[0]]);
  expect(await calls('unfixed:>=2027-03-01T10:06Z')).toEqual([]);
  expect(await calls('class:guard_violation repaired:>=2027-03-01T10:07Z')).toEqual([ids[3]]);
  expect(await calls('repaired:<2027-03-01T10:07Z')).toEqual([]);
});

it('takes into a `tool:` dataset a call whose attempt named the tool before the model corrected the name', async () => {
  const projectId = randomUUID();
  await client.query('INSERT INTO projects (id, name) VALUES ($1, $2)', [projectId, 'p-ds-corrected']);
  const { ids } = await session(projectId, 'corrected', '2027-03-01T10:00:00Z', 2);
  // the first call's attempt named a tool that does not exist; the call went on as read_file
  await client.query(`UPDATE attempts SET tool_name = 'read_files', failure_class = 'unknown_tool' WHERE project_id = $1 AND tool_call_span_id = $2`, [projectId, ids[0]]);
  const q = pgQueryable(client);
  const ds = await createDataset(q, { projectId, name: 'made-up', source: { kind: 'query', query: 'tool:read_files' } });
  const lines: string[] = [];
  for await (const line of datasetItemLines(q, ds.id)) lines.push(line);
  expect(lines.map((l) => [JSON.parse(l).spanId, JSON.parse(l).tool, JSON.parse(l).attempts[0].tool])).toEqual([[ids[0], 'read_file', 'read_files']]);
  expect((await createDataset(q, { projectId, name: 'read', source: { kind: 'query', query: 'tool:read_file' } })).itemCount).toBe(2);
});

it("orders a session's calls of one millisecond by the SDK's step sequence, not by their random span ids", async () => {
  // The SDK's clock records whole milliseconds: three calls made back to back can share one, and a
  // replay of the session's budgets depends on their order (the third escalates after two rejections).
  const projectId = randomUUID();
  await client.query('INSERT INTO projects (id, name) VALUES ($1, $2)', [projectId, 'p-ds-order']);
  const start = '2027-03-02T00:00:00.123Z';
  await client.query('INSERT INTO sessions (project_id, id, started_at, ended_at) VALUES ($1, $2, $3, $3)', [projectId, 's-ms', start]);
  const trace = randomUUID().replaceAll('-', '');
  // span ids in the reverse of the steps' order
  const calls = [
    ['ffff000000000001', 'read_file', 1],
    ['eeee000000000002', 'read_file', 2],
    ['dddd000000000003', 'create_invoice', 3],
  ] as const;
  for (const [id, tool, step] of calls) {
    await client.query(
      `INSERT INTO tool_calls (project_id, trace_id, span_id, session_id, tool_name, started_at, duration_ms, outcome, step_sequence)
       VALUES ($1, $2, $3, 's-ms', $4, $5, 0, 'rejected', $6)`,
      [projectId, trace, id, tool, start, step],
    );
  }
  const q = pgQueryable(client);
  const made = await createDataset(q, { projectId, name: 'ms', source: { kind: 'session', sessionId: 's-ms' } });
  const lines: string[] = [];
  for await (const line of datasetItemLines(q, made.id)) lines.push(line);
  expect(lines.map((l) => JSON.parse(l).spanId)).toEqual(calls.map((c) => c[0]));
});
