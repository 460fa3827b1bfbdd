import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client.ts';

export type { PrismaClient };

/** A Prisma client over node-postgres (driver adapter; no native query engine). */
export function createPrisma(connectionString: string, opts: { max?: number } = {}): PrismaClient {
  // 10 connections: the web app's pages run a handful of queries in parallel.
  const adapter = new PrismaPg({ connectionString, max: opts.max ?? 10 });
  return new PrismaClient({ adapter });
}
