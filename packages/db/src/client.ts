import { PrismaPg } from '@prisma/adapter-pg';
import { Prisma, PrismaClient } from './generated/prisma/client.ts';

export type { PrismaClient };

/** Prisma's SQL tag: a parameterised fragment that `$queryRaw` templates can embed. */
export const sql = Prisma.sql;
export type Sql = Prisma.Sql;

/** A Prisma client over node-postgres (driver adapter; no native query engine). */
export function createPrisma(connectionString: string, opts: { max?: number } = {}): PrismaClient {
  // 10 connections: the web app's pages run a handful of queries in parallel.
  const adapter = new PrismaPg({ connectionString, max: opts.max ?? 10 });
  return new PrismaClient({ adapter });
}
