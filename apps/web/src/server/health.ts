import 'server-only';
import type { PrismaClient } from '@guardtrace/db';
import { db } from './db';

// 2 s: a health checker's own timeout is usually 5 s; a database slower than this is not ready.
const CHECK_TIMEOUT_MS = 2_000;

/** Whether the database answers a trivial query within CHECK_TIMEOUT_MS. */
export async function checkDatabase(prisma: PrismaClient = db()): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([prisma.$queryRaw`SELECT 1`.then(() => true as const), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
