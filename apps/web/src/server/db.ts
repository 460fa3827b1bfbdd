import 'server-only';
import { createPrisma, type PrismaClient } from '@guardtrace/db';
import { serverEnv } from '@/env';

// One client per server process; kept on globalThis so dev reloads do not leak pools.
const globalForDb = globalThis as unknown as { guardtracePrisma?: PrismaClient };

export function db(): PrismaClient {
  globalForDb.guardtracePrisma ??= createPrisma(serverEnv().DATABASE_URL);
  return globalForDb.guardtracePrisma;
}
