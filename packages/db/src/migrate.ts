import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** Prisma's own advisory lock id for migrations, so `prisma migrate deploy` and we exclude each other. */
const PRISMA_ADVISORY_LOCK = 72707369;

const here = path.dirname(fileURLToPath(import.meta.url));
/**
 * `migrations/` beside a compiled bundle (the collector's and guardtrace-migrate's builds copy
 * it there), else the repository's `prisma/migrations` (running from source).
 */
export const DEFAULT_MIGRATIONS_DIR = [path.join(here, 'migrations'), path.resolve(here, '../../../prisma/migrations')].find(
  (dir) => existsSync(dir),
) ?? path.resolve(here, '../../../prisma/migrations');

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
}

export class MigrationError extends Error {
  constructor(
    message: string,
    readonly migration?: string,
  ) {
    super(message);
    this.name = 'MigrationError';
  }
}

/** Migration folders in order (Prisma's layout: `<timestamp>_<name>/migration.sql`). */
export async function readMigrations(dir = DEFAULT_MIGRATIONS_DIR): Promise<Migration[]> {
  if (!existsSync(dir)) throw new MigrationError(`Migrations folder not found: ${dir}`);
  const entries = await fs.readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const out: Migration[] = [];
  for (const name of names) {
    const file = path.join(dir, name, 'migration.sql');
    if (!existsSync(file)) continue;
    const sql = await fs.readFile(file, 'utf8');
    out.push({ name, sql, checksum: createHash('sha256').update(sql).digest('hex') });
  }
  return out;
}

const BOOKKEEPING = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum"            VARCHAR(64) NOT NULL,
  "finished_at"         TIMESTAMPTZ,
  "migration_name"      VARCHAR(255) NOT NULL,
  "logs"                TEXT,
  "rolled_back_at"      TIMESTAMPTZ,
  "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

interface Row {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/**
 * Apply pending migrations in order, each in its own transaction, under Prisma's advisory
 * lock, recording them in `_prisma_migrations` exactly as `prisma migrate deploy` does.
 */
export async function migrate(
  connectionString: string,
  opts: { dir?: string; log?: (line: string) => void } = {},
): Promise<MigrateResult> {
  const migrations = await readMigrations(opts.dir);
  const client = new pg.Client({ connectionString });
  client.on('error', () => {});
  await client.connect();
  const result: MigrateResult = { applied: [], alreadyApplied: [] };
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK]);
    await client.query(BOOKKEEPING);
    const { rows } = await client.query<Row>(
      'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"',
    );
    const done = new Map<string, Row>();
    for (const r of rows) {
      if (r.rolled_back_at) continue;
      if (!r.finished_at) {
        throw new MigrationError(
          `Migration ${r.migration_name} started but did not finish; fix the database, then mark it rolled back in _prisma_migrations.`,
          r.migration_name,
        );
      }
      done.set(r.migration_name, r);
    }
    for (const m of migrations) {
      const prior = done.get(m.name);
      if (prior) {
        if (prior.checksum !== m.checksum) {
          opts.log?.(`warning: migration ${m.name} was modified after it was applied (checksum differs)`);
        }
        result.alreadyApplied.push(m.name);
        continue;
      }
      const id = randomUUID();
      await client.query('BEGIN');
      try {
        await client.query(
          'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())',
          [id, m.checksum, m.name],
        );
        await client.query(m.sql);
        await client.query(
          'UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1',
          [id],
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw new MigrationError(`Migration ${m.name} failed: ${(err as Error).message}`, m.name);
      }
      opts.log?.(`applied migration ${m.name}`);
      result.applied.push(m.name);
    }
    return result;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK]).catch(() => {});
    await client.end().catch(() => {});
  }
}

/** Names of migrations not yet applied to the database (empty when up to date). */
export async function pendingMigrations(connectionString: string, dir?: string): Promise<string[]> {
  const migrations = await readMigrations(dir);
  const client = new pg.Client({ connectionString });
  client.on('error', () => {});
  await client.connect();
  try {
    const exists = await client.query(`SELECT to_regclass('"_prisma_migrations"') AS t`);
    if (!exists.rows[0]?.t) return migrations.map((m) => m.name);
    const { rows } = await client.query<{ migration_name: string }>(
      'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const done = new Set(rows.map((r) => r.migration_name));
    return migrations.filter((m) => !done.has(m.name)).map((m) => m.name);
  } finally {
    await client.end().catch(() => {});
  }
}
