/**
 * A physical streaming replica made from the embedded binaries with the low-level base backup
 * API: it has the primary's data, streams what the primary writes next, refuses writes, and
 * stops with its folder and slot gone.
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningPostgres, type RunningReplica, startStreamingReplica, startThrowawayPostgres } from '../src/index.ts';

let primary: RunningPostgres;
let replica: RunningReplica | undefined;
const clients: pg.Client[] = [];

async function connect(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => {});
  await c.connect();
  clients.push(c);
  return c;
}

beforeAll(async () => {
  primary = await startThrowawayPostgres();
  const p = await connect(primary.url);
  await p.query('CREATE TABLE notes (id int PRIMARY KEY, body text)');
  await p.query("INSERT INTO notes VALUES (1, 'before the copy')");
});
afterAll(async () => {
  for (const c of clients) await c.end().catch(() => {});
  await replica?.stop();
  await primary?.stop();
});

it('copies the primary, streams its later writes, and stops cleanly', async () => {
  replica = await startStreamingReplica(primary.url);
  const [p, r] = [await connect(primary.url), await connect(replica.url)];
  expect((await r.query('SELECT pg_is_in_recovery() AS standby')).rows[0].standby).toBe(true);
  expect((await r.query('SELECT body FROM notes')).rows).toEqual([{ body: 'before the copy' }]);

  await p.query("INSERT INTO notes VALUES (2, 'streamed')");
  await replica.caughtUp();
  expect((await r.query('SELECT body FROM notes ORDER BY id')).rows.map((x) => x.body)).toEqual(['before the copy', 'streamed']);
  await expect(r.query("INSERT INTO notes VALUES (3, 'refused')")).rejects.toThrow(/read-only transaction/);

  // Replay paused: the primary's next write is not visible on the replica until it resumes.
  await r.query('SELECT pg_wal_replay_pause()');
  await p.query("INSERT INTO notes VALUES (4, 'while paused')");
  expect((await r.query('SELECT count(*)::int AS n FROM notes')).rows[0].n).toBe(2);
  await r.query('SELECT pg_wal_replay_resume()');
  await replica.caughtUp();
  expect((await r.query('SELECT count(*)::int AS n FROM notes')).rows[0].n).toBe(3);

  const slots = async () => (await p.query("SELECT slot_name FROM pg_replication_slots WHERE slot_name LIKE 'guardtrace_replica_%'")).rows;
  expect(await slots()).toHaveLength(1);
  const dir = (await r.query('SHOW data_directory')).rows[0].data_directory as string;
  await r.end();
  await replica.stop();
  replica = undefined;
  expect(existsSync(dir)).toBe(false);
  expect(await slots()).toEqual([]);
});
