import fs from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT, startThrowawayPostgres } from '@guardtrace/db/dev';
import { migrate } from '@guardtrace/db/server';
import pg from 'pg';
import { expect, it } from 'vitest';
import { diffSql } from './diff.ts';

/** Tables, columns, indexes and constraints of the public schema, as comparable text. */
async function catalog(url: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const q = async (sql: string) => (await c.query(sql)).rows.map((r) => Object.values(r).join(' | '));
    return [
      ...(await q(`SELECT 'column', table_name, column_name, data_type, coalesce(character_maximum_length, 0),
                     coalesce(datetime_precision, 0), is_nullable, coalesce(column_default, '')
                   FROM information_schema.columns
                   WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'
                     AND table_name NOT IN (SELECT relname FROM pg_class WHERE relispartition)
                   ORDER BY table_name, column_name`)),
      // A partitioned table's index reads "ON ONLY": same index as far as the schema goes.
      ...(await q(`SELECT 'index', tablename, indexname, replace(indexdef, ' ON ONLY ', ' ON ') FROM pg_indexes
                   WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'
                     AND tablename NOT IN (SELECT relname FROM pg_class WHERE relispartition)
                   ORDER BY tablename, indexname`)),
      ...(await q(`SELECT 'constraint', t.relname, con.conname, pg_get_constraintdef(con.oid)
                   FROM pg_constraint con JOIN pg_class t ON t.oid = con.conrelid
                   JOIN pg_namespace n ON n.oid = t.relnamespace
                   WHERE n.nspname = 'public' AND t.relname <> '_prisma_migrations' AND NOT t.relispartition
                   ORDER BY t.relname, con.conname`)),
    ];
  } finally {
    await c.end();
  }
}

/**
 * The project's own functions (not an extension's), each with its definition: only those
 * prisma/unexpressible.sql defines are compared (the migrations hold more, e.g. the analytics
 * rollup's, written once there).
 */
async function functions(url: string): Promise<Map<string, string>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ name: string; def: string }>(
      `SELECT p.oid::regprocedure::text AS name, pg_get_functiondef(p.oid) AS def
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`,
    );
    return new Map(rows.map((r) => [r.name, r.def]));
  } finally {
    await c.end();
  }
}

async function createDb(serverUrl: string, name: string): Promise<string> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

it('prisma/schema.prisma and prisma/migrations describe the same database', async () => {
  const server = await startThrowawayPostgres();
  try {
    const viaMigrations = await createDb(server.url, 'via_migrations');
    const viaSchema = await createDb(server.url, 'via_schema');
    await migrate(viaMigrations);
    const schema = await fs.readFile(path.join(REPO_ROOT, 'prisma/schema.prisma'), 'utf8');
    const sql = await diffSql(null, schema, server.url);
    const c = new pg.Client({ connectionString: viaSchema });
    await c.connect();
    await c.query(sql);
    // What schema.prisma cannot say (expression and trigram indexes) is kept beside it.
    await c.query(await fs.readFile(path.join(REPO_ROOT, 'prisma/unexpressible.sql'), 'utf8'));
    await c.end();
    const a = await catalog(viaMigrations);
    const b = await catalog(viaSchema);
    expect(a.length).toBeGreaterThan(50);
    // On failure: edit prisma/schema.prisma only, then `pnpm --filter @guardtrace/prisma-migrate new <name>`.
    expect(a).toEqual(b);
    // The functions written in both places (the session totals' among them) have one definition.
    const fa = await functions(viaMigrations);
    const fb = await functions(viaSchema);
    expect([...fb.keys()]).toContain('guardtrace_update_sessions(uuid[],text[],boolean[],integer[],text[],timestamp with time zone[],timestamp with time zone[],text[],text[])');
    for (const [name, def] of fb) expect(fa.get(name), name).toBe(def);
  } finally {
    await server.stop();
  }
});
