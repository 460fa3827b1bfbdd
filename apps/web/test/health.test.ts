import { createPrisma } from '@guardtrace/db';
import { createTestDatabase, freePort } from '@guardtrace/db/dev';
import { describe, expect, it, vi } from 'vitest';
import { checkDatabase } from '../src/server/health.ts';
import { setupTestDatabase } from './db.ts';

const { prisma, url: databaseUrl } = setupTestDatabase();

describe('readiness (/readyz)', () => {
  it('is ready when the database answers', async () => {
    // Connected first: the check's 2 s bound is for a query, and a first connection on a
    // loaded test machine (a new pool, a scram handshake) can take longer than that.
    await prisma().$queryRaw`SELECT 1`;
    expect(await checkDatabase(prisma())).toBe('ready');
  });

  it('is not ready, and does not throw, when nothing listens at DATABASE_URL', async () => {
    // A port that was free a moment ago: nothing listens there.
    const url = `postgres://guardtrace@127.0.0.1:${await freePort()}/none`;
    const gone = createPrisma(url, { max: 1 });
    try {
      expect(await checkDatabase(gone, url)).toBe('database unavailable');
    } finally {
      await gone.$disconnect().catch(() => {});
    }
  });

  it('says on stderr why the database is unavailable, once a reason, never the password; the response says only that it is', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const wrong = new URL(databaseUrl());
    wrong.password = 'Not-The-Password-7';
    const bad = createPrisma(wrong.toString(), { max: 1 });
    const missing = new URL(databaseUrl());
    missing.pathname = '/no_such_database';
    const none = createPrisma(missing.toString(), { max: 1 });
    try {
      expect(await checkDatabase(bad, wrong.toString())).toBe('database unavailable');
      expect(await checkDatabase(bad, wrong.toString())).toBe('database unavailable');
      expect(await checkDatabase(none, missing.toString())).toBe('database unavailable');
      const lines = errors.mock.calls.map((c) => String(c[0]));
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^\[web\] \/readyz: database unavailable: DATABASE_URL: Postgres at [^ ]+ refused the password of user "\w+"/);
      expect(lines[1]).toMatch(/^\[web\] \/readyz: database unavailable: DATABASE_URL: database "no_such_database" does not exist/);
      expect(lines.join('\n')).not.toContain('Not-The-Password-7');
      // Answering again: said once more when it fails next.
      await prisma().$queryRaw`SELECT 1`;
      expect(await checkDatabase(prisma(), databaseUrl())).toBe('ready');
      expect(await checkDatabase(bad, wrong.toString())).toBe('database unavailable');
      expect(errors.mock.calls).toHaveLength(3);
    } finally {
      errors.mockRestore();
      await bad.$disconnect().catch(() => {});
      await none.$disconnect().catch(() => {});
    }
  });

  it('is not ready on a database this build\'s newest migration has not reached (none at all, or an older schema)', async () => {
    const bare = await createTestDatabase({ migrate: false });
    const client = createPrisma(bare.url, { max: 1 });
    try {
      expect(await checkDatabase(client)).toBe('database schema is behind this build: run the migrator (node dist/migrate.js)');
    } finally {
      await client.$disconnect().catch(() => {});
      await bare.close();
    }
    // An older schema: the newest migration's row taken out of a migrated database.
    await prisma().$executeRawUnsafe(`UPDATE "_prisma_migrations" SET migration_name = migration_name || '-moved' WHERE migration_name = (SELECT max(migration_name) FROM "_prisma_migrations")`);
    try {
      expect(await checkDatabase(prisma())).toBe('database schema is behind this build: run the migrator (node dist/migrate.js)');
    } finally {
      await prisma().$executeRawUnsafe(`UPDATE "_prisma_migrations" SET migration_name = replace(migration_name, '-moved', '') WHERE migration_name LIKE '%-moved'`);
    }
    expect(await checkDatabase(prisma())).toBe('ready');
  });
});
