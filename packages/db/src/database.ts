import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { type RunningPostgres, startEmbeddedPostgres } from './embedded.ts';
import { startThrowawayPostgres } from './throwaway.ts';
import { migrate } from './migrate.ts';
import { maintainSpanPartitions } from './partitions.ts';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** Default data folder of the embedded database (git-ignored). */
export const DEFAULT_DATA_DIR = path.join(REPO_ROOT, '.guardtrace', 'pg');

export interface Database {
  url: string;
  /** Where the database came from, for start-up logs. */
  source: 'DATABASE_URL' | 'embedded';
  close(): Promise<void>;
}

/**
 * The app's database: `databaseUrl` when given (from DATABASE_URL), else an embedded
 * Postgres in `dataDir` (started, or reused when already running). Migrations are applied.
 */
export async function ensureDatabase(opts: {
  databaseUrl?: string;
  dataDir?: string;
  migrate?: boolean;
  log?: (line: string) => void;
  /** The clock's reading that decides which monthly span partitions exist (default: now). */
  now?: Date;
}): Promise<Database> {
  let db: Database;
  if (opts.databaseUrl) {
    db = { url: opts.databaseUrl, source: 'DATABASE_URL', close: async () => {} };
  } else {
    const pgServer = await startEmbeddedPostgres({ dataDir: opts.dataDir ?? DEFAULT_DATA_DIR });
    const url = await ensureDbExists(pgServer.url, 'guardtrace');
    opts.log?.(
      pgServer.owned
        ? `started embedded Postgres on port ${pgServer.port} (${opts.dataDir ?? DEFAULT_DATA_DIR})`
        : `reusing embedded Postgres already running on port ${pgServer.port}`,
    );
    db = { url, source: 'embedded', close: () => pgServer.stop() };
  }
  if (opts.migrate !== false) {
    await migrate(db.url, { log: opts.log });
    await maintainSpanPartitions(db.url, { now: opts.now });
  }
  const advice = await collationAdvice(db.url, db.source === 'embedded' ? (opts.dataDir ?? DEFAULT_DATA_DIR) : undefined).catch(
    () => null, // only advice: never a reason not to start
  );
  if (advice) opts.log?.(advice);
  return db;
}

/**
 * A warning when the database compares text through a libc collation (databases created
 * before Guardtrace chose its own, or by hand): every index insert of an id then goes through
 * strcoll, ~10% of Postgres' time on ingest. Null when it compares code points.
 * @param dataDir the embedded cluster's folder (starting afresh is the simplest fix there).
 */
export async function collationAdvice(url: string, dataDir?: string): Promise<string | null> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ name: string; provider: string; collate: string }>(
      `SELECT datname AS name, datlocprovider AS provider, datcollate AS collate
       FROM pg_database WHERE datname = current_database()`,
    );
    const db = rows[0];
    if (!db || db.provider === 'b' || db.collate === 'C' || db.collate === 'POSIX') return null;
    const fix = dataDir
      ? `stop Guardtrace and remove ${dataDir} to start afresh (its data goes too), or dump and restore into a new database`
      : `dump it and restore into a database created with LOCALE_PROVIDER builtin BUILTIN_LOCALE 'C.UTF-8' (Postgres 17+) or LC_COLLATE 'C'`;
    return (
      `database "${db.name}" compares text with the libc collation "${db.collate}": ingest spends ~10% more of ` +
      `Postgres' time on index inserts than with code-point order. To switch, ${fix} (docs/collector.md, Postgres settings).`
    );
  } finally {
    await c.end();
  }
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * Collation of the databases this package creates: code-point order, compared with memcmp.
 * Ids (trace, span, session) are text in every index, and a libc locale (even C.UTF-8)
 * compares through strcoll: on ingest that was ~10% of Postgres' time. Postgres 17+ has the
 * builtin C.UTF-8 locale (code-point order, Unicode upper/lower); older servers get
 * LC_COLLATE C and keep the server's character classification.
 */
export function collationClause(serverVersionNum: number): string {
  return serverVersionNum >= 170_000
    ? "TEMPLATE template0 LOCALE_PROVIDER builtin BUILTIN_LOCALE 'C.UTF-8'"
    : "TEMPLATE template0 LC_COLLATE 'C'";
}

async function ensureDbExists(serverUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      const { rows } = await client.query<{ v: number }>(`SELECT current_setting('server_version_num')::int AS v`);
      await client.query(`CREATE DATABASE "${name}" ${collationClause(rows[0]?.v ?? 0)}`);
    }
  } finally {
    await client.end().catch(() => {});
  }
  return withDatabase(serverUrl, name);
}

export interface TestDatabase {
  url: string;
  /** The server's maintenance URL (for tests that stop or inspect the server). */
  server?: RunningPostgres;
  close(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file: a new database inside DATABASE_URL's
 * server when set, else a throwaway embedded Postgres. Dropped/deleted on close().
 * `partitions` is the date whose monthly span partitions are made (default: the clock's
 * now), or `false` for none: rows then go to `spans_default`, and a test that needs
 * partitions makes them with its own date, independent of the day it runs.
 */
export async function createTestDatabase(
  opts: { migrate?: boolean; partitions?: Date | false } = {},
): Promise<TestDatabase> {
  const external = process.env.DATABASE_URL;
  let result: TestDatabase;
  if (external) {
    const name = `guardtrace_test_${randomBytes(6).toString('hex')}`;
    const url = await ensureDbExists(external, name);
    result = {
      url,
      close: async () => {
        const c = new pg.Client({ connectionString: external });
        c.on('error', () => {});
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
        await c.end().catch(() => {});
      },
    };
  } else {
    const server = await startThrowawayPostgres();
    const url = await ensureDbExists(server.url, 'guardtrace');
    result = { url, server, close: () => server.stop() };
  }
  if (opts.migrate !== false) {
    await migrate(result.url);
    if (opts.partitions !== false) await maintainSpanPartitions(result.url, { now: opts.partitions });
  }
  return result;
}
