import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, ensureDatabase, type RunningPostgres, startThrowawayPostgres } from '../src/dev.ts';
import { collationAdvice } from '../src/server.ts';

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

it('creates its databases with code-point (memcmp) collation and Unicode case mapping', async () => {
  const db = await createTestDatabase({ migrate: false });
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    const { rows } = await c.query(
      `SELECT datlocprovider AS provider, coalesce(datlocale, datcollate) AS locale,
         current_setting('server_version_num')::int AS version
       FROM pg_database WHERE datname = current_database()`,
    );
    // Postgres 17+ (the embedded server is 18): the builtin C.UTF-8 locale; older: LC_COLLATE C.
    const { provider, locale, version } = rows[0];
    expect({ provider, locale }).toEqual(version >= 170_000 ? { provider: 'b', locale: 'C.UTF-8' } : { provider: 'c', locale: 'C' });
    const sorted = await c.query(
      "SELECT array_agg(x ORDER BY x) AS xs, lower('ÉCOLE') AS low FROM unnest(ARRAY['b', 'B', 'a', 'é', 'Z']) AS x",
    );
    expect(sorted.rows[0].xs).toEqual(['B', 'Z', 'a', 'b', 'é']);
    if (version >= 170_000) expect(sorted.rows[0].low).toBe('école');
  } finally {
    await c.end();
    await db.close();
  }
});

it('warns at start-up about a database that compares text with a libc collation, and not about its own', async () => {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query("CREATE DATABASE legacy_collation TEMPLATE template0 LOCALE_PROVIDER libc LOCALE 'C.UTF-8'");
  await admin.end();
  const legacy = new URL(server.url);
  legacy.pathname = '/legacy_collation';
  const lines: string[] = [];
  const db = await ensureDatabase({ databaseUrl: legacy.toString(), log: (l) => lines.push(l) });
  await db.close();
  expect(lines.filter((l) => l.includes('collation'))).toEqual([
    expect.stringMatching(/^database "legacy_collation" compares text with the libc collation "C\.UTF-8": .* dump it and restore/),
  ]);
  expect(await collationAdvice(legacy.toString(), '/data/pg')).toMatch(/remove \/data\/pg to start afresh/);

  const own = await createTestDatabase({ migrate: false });
  expect(await collationAdvice(own.url)).toBeNull();
  await own.close();
});
