import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, ensureDatabase, type RunningPostgres, startThrowawayPostgres } from '../src/server.ts';

let server: RunningPostgres;
beforeAll(async () => {
  server = await startThrowawayPostgres();
});
afterAll(async () => {
  await server?.stop();
});

async function databases(): Promise<string[]> {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  try {
    return (await c.query<{ datname: string }>('SELECT datname FROM pg_database')).rows.map((r) => r.datname);
  } finally {
    await c.end();
  }
}

it('with DATABASE_URL set, each test database is a fresh migrated database on that server, dropped on close', async () => {
  const saved = process.env.DATABASE_URL;
  process.env.DATABASE_URL = server.url;
  try {
    const a = await createTestDatabase();
    const b = await createTestDatabase();
    expect(a.server).toBeUndefined();
    const nameA = new URL(a.url).pathname.slice(1);
    const nameB = new URL(b.url).pathname.slice(1);
    expect(nameA).not.toBe(nameB);
    expect(new URL(a.url).port).toBe(String(server.port));
    expect(await databases()).toEqual(expect.arrayContaining([nameA, nameB]));
    const c = new pg.Client({ connectionString: a.url });
    await c.connect();
    const t = await c.query("SELECT to_regclass('sessions')::text AS t");
    await c.end();
    expect(t.rows[0].t).toBe('sessions');
    await a.close();
    await b.close();
    const left = await databases();
    expect(left).not.toContain(nameA);
    expect(left).not.toContain(nameB);
  } finally {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
  }
});

it('the apps use DATABASE_URL as given, migrate it, and never start an embedded server for it', async () => {
  const db = await ensureDatabase({ databaseUrl: server.url });
  expect(db.source).toBe('DATABASE_URL');
  expect(db.url).toBe(server.url);
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  const r = await c.query('SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL');
  await c.end();
  expect(r.rows[0].n).toBeGreaterThan(0);
  await db.close();
  // close() leaves a server it does not own running.
  expect((await databases()).length).toBeGreaterThan(0);
});
