import 'server-only';
import { createPrisma, type PrismaClient, type ReadChoice, ReadRouter } from '@guardtrace/db';
import { cache } from 'react';
import { serverEnv } from '@/env';

// One client per server process, kept on globalThis: dev reloads do not leak pools, and the
// production build's two graphs (pages, route handlers), each with its own copy of this module
// and of @guardtrace/db, share it (queryArrays finds its settings on the client itself).
const globalForDb = globalThis as unknown as { guardtracePrisma?: PrismaClient; guardtraceReplica?: PrismaClient; guardtraceReads?: ReadRouter };

/**
 * The primary (DATABASE_URL): settings, accounts, audit, every write, and every read of what a
 * person has just written (read-your-writes). Heavy reads go through `heavyRead`.
 */
export function db(): PrismaClient {
  globalForDb.guardtracePrisma ??= createPrisma(serverEnv().DATABASE_URL);
  return globalForDb.guardtracePrisma;
}

// 3 s: a replica that does not accept a connection in that time is treated as down (its reads go
// to the primary) rather than holding a page until the operating system gives up.
const REPLICA_CONNECT_TIMEOUT_MS = 3000;
// 20 s: a read sent to a replica that then stops answering (frozen, cut off) fails after this and
// runs again on the primary (it waited for ever); above what the heavy reads take at 500k sessions.
const REPLICA_QUERY_TIMEOUT_MS = 20_000;

/** What the log says when heavy reads move between the replica and the primary. */
function logReads(choice: ReadChoice): void {
  const why = {
    unreachable: 'the replica did not answer (or answered with an error)',
    lagging: `the replica is more than GUARDTRACE_READ_MAX_LAG_SECONDS (${serverEnv().GUARDTRACE_READ_MAX_LAG_SECONDS} s) behind`,
    not_a_replica:
      'DATABASE_READ_URL is not a standby of DATABASE_URL (another cluster, or a server no longer in recovery: a promoted standby does not follow the primary)',
  } as const;
  if (choice.source === 'replica') console.log(`[guardtrace] heavy reads: DATABASE_READ_URL (a standby of DATABASE_URL, ${Math.round(choice.lagMs / 1000)} s behind)`);
  else if (choice.fallback) console.warn(`[guardtrace] heavy reads: DATABASE_URL, as ${why[choice.fallback]}`);
}

function reads(): ReadRouter {
  if (!globalForDb.guardtraceReads) {
    const env = serverEnv();
    if (env.DATABASE_READ_URL) {
      globalForDb.guardtraceReplica = createPrisma(env.DATABASE_READ_URL, {
        connectionTimeoutMillis: REPLICA_CONNECT_TIMEOUT_MS,
        queryTimeoutMillis: REPLICA_QUERY_TIMEOUT_MS,
      });
    }
    globalForDb.guardtraceReads = new ReadRouter({
      primary: db(),
      replica: globalForDb.guardtraceReplica,
      maxLagMs: env.GUARDTRACE_READ_MAX_LAG_SECONDS * 1000,
      onChange: logReads,
    });
  }
  return globalForDb.guardtraceReads;
}

/** Where this request's heavy reads go: one check of the replica per page render (React cache). */
const readChoice = cache((): Promise<ReadChoice> => reads().choose());

interface HeavyReadOptions<T> {
  orPrimaryWhen?: (value: T) => boolean;
  /** The server an earlier read of the same answer came from (default: this request's choice). */
  choice?: ReadChoice;
}

/**
 * A heavy read (explorer, replay, analytics): on DATABASE_READ_URL's replica while it is no more
 * than GUARDTRACE_READ_MAX_LAG_SECONDS behind, else on the primary (ReadRouter). `orPrimaryWhen`
 * names an answer the replica may give only for lack of a recent write (a session not found):
 * the primary is asked then.
 */
export async function heavyRead<T>(read: (db: PrismaClient) => Promise<T>, opts: HeavyReadOptions<T> = {}): Promise<T> {
  return (await heavyReadFrom(read, opts)).value;
}

/** heavyRead, with the server the answer came from (for reads that must continue on the same one). */
export async function heavyReadFrom<T>(read: (db: PrismaClient) => Promise<T>, opts: HeavyReadOptions<T> = {}): Promise<{ value: T; choice: ReadChoice }> {
  return reads().read(read, { ...opts, choice: opts.choice ?? (await readChoice()) });
}

/** How far behind the primary the data of this request's heavy reads (or of `read`) is, when worth saying. */
export async function replicaLagNotice(read?: ReadChoice): Promise<{ lagMs: number } | null> {
  const choice = read ?? (await readChoice());
  if (choice.source !== 'replica') return null;
  return choice.lagMs > serverEnv().GUARDTRACE_READ_LAG_NOTICE_SECONDS * 1000 ? { lagMs: choice.lagMs } : null;
}
