import pg from 'pg';
import { migrate } from './migrate.ts';
import { maintainSpanPartitions } from './partitions.ts';

/**
 * Makes the database at `url` ready for Guardtrace: applies pending migrations (under
 * Prisma's advisory lock, so any number of processes may do it at once), makes the span
 * partitions around `now`, and logs advice about the database's collation.
 */
export async function prepareDatabase(
  url: string,
  opts: {
    log?: (line: string) => void;
    /** The clock's reading that decides which monthly span partitions exist (default: now). */
    now?: Date;
    /** Where the embedded cluster lives, for the collation advice (dev only). */
    dataDir?: string;
  } = {},
): Promise<void> {
  await migrate(url, { log: opts.log });
  await maintainSpanPartitions(url, { now: opts.now });
  const advice = await collationAdvice(url, opts.dataDir).catch(
    () => null, // only advice: never a reason not to start
  );
  if (advice) opts.log?.(advice);
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

/** Whether the server at `url` is a standby (in recovery); false when it cannot tell (the caller's own steps report that). */
export async function inRecovery(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r');
    return rows[0]?.r === true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
