import { createPrisma, type PrismaClient } from '@guardtrace/db';
import { createTestDatabase, type TestDatabase } from '@guardtrace/db/dev';
import { afterAll, beforeAll } from 'vitest';

/** A fresh migrated database for the calling test file, with a Prisma client on it. */
export function setupTestDatabase(): { prisma: () => PrismaClient; url: () => string } {
  let database: TestDatabase | undefined;
  let client: PrismaClient | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    client = createPrisma(database.url, { max: 4 });
  });
  afterAll(async () => {
    await client?.$disconnect();
    await database?.close();
  });
  return {
    url: () => {
      if (!database) throw new Error('test database not started');
      return database.url;
    },
    prisma: () => {
      if (!client) throw new Error('test database not started');
      return client;
    },
  };
}
