/**
 * Two `guardtrace-migrate` processes started at once against one real Postgres apply each
 * migration exactly once, and leave the same schema as one migrator alone.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../src/dev.ts';
import { migrate, pendingMigrations, readMigrations } from '../src/server.ts';

const dbDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsx = path.resolve(dbDir, '../../node_modules/tsx/dist/cli.mjs');
/** Prisma's migration lock (migrate.ts): both processes must queue on this very id. */
const PRISMA_ADVISORY_LOCK = 72707369;

let concurrent: TestDatabase;
let alone: TestDatabase;
beforeAll(async () => {
  [concurrent, alone] = await Promise.all([createTestDatabase({ migrate: false }), createTestDatabase({ migrate: false })]);
});
afterAll(async () => {
  await Promise.all([concurrent?.close(), alone?.close()]);
});

function runMigrator(url: string): { done: Promise<{ code: number | null; out: string }> } {
  const p = spawn(process.execPath, [tsx, 'src/migrate-main.ts'], {
    cwd: dbDir,
    env: { ...process.env, DATABASE_URL: url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  p.stdout.on('data', (d) => {
    out += String(d);
  });
  p.stderr.on('data', (d) => {
    out += String(d);
  });
  return { done: new Promise((resolve) => p.once('exit', (code) => resolve({ code, out }))) };
}

/** The schema as the catalog describes it: columns with types, and every index and constraint. */
async function schemaOf(url: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const cols = await c.query<{ d: string }>(
      `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') AS d
       FROM information_schema.columns WHERE table_schema = 'public' AND table_name NOT LIKE 'spans\\_p%'`,
    );
    const idx = await c.query<{ d: string }>(
      `SELECT indexname || ' ' || indexdef AS d FROM pg_indexes WHERE schemaname = 'public' AND tablename NOT LIKE 'spans\\_p%'`,
    );
    const cons = await c.query<{ d: string }>(
      `SELECT conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) AS d FROM pg_constraint
       WHERE connamespace = 'public'::regnamespace AND conrelid::regclass::text NOT LIKE 'spans\\_p%'`,
    );
    return [...cols.rows, ...idx.rows, ...cons.rows].map((r) => r.d).sort();
  } finally {
    await c.end();
  }
}

it('two migrators started at once apply each migration exactly once', async () => {
  const migrations = await readMigrations();
  // Hold Prisma's lock, so that both processes are surely running at once, queued on it.
  const holder = new pg.Client({ connectionString: concurrent.url });
  await holder.connect();
  await holder.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK]);
  const a = runMigrator(concurrent.url);
  const b = runMigrator(concurrent.url);
  // A timeout, read on the monotonic clock: nothing here depends on the date.
  const deadline = performance.now() + 30_000;
  for (;;) {
    const { rows } = await holder.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted`,
      [PRISMA_ADVISORY_LOCK],
    );
    if (rows[0]?.n === 2) break;
    if (performance.now() > deadline) throw new Error('the two migrators did not both wait on the advisory lock');
    await new Promise((r) => setTimeout(r, 50));
  }
  await holder.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK]);
  await holder.end();

  const results = await Promise.all([a.done, b.done]);
  for (const r of results) expect(r.code, r.out).toBe(0);
  // One of them applied every migration, the other found them applied.
  const applied = results.map((r) => migrations.filter((m) => r.out.includes(`applied migration ${m.name}`)).length);
  expect(applied.sort()).toEqual([0, migrations.length]);

  const c = new pg.Client({ connectionString: concurrent.url });
  await c.connect();
  const { rows } = await c.query<{ migration_name: string; n: number; finished: number }>(
    `SELECT migration_name, count(*)::int AS n, count(finished_at)::int AS finished
     FROM _prisma_migrations GROUP BY migration_name ORDER BY migration_name`,
  );
  await c.end();
  expect(rows).toEqual(migrations.map((m) => ({ migration_name: m.name, n: 1, finished: 1 })));
  expect(await pendingMigrations(concurrent.url)).toEqual([]);

  await migrate(alone.url);
  const schema = await schemaOf(concurrent.url);
  expect(schema.length).toBeGreaterThan(50);
  expect(schema).toEqual(await schemaOf(alone.url));
});

it('says DATABASE_URL is required when it is unset', async () => {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  const p = spawn(process.execPath, [tsx, 'src/migrate-main.ts'], { cwd: dbDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  p.stderr.on('data', (d) => {
    err += String(d);
  });
  const code = await new Promise<number | null>((r) => p.once('exit', r));
  expect(code).toBe(2);
  expect(err).toContain('DATABASE_URL is required');
});
