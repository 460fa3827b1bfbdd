import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../src/dev.ts';

// The explorer's search text (session_search), kept by the triggers on attempts of the
// session_search migration: appended per statement, in chunks, rebuilt on delete and update.
let db: TestDatabase;
let client: pg.Client;
beforeAll(async () => {
  db = await createTestDatabase({ partitions: false });
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await db?.close();
});

let spanSeq = 0;
interface A {
  session: string;
  tool: string;
  args?: string;
  feedback?: string;
  span?: string;
}
/** One INSERT statement of attempts, as the collector writes them (re-sent rows skipped). */
async function insert(projectId: string, rows: A[]): Promise<string[]> {
  const spans = rows.map((r) => r.span ?? `s${String(++spanSeq).padStart(15, '0')}`);
  await client.query(
    `INSERT INTO attempts (project_id, trace_id, span_id, session_id, tool_name, number, started_at, duration_ms, arguments, feedback)
     SELECT $1, 't', span, session, tool, 1, '2026-11-20T10:00:00Z'::timestamptz + make_interval(secs => ord), 1, args, feedback
     FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS x(span, session, tool, args, feedback, ord)
     ON CONFLICT DO NOTHING`,
    [projectId, spans, rows.map((r) => r.session), rows.map((r) => r.tool), rows.map((r) => r.args ?? null), rows.map((r) => r.feedback ?? null)],
  );
  return spans;
}
const texts = async (projectId: string, session: string) =>
  (
    await client.query<{ chunk: number; text: string }>('SELECT chunk, text FROM session_search WHERE project_id = $1 AND session_id = $2 ORDER BY chunk', [
      projectId,
      session,
    ])
  ).rows;

it("appends each statement's attempts to its sessions' text, once, and starts a new chunk past 8 KB", async () => {
  const p = randomUUID();
  const [first] = await insert(p, [
    { session: 'a', tool: 'read_file', args: '{"path":"x.txt"}', feedback: 'path must be relative' },
    { session: 'b', tool: 'charge_card' },
  ]);
  await insert(p, [{ session: 'a', tool: 'send_email', args: '{"to":"dana@example.com"}' }]);
  expect(await texts(p, 'a')).toEqual([{ chunk: 0, text: 'read_file {"path":"x.txt"} path must be relative\nsend_email {"to":"dana@example.com"} ' }]);
  expect(await texts(p, 'b')).toEqual([{ chunk: 0, text: 'charge_card  ' }]);

  // A re-sent attempt (same key: skipped by ON CONFLICT DO NOTHING) adds nothing.
  await insert(p, [{ session: 'a', tool: 'read_file', args: 'resent', span: first }]);
  expect((await texts(p, 'a'))[0]?.text).not.toContain('resent');

  // A long session: its text grows chunk by chunk, each under 8 KB plus one statement's text.
  for (let i = 0; i < 30; i++) await insert(p, [{ session: 'long', tool: 'query_db', args: `${'x'.repeat(1000)} batch-${i}` }]);
  const chunks = await texts(p, 'long');
  expect(chunks.length).toBeGreaterThan(2);
  expect(chunks.map((c) => c.chunk)).toEqual(chunks.map((_, i) => i));
  for (const c of chunks) expect(c.text.length).toBeLessThan(8192);
  const all = chunks.map((c) => c.text).join('\n');
  for (let i = 0; i < 30; i++) expect(all).toContain(`batch-${i}`);
});

it('rebuilds the text of sessions whose attempts are updated or deleted', async () => {
  const p = randomUUID();
  const [s1, s2] = await insert(p, [
    { session: 'c', tool: 'lookup_customer', feedback: 'no such customer' },
    { session: 'c', tool: 'read_file' },
  ]);
  await client.query(`UPDATE attempts SET feedback = 'fixed text' WHERE project_id = $1 AND span_id = $2`, [p, s1]);
  expect(await texts(p, 'c')).toEqual([{ chunk: 0, text: 'lookup_customer  fixed text\nread_file  ' }]);
  await client.query('DELETE FROM attempts WHERE project_id = $1 AND span_id = $2', [p, s2]);
  expect(await texts(p, 'c')).toEqual([{ chunk: 0, text: 'lookup_customer  fixed text' }]);
  // A session gone whole (retention, the sampling sweep, project deletion) leaves no text.
  await client.query('DELETE FROM attempts WHERE project_id = $1', [p]);
  expect(await texts(p, 'c')).toEqual([]);
});

it("keeps a session's text as it is when an update changes none of its attempts' text or session, and moves it when the session changes", async () => {
  const p = randomUUID();
  // A long session: 40 statements, so its text is in chunks the rebuild would merge into one.
  const spans: string[] = [];
  for (let i = 0; i < 40; i++) spans.push(...(await insert(p, [{ session: 'long', tool: 'query_db', args: `${'y'.repeat(400)} batch-${i}` }])));
  const before = await client.query<{ chunk: number; ctid: string }>(
    'SELECT chunk, ctid::text FROM session_search WHERE project_id = $1 AND session_id = $2 ORDER BY chunk',
    [p, 'long'],
  );
  expect(before.rows.length).toBeGreaterThan(1);
  // What the correction links and the alerts' rollup set on an attempt: the text rows stay untouched.
  await client.query(`UPDATE attempts SET fixed = false, alert_unfixed_at = now() WHERE project_id = $1 AND span_id = ANY($2)`, [p, spans.slice(0, 3)]);
  const after = await client.query('SELECT chunk, ctid::text FROM session_search WHERE project_id = $1 AND session_id = $2 ORDER BY chunk', [p, 'long']);
  expect(after.rows).toEqual(before.rows);
  // A re-key moves attempts into another session: both texts follow.
  await client.query(`UPDATE attempts SET session_id = 'moved' WHERE project_id = $1 AND span_id = $2`, [p, spans[0]]);
  const moved = await texts(p, 'moved');
  expect(moved).toEqual([{ chunk: 0, text: `query_db ${'y'.repeat(400)} batch-0 ` }]);
  const rest = (await texts(p, 'long')).map((c) => c.text).join('\n');
  expect(rest).not.toContain('batch-0 ');
  expect(rest).toContain('batch-39');
});
