import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { Prisma, PrismaClient } from './generated/prisma/client.ts';

export type { PrismaClient };

/** Prisma's SQL tag: a parameterised fragment that `$queryRaw` templates can embed. */
export const sql = Prisma.sql;
export type Sql = Prisma.Sql;

/** The driver pool behind queryArrays for one client: made on first use, ended with the client. */
interface ArrayPool {
  config: pg.PoolConfig;
  pool: pg.Pool | null;
}
/**
 * Where a client made by createPrisma keeps its ArrayPool: on the client itself, under a key
 * shared by every copy of this module in the process (`Symbol.for`). A module-level map would
 * be one per copy, and Next's production build holds this module twice (the route handlers'
 * graph and the pages' graph): a client made by one copy was then unknown to the other's
 * queryArrays, for the life of the process.
 */
const ARRAY_POOL = Symbol.for('guardtrace.db.queryArrays.pool');
type WithArrayPool = PrismaClient & { [ARRAY_POOL]?: ArrayPool };

/** A Prisma client over node-postgres (driver adapter; no native query engine). */
export function createPrisma(connectionString: string, opts: { max?: number; connectionTimeoutMillis?: number; queryTimeoutMillis?: number } = {}): PrismaClient {
  // 10 connections: the web app's pages run a handful of queries in parallel.
  const max = opts.max ?? 10;
  // node-postgres waits for a connection, and for a query's answer, without limit by default; a
  // replica's client sets both (a server that stops answering would hold its reads for ever).
  const timeout = {
    ...(opts.connectionTimeoutMillis === undefined ? {} : { connectionTimeoutMillis: opts.connectionTimeoutMillis }),
    ...(opts.queryTimeoutMillis === undefined ? {} : { query_timeout: opts.queryTimeoutMillis }),
  };
  const adapter = new PrismaPg({ connectionString, max, ...timeout });
  const client = new PrismaClient({ adapter });
  const own: ArrayPool = { config: { connectionString, max, ...timeout }, pool: null };
  // Not enumerable: it stays out of what inspects or spreads the client.
  Object.defineProperty(client, ARRAY_POOL, { value: own });
  const disconnect = client.$disconnect.bind(client);
  // `$disconnect()` ends queryArrays' connections too; a later call opens new ones, as Prisma does.
  client.$disconnect = async () => {
    const pool = own.pool;
    own.pool = null;
    await Promise.all([disconnect(), pool?.end()]);
  };
  return client;
}

/**
 * The rows of `query` as positional arrays, each value as node-postgres parses it by default
 * (int4 and float8 as numbers, bool, json and jsonb parsed; int8 and numeric as text).
 *
 * For reads of thousands of rows: `$queryRaw` turns every value into Prisma's representation and
 * back, and a `json_agg` of the rows makes Postgres escape, and Node decode, one large text.
 * Plain rows from the driver took about half the time of the latter for a 6,629-span session
 * (apps/web/bench/notes.md, "Replay data route"). They go through a pool of their own, as large
 * as the client's, so Prisma's connections and its adapter stay as they are.
 */
export async function queryArrays(db: PrismaClient, query: Sql): Promise<unknown[][]> {
  // Its own property only: an object derived from a client (Object.create) is not that client.
  const own = Object.hasOwn(db, ARRAY_POOL) ? (db as WithArrayPool)[ARRAY_POOL] : undefined;
  if (!own) throw new Error('queryArrays: the client was not made by createPrisma (no connection settings to query with)');
  if (!own.pool) {
    own.pool = new pg.Pool(own.config);
    // A connection that drops while idle is discarded by the pool; without a listener it would crash the process.
    own.pool.on('error', () => {});
  }
  const result = await own.pool.query<unknown[]>({ text: query.text, values: query.values as unknown[], rowMode: 'array' });
  return result.rows;
}
