import 'server-only';
import { LATEST_MIGRATION, type PrismaClient } from '@guardtrace/db';
import { connectionProblem } from '@guardtrace/db/database-url';
import { serverEnv } from '@/env';
import { db } from './db';

/** The last reason logged, so that a check every few seconds logs a failure once, and again when it changes. */
let logged: string | null = null;

/** Says on stderr why the database is unavailable (the response says only that it is: /readyz is public). */
function logReason(reason: string | null): void {
  if (reason === logged) return;
  logged = reason;
  if (reason !== null) console.error(`[web] /readyz: database unavailable: ${reason}`);
}

// 2 s: a health checker's own timeout is usually 5 s; a database slower than this is not ready.
const CHECK_TIMEOUT_MS = 2_000;

/** What /readyz says: ready, no answer from the database, or a database without this build's newest migration. */
export type Readiness = 'ready' | 'database unavailable' | 'database schema is behind this build: run the migrator (node dist/migrate.js)';

/**
 * Whether the database answers within CHECK_TIMEOUT_MS and has this build's newest migration
 * (LATEST_MIGRATION): a web build ahead of its schema would fail its pages with "table does not
 * exist" while reporting ready. Why it does not answer (a refused password, a missing database,
 * nothing listening) goes to stderr, once a reason; `url`: the one `prisma` connects to (DATABASE_URL).
 */
export async function checkDatabase(prisma: PrismaClient = db(), url?: string): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'database unavailable'>((resolve) => {
    timer = setTimeout(() => {
      logReason(`no answer within ${CHECK_TIMEOUT_MS / 1000} s`);
      resolve('database unavailable');
    }, CHECK_TIMEOUT_MS);
  });
  const check = async (): Promise<Readiness> => {
    try {
      await prisma.$queryRaw`SELECT 1`;
    } catch (err) {
      logReason(connectionProblem(err, url ?? serverEnv().DATABASE_URL) ?? (err instanceof Error ? err.message : String(err)));
      return 'database unavailable';
    }
    logReason(null);
    try {
      const rows = await prisma.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM "_prisma_migrations"
        WHERE migration_name = ${LATEST_MIGRATION} AND finished_at IS NOT NULL AND rolled_back_at IS NULL`;
      if ((rows[0]?.n ?? 0) > 0) return 'ready';
    } catch {
      // No migrations table at all: a database nothing has migrated yet.
    }
    return 'database schema is behind this build: run the migrator (node dist/migrate.js)';
  };
  try {
    return await Promise.race([check(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
