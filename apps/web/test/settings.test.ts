import { hashApiKey, listAudit } from '@guardtrace/db';
import { describe, expect, it } from 'vitest';
import { createProjectKey, getProjectSettings, revokeProjectKey, setCleanSampleRate, setRetentionDays } from '../src/server/queries/settings.ts';
import { setupTestDatabase } from './db.ts';
import { seedProject } from './factories.ts';

const db = setupTestDatabase();

describe('project settings', () => {
  it('sets the clean-session sample rate of one project only, within 0..1', async () => {
    const prisma = db.prisma();
    const mine = await seedProject(prisma);
    const theirs = await seedProject(prisma);
    expect(await setCleanSampleRate(prisma, mine.id, 0.25)).toBe(true);
    expect((await getProjectSettings(prisma, mine.id))!.cleanSampleRate).toBe(0.25);
    expect((await getProjectSettings(prisma, theirs.id))!.cleanSampleRate).toBe(1);
    await expect(setCleanSampleRate(prisma, mine.id, 1.5)).rejects.toThrow(/between 0 and 1/);
    expect(await setCleanSampleRate(prisma, '00000000-0000-4000-8000-000000000000', 0.5)).toBe(false);
  });

  it('stores the retention of one project only, and clears it back to the default', async () => {
    const prisma = db.prisma();
    const mine = await seedProject(prisma);
    const theirs = await seedProject(prisma);
    expect((await getProjectSettings(prisma, mine.id))!.retentionDays).toBeNull();
    expect(await setRetentionDays(prisma, mine.id, 14)).toBe(true);
    expect((await getProjectSettings(prisma, mine.id))!.retentionDays).toBe(14);
    expect((await getProjectSettings(prisma, theirs.id))!.retentionDays).toBeNull();
    expect(await setRetentionDays(prisma, mine.id, null)).toBe(true);
    expect((await getProjectSettings(prisma, mine.id))!.retentionDays).toBeNull();
    for (const bad of [0, 1.5, 3651]) await expect(setRetentionDays(prisma, mine.id, bad)).rejects.toThrow(/whole number of days from 1 to 3650/);
    expect(await setRetentionDays(prisma, '00000000-0000-4000-8000-000000000000', 7)).toBe(false);
  });

  it('creates a key shown once and stored hashed, and lists it with its prefix only', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const created = await createProjectKey(prisma, project.id, 'ci agents');
    expect(created!.key.startsWith(created!.prefix)).toBe(true);
    const stored = await prisma.apiKey.findFirstOrThrow({ where: { projectId: project.id } });
    expect(stored.hash).toBe(hashApiKey(created!.key));
    const settings = await getProjectSettings(prisma, project.id);
    expect(settings!.keys).toEqual([expect.objectContaining({ name: 'ci agents', prefix: created!.prefix, revokedAt: null })]);
    expect(JSON.stringify(settings)).not.toContain(created!.key);
  });

  it('revokes only keys of the given project, once', async () => {
    const prisma = db.prisma();
    const mine = await seedProject(prisma);
    const theirs = await seedProject(prisma);
    await createProjectKey(prisma, theirs.id, 'theirs');
    const theirKey = (await getProjectSettings(prisma, theirs.id))!.keys[0]!;

    expect(await revokeProjectKey(prisma, mine.id, theirKey.id)).toBe(false);
    expect((await getProjectSettings(prisma, theirs.id))!.keys[0]!.revokedAt).toBeNull();
    expect(await revokeProjectKey(prisma, theirs.id, theirKey.id)).toBe(true);
    expect(await revokeProjectKey(prisma, theirs.id, theirKey.id)).toBe(false);
    expect((await getProjectSettings(prisma, theirs.id))!.keys[0]!.revokedAt).not.toBeNull();
  });
});

describe('the audit log of settings changes', () => {
  it('records key creation and revocation and sampling changes with who made them, and no secret', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const actor = { id: 'acct-1', email: 'ops@example.test' };
    const created = await createProjectKey(prisma, project.id, 'ci', actor);
    const keyId = (await getProjectSettings(prisma, project.id))!.keys[0]!.id;
    await revokeProjectKey(prisma, project.id, keyId, actor);
    await setCleanSampleRate(prisma, project.id, 0.5, actor);
    // Unchanged: nothing to log.
    await setCleanSampleRate(prisma, project.id, 0.5, actor);
    const log = await listAudit(prisma, project.id);
    expect(log.map((e) => [e.action, e.actorEmail])).toEqual([
      ['sampling.changed', actor.email],
      ['key.revoked', actor.email],
      ['key.created', actor.email],
    ]);
    expect(log[0]!.details).toEqual({ from: 1, to: 0.5 });
    expect(log[2]!.target).toBe(`ci (${created!.prefix}…)`);
    expect(JSON.stringify(log)).not.toContain(created!.key);
  });

  it('records retention set and cleared with who did it, and nothing when it is set to what it was', async () => {
    const prisma = db.prisma();
    const project = await seedProject(prisma);
    const other = await seedProject(prisma);
    const actor = { id: 'acct-2', email: 'owner@example.test' };
    await setRetentionDays(prisma, project.id, 30, actor);
    await setRetentionDays(prisma, project.id, 30, actor);
    await setRetentionDays(prisma, project.id, null, actor);
    const log = await listAudit(prisma, project.id);
    expect(log.map((e) => [e.action, e.actorEmail, e.details])).toEqual([
      ['retention.changed', actor.email, { from: 30, to: null }],
      ['retention.changed', actor.email, { from: null, to: 30 }],
    ]);
    expect(await listAudit(prisma, other.id)).toEqual([]);
  });
});
