/** The collector's Postgres pool, and how to tell "database unavailable" from "bad data". */
import pg from 'pg';

export interface PoolOptions {
  /** Connections: one writer transaction at a time, plus key lookups and health checks. */
  max?: number;
  log?: (msg: string, err: unknown) => void;
}

export function createPool(connectionString: string, opts: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    // 4: the writer holds one, key lookups / sampling / readyz share the rest.
    max: opts.max ?? 4,
    // 2 s: a local Postgres connects in ms; failing fast turns an outage into a quick 503.
    connectionTimeoutMillis: 2_000,
    // 30 s: no single batch transaction takes that long; frees a writer lane stuck on a hung server (requests
    // themselves stop waiting after dbTimeoutMs, and lookups pass a shorter query_timeout of their own).
    query_timeout: 30_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its server emits here; without a listener the process would crash.
  pool.on('error', (err) => opts.log?.('idle Postgres client error', err));
  // A checked-out client whose server goes away emits 'error' outside any query; unhandled, that
  // would crash the process. The query in flight still rejects, and the writer answers 503.
  pool.on('connect', (client) => {
    client.on('error', (err) => opts.log?.('Postgres connection lost', err));
  });
  return pool;
}

/** A query whose client-side read timeout is `ms` (pg honours query_timeout per query; its types omit it). */
export function timedQuery(text: string, values: unknown[], ms: number | undefined): pg.QueryConfig {
  return { text, values, query_timeout: ms } as pg.QueryConfig;
}

/**
 * `work`, or a rejection with `onTimeout()` once `ms` have passed (the work itself goes on and
 * its outcome is dropped): how a request stops waiting for a database that does not answer.
 */
export function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  work.catch(() => {});
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up / shutting down)
  '53300', // too_many_connections
  '40001', // serialization_failure: retry later
  '40P01', // deadlock_detected: retry later
]);
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH']);

/**
 * True when Postgres aborted the transaction for its clash with another one (a deadlock victim, a
 * serialization failure): running it again alone is what the Postgres docs advise.
 */
export function isConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/** True when the error says "the database is not there right now", not "this data is wrong". */
export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  if (typeof e.code === 'string') {
    if (UNAVAILABLE_SQLSTATES.has(e.code) || UNAVAILABLE_ERRNOS.has(e.code) || e.code.startsWith('08')) return true;
  }
  const msg = e.message ?? '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout|connection is closed|the database system is/i.test(
    msg,
  );
}
