import { describe, expect, it } from 'vitest';
import { sameFailureNav } from '../src/server/queries/same-failure.ts';
import { setupTestDatabase } from './db.ts';
import { seedProject, seedSession } from './factories.ts';

const db = setupTestDatabase();

/** A session whose create_file call failed its schema check at `pointers` with `failureClass`. */
const failing = (startedAt: string, pointers: string[], opts: { tool?: string; failureClass?: string } = {}) => ({
  startedAt: new Date(startedAt),
  toolCalls: [
    {
      toolName: opts.tool ?? 'create_file',
      atMs: 10,
      attempts: [
        {
          outcome: 'rejected' as const,
          failureClass: opts.failureClass ?? 'invalid_arguments',
          arguments: '{"filepath":"a"}',
          guards: [{ guardName: 'schema', stage: 'schema', verdict: 'fail' as const, failedPointers: pointers }],
        },
        { outcome: 'success' as const, arguments: '{"path":"a"}' },
      ],
    },
  ],
});

describe('next session with the same failure', () => {
  it('steps by session start through the project sessions with the same tool, class and field, and counts them', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const other = await seedProject(prisma);
    const a = await seedSession(prisma, project.id, failing('2026-11-20T09:00:00Z', ['/path', '/filepath']));
    await seedSession(prisma, project.id, failing('2026-11-20T09:30:00Z', ['/content']));
    await seedSession(prisma, project.id, failing('2026-11-20T09:40:00Z', ['/path'], { failureClass: 'missing_resource' }));
    await seedSession(prisma, project.id, failing('2026-11-20T09:45:00Z', ['/path'], { tool: 'read_file' }));
    await seedSession(prisma, other.id, failing('2026-11-20T09:50:00Z', ['/path']));
    const b = await seedSession(prisma, project.id, failing('2026-11-20T10:00:00Z', ['/path']));
    // same start as b: the id breaks the tie, so neither is skipped
    const c = await seedSession(prisma, project.id, { ...failing('2026-11-20T10:00:00Z', ['/path']), id: `${b.id}z` });
    const sig = { toolName: 'create_file', failureClass: 'invalid_arguments', pointer: '/path' };

    expect(await sameFailureNav(prisma, project.id, a.id, sig)).toEqual({ position: 1, total: 3, previous: null, next: { id: b.id, startedAt: '2026-11-20T10:00:00.000Z' } });
    expect(await sameFailureNav(prisma, project.id, b.id, sig)).toMatchObject({ position: 2, total: 3, previous: { id: a.id }, next: { id: c.id } });
    expect(await sameFailureNav(prisma, project.id, c.id, sig)).toMatchObject({ position: 3, total: 3, previous: { id: b.id }, next: null });
    // without a field: any create_file invalid_arguments failure
    expect(await sameFailureNav(prisma, project.id, a.id, { ...sig, pointer: null })).toMatchObject({ total: 4 });
    // another project's session id is not found from this project
    expect(await sameFailureNav(prisma, other.id, a.id, sig)).toBeNull();
  });
});
