import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../src/dev.ts';
import { migrateUntil } from './migrate-until.ts';
import {
  migrate,
  pendingMigrations,
  readMigrations,
} from '../src/server.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ migrate: false });
});
afterAll(async () => {
  await db?.close();
});

async function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

describe('migrate', () => {
  it('applies every migration once and records it the way Prisma does', async () => {
    const migrations = await readMigrations();
    expect(migrations.length).toBeGreaterThan(0);
    expect(await pendingMigrations(db.url)).toEqual(migrations.map((m) => m.name));

    const first = await migrate(db.url);
    expect(first.applied).toEqual(migrations.map((m) => m.name));
    const second = await migrate(db.url);
    expect(second.applied).toEqual([]);
    expect(second.alreadyApplied).toEqual(first.applied);
    expect(await pendingMigrations(db.url)).toEqual([]);

    const rows = await query<{ migration_name: string; checksum: string; finished_at: Date; applied_steps_count: number }>(
      'SELECT migration_name, checksum, finished_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name',
    );
    const first0 = migrations[0];
    if (!first0) throw new Error('no migrations');
    const sql = await fs.readFile(path.join(path.dirname(new URL(import.meta.url).pathname), '../../../prisma/migrations', first0.name, 'migration.sql'));
    expect(rows[0]?.checksum).toBe(createHash('sha256').update(sql).digest('hex'));
    expect(rows.every((r) => r.finished_at instanceof Date && r.applied_steps_count === 1)).toBe(true);
    const tables = await query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
    expect(tables.map((t) => t.tablename)).toEqual(
      expect.arrayContaining(['projects', 'api_keys', 'spans', 'sessions', 'tool_calls', 'attempts', 'guard_checks', 'model_calls', 'traces']),
    );
  });

  it('rolls a failing migration back whole and names it', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gt-mig-'));
    await fs.mkdir(path.join(dir, '20990101000000_bad'));
    await fs.writeFile(
      path.join(dir, '20990101000000_bad', 'migration.sql'),
      'CREATE TABLE half_done (id int); SELECT * FROM no_such_table;',
    );
    await expect(migrate(db.url, { dir })).rejects.toThrow(/20990101000000_bad failed: .*no_such_table/);
    const t = await query<{ t: string | null }>("SELECT to_regclass('half_done')::text AS t");
    expect(t[0]?.t).toBeNull();
    const rec = await query('SELECT 1 FROM _prisma_migrations WHERE migration_name = $1', ['20990101000000_bad']);
    expect(rec).toHaveLength(0);
  });

  it('every telemetry primary key and unique index starts with project_id', async () => {
    const rows = await query<{ table: string; index: string; first: string }>(`
      SELECT t.relname AS table, i.relname AS index, a.attname AS first
      FROM pg_index x
      JOIN pg_class t ON t.oid = x.indrelid
      JOIN pg_class i ON i.oid = x.indexrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
      JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[0]
      WHERE n.nspname = 'public' AND (x.indisunique OR x.indisprimary)
        AND t.relname IN ('spans','sessions','tool_calls','attempts','guard_checks','model_calls','traces')`);
    expect(rows.length).toBeGreaterThanOrEqual(7);
    for (const r of rows) expect(`${r.table}.${r.index}:${r.first}`).toBe(`${r.table}.${r.index}:project_id`);
  });

  it('fills the trace index from the spans stored before it existed', async () => {
    const fresh = await createTestDatabase({ migrate: false });
    try {
      await migrateUntil(fresh.url, '_ingest_write_path');
      const c = new pg.Client({ connectionString: fresh.url });
      await c.connect();
      try {
        const project = '00000000-0000-4000-8000-000000000001';
        const span = (trace: string, id: string, session: string) =>
          c.query(
            `INSERT INTO spans (project_id, start_time, trace_id, span_id, session_id, name, start_time_unix_nano, end_time_unix_nano)
             VALUES ($1, now(), $2, $3, $4, 'x', 0, 0)`,
            [project, trace, id, session],
          );
        const [keyed, conv] = ['a'.repeat(32), 'b'.repeat(32)];
        await span(keyed, '0000000000000001', keyed);
        await span(conv, '0000000000000002', conv); // stored before its conversation id was seen
        await span(conv, '0000000000000003', 'sess-1');
        await migrate(fresh.url);
        const rows = (await c.query('SELECT trace_id, session_id FROM traces ORDER BY trace_id')).rows;
        expect(rows).toEqual([
          { trace_id: keyed, session_id: keyed },
          { trace_id: conv, session_id: 'sess-1' },
        ]);
      } finally {
        await c.end();
      }
    } finally {
      await fresh.close();
    }
  });
});
