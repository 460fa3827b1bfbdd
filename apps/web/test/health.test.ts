import { createPrisma } from '@guardtrace/db';
import { freePort } from '@guardtrace/db/dev';
import { describe, expect, it } from 'vitest';
import { checkDatabase } from '../src/server/health.ts';
import { setupTestDatabase } from './db.ts';

const { prisma } = setupTestDatabase();

describe('readiness (/readyz)', () => {
  it('is ready when the database answers', async () => {
    // Connected first: the check's 2 s bound is for a query, and a first connection on a
    // loaded test machine (a new pool, a scram handshake) can take longer than that.
    await prisma().$queryRaw`SELECT 1`;
    expect(await checkDatabase(prisma())).toBe(true);
  });

  it('is not ready, and does not throw, when nothing listens at DATABASE_URL', async () => {
    // A port that was free a moment ago: nothing listens there.
    const gone = createPrisma(`postgres://guardtrace@127.0.0.1:${await freePort()}/none`, { max: 1 });
    try {
      expect(await checkDatabase(gone)).toBe(false);
    } finally {
      await gone.$disconnect().catch(() => {});
    }
  });
});
