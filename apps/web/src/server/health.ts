import 'server-only';
import { LATEST_MIGRATION, type PrismaClient } from '@guardtrace/db';
import { db } from './db';

// 2 s: a health checker's own timeout is usually 5 s; a database slower than this is not ready.
const CHECK_TIMEOUT_MS = 2_000;

/** What /readyz says: ready, no answer from the database, or a database without this build's newest migration. */
export type Readiness = 'ready' | 'database unavailable' | 'database schema is behind this build: run the migrator (node dist/migrate.js)';

/**
 * Whether the database answers within CHECK_TIMEOUT_MS and has this build's newest migration
 * (LATEST_MIGRATION): a web build ahead of its schema would fail its pages with "table does not
 * exist" while reporting ready.
 */
export async function checkDatabase(prisma: PrismaClient = db()): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'database unavailable'>((resolve) => {
    timer = setTimeout(() => resolve('database unavailable'), CHECK_TIMEOUT_MS);
  });
  const check = async (): Promise<Readiness> => {
    try {
      await prisma.$queryRaw`SELECT 1`;
    } catch {
      return 'database unavailable';
    }
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
