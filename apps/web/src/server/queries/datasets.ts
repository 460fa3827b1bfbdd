import 'server-only';
import type { PrismaClient } from '@guardtrace/db';
import type { Queryable } from '@guardtrace/db/datasets';

/** The web app's Prisma client as the Queryable packages/db/src/datasets.ts runs on. */
export function prismaQueryable(db: PrismaClient): Queryable {
  return { query: <T>(text: string, values: unknown[] = []) => db.$queryRawUnsafe<T[]>(text, ...values) };
}
