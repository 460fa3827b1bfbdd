import 'server-only';
import { createPrisma, type PrismaClient } from '@guardtrace/db';
import { serverEnv } from '@/env';

// One client per server process, kept on globalThis: dev reloads do not leak pools, and the
// production build's two graphs (pages, route handlers), each with its own copy of this module
// and of @guardtrace/db, share it (queryArrays finds its settings on the client itself).
const globalForDb = globalThis as unknown as { guardtracePrisma?: PrismaClient };

export function db(): PrismaClient {
  globalForDb.guardtracePrisma ??= createPrisma(serverEnv().DATABASE_URL);
  return globalForDb.guardtracePrisma;
}
