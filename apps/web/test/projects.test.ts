import { describe, expect, it } from 'vitest';
import { resolveProject } from '../src/server/queries/projects.ts';
import { setupTestDatabase } from './db.ts';
import { seedProject } from './factories.ts';

const db = setupTestDatabase();

describe('resolveProject', () => {
  it('has no current project in an empty database', async () => {
    expect(await resolveProject(db.prisma(), undefined)).toEqual({ current: null, projects: [], unknownRequested: false });
  });

  it('defaults to the oldest project and honours an explicit one', async () => {
    const prisma = db.prisma();
    const newer = await seedProject(prisma, 'newer', new Date('2026-02-01T00:00:00Z'));
    const oldest = await seedProject(prisma, 'oldest', new Date('2026-01-01T00:00:00Z'));

    const byDefault = await resolveProject(prisma, undefined);
    expect(byDefault.current?.id).toBe(oldest.id);
    expect(byDefault.projects.map((p) => p.name)).toEqual(['oldest', 'newer']);
    expect((await resolveProject(prisma, newer.id)).current?.name).toBe('newer');
  });

  it('flags an unknown project instead of falling back to another one', async () => {
    const selection = await resolveProject(db.prisma(), '00000000-0000-4000-8000-000000000000');
    expect(selection.current).toBeNull();
    expect(selection.unknownRequested).toBe(true);
  });
});
