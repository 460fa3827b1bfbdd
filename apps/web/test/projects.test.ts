import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@guardtrace/db';
import { describe, expect, it } from 'vitest';
import { resolveProject } from '../src/server/queries/projects.ts';
import { setupTestDatabase } from './db.ts';
import { seedProject } from './factories.ts';

const db = setupTestDatabase();

async function account(prisma: PrismaClient, memberOf: { id: string; role?: string }[] = []) {
  const id = randomUUID();
  await prisma.authUser.create({ data: { id, name: 'a', email: `${id}@example.test` } });
  for (const p of memberOf) await prisma.projectMember.create({ data: { projectId: p.id, userId: id, role: p.role ?? 'viewer' } });
  return id;
}

describe('resolveProject', () => {
  it('has no current project for an account without memberships, whatever projects exist', async () => {
    await seedProject(db.prisma());
    const nobody = await account(db.prisma());
    expect(await resolveProject(db.prisma(), nobody, undefined)).toEqual({ current: null, projects: [], unknownRequested: false });
  });

  it("defaults to the account's oldest project and honours an explicit one, with the account's role", async () => {
    const prisma = db.prisma();
    const newer = await seedProject(prisma, 'newer', new Date('2026-02-01T00:00:00Z'));
    const oldest = await seedProject(prisma, 'oldest', new Date('2026-01-01T00:00:00Z'));
    const me = await account(prisma, [{ id: newer.id, role: 'member' }, { id: oldest.id, role: 'owner' }]);

    const byDefault = await resolveProject(prisma, me, undefined);
    expect(byDefault.current).toMatchObject({ id: oldest.id, role: 'owner' });
    expect(byDefault.projects.map((p) => p.name)).toEqual(['oldest', 'newer']);
    expect((await resolveProject(prisma, me, newer.id)).current).toMatchObject({ name: 'newer', role: 'member' });
  });

  it("flags an unknown project, and another account's project, alike: never a fallback to another one", async () => {
    const prisma = db.prisma();
    const mine = await seedProject(prisma);
    const theirs = await seedProject(prisma);
    const me = await account(prisma, [{ id: mine.id }]);
    await account(prisma, [{ id: theirs.id, role: 'owner' }]);
    for (const requested of ['00000000-0000-4000-8000-000000000000', theirs.id]) {
      const selection = await resolveProject(prisma, me, requested);
      expect(selection.current).toBeNull();
      expect(selection.unknownRequested).toBe(true);
      expect(selection.projects.map((p) => p.id)).toEqual([mine.id]);
    }
  });
});
