import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acceptInvitation,
  allows,
  changeRole,
  consumeSignInLink,
  createSignInLink,
  ensureOwner,
  signInLinkPath,
  createInvitation,
  createOwnedProject,
  deleteProject,
  listAudit,
  listMembers,
  MembershipError,
  peekInvitation,
  projectsOf,
  recordAudit,
  removeMember,
  renameProject,
  revokeInvitation,
  roleIn,
} from '../src/index.ts';
import { createPrisma, type PrismaClient } from '../src/client.ts';
import { createTestDatabase, type TestDatabase } from '../src/dev.ts';

let db: TestDatabase;
let prisma: PrismaClient;
beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url, { max: 4 });
});
afterAll(async () => {
  await prisma?.$disconnect();
  await db?.close();
});

async function account(label: string) {
  const id = randomUUID();
  const email = `${label}-${id.slice(0, 8)}@example.test`;
  await prisma.authUser.create({ data: { id, name: label, email } });
  return { id, email };
}

describe('roles', () => {
  it('viewers read, members also manage keys, sampling, retention and read the audit log, owners also manage members', () => {
    expect(allows('viewer', 'read')).toBe(true);
    for (const c of ['manageKeys', 'manageSampling', 'manageRetention', 'managePrices', 'manageAlerts', 'manageDatasets', 'readAudit', 'manageMembers', 'manageProject'] as const) {
      expect(allows('viewer', c), c).toBe(false);
    }
    for (const c of ['read', 'manageKeys', 'manageSampling', 'manageRetention', 'managePrices', 'manageAlerts', 'manageDatasets', 'readAudit'] as const) expect(allows('member', c), c).toBe(true);
    expect(allows('member', 'manageMembers')).toBe(false);
    expect(allows('member', 'manageProject')).toBe(false);
    expect(allows('owner', 'manageMembers')).toBe(true);
    expect(allows(null, 'read')).toBe(false);
  });
});

describe('projects and memberships', () => {
  it('an account sees only the projects it belongs to, with its role', async () => {
    const alice = await account('alice');
    const bob = await account('bob');
    const a = await createOwnedProject(prisma, '  Alpha  ', alice);
    const b = await createOwnedProject(prisma, 'Beta', bob);
    expect(a.name).toBe('Alpha');
    expect((await projectsOf(prisma, alice.id)).map((p) => [p.id, p.role])).toEqual([[a.id, 'owner']]);
    expect(await roleIn(prisma, alice.id, b.id)).toBeNull();
    expect(await roleIn(prisma, alice.id, 'not-a-uuid')).toBeNull();
    expect(await roleIn(prisma, bob.id, b.id)).toBe('owner');
    await expect(createOwnedProject(prisma, ' ', alice)).rejects.toThrow(/1 to 80 characters/);
  });

  it('an invitation link works once, for its role, and is logged', async () => {
    const owner = await account('owner');
    const guest = await account('guest');
    const other = await account('other');
    const p = await createOwnedProject(prisma, 'Invites', owner);
    const inv = await createInvitation(prisma, p.id, 'viewer', owner);
    expect(await peekInvitation(prisma, inv.token)).toEqual({ projectName: 'Invites', role: 'viewer' });
    const [first, second] = await Promise.all([acceptInvitation(prisma, inv.token, guest), acceptInvitation(prisma, inv.token, other)]);
    // Exactly one of two simultaneous uses gets in.
    expect([first, second].filter(Boolean)).toHaveLength(1);
    const joined = first ? guest : other;
    expect(await roleIn(prisma, joined.id, p.id)).toBe('viewer');
    expect(await acceptInvitation(prisma, inv.token, joined)).toBeNull();
    expect(await peekInvitation(prisma, inv.token)).toBeNull();
    expect(await acceptInvitation(prisma, 'made-up-token', guest)).toBeNull();
    const actions = (await listAudit(prisma, p.id)).map((e) => e.action);
    expect(actions).toEqual(['member.joined', 'member.invited', 'project.created']);
  });

  it('an expired or revoked invitation lets nobody in', async () => {
    const owner = await account('owner');
    const guest = await account('guest');
    const p = await createOwnedProject(prisma, 'Expiry', owner);
    const expired = await createInvitation(prisma, p.id, 'member', owner, -1);
    expect(await acceptInvitation(prisma, expired.token, guest)).toBeNull();
    const revoked = await createInvitation(prisma, p.id, 'member', owner);
    expect(await revokeInvitation(prisma, p.id, revoked.id, owner)).toBe(true);
    expect(await acceptInvitation(prisma, revoked.token, guest)).toBeNull();
    expect(await roleIn(prisma, guest.id, p.id)).toBeNull();
  });

  it('role changes and removals are logged, and the last owner stays', async () => {
    const owner = await account('owner');
    const m = await account('member');
    const p = await createOwnedProject(prisma, 'Roles', owner);
    await acceptInvitation(prisma, (await createInvitation(prisma, p.id, 'member', owner)).token, m);
    await expect(changeRole(prisma, p.id, owner.id, 'member', owner)).rejects.toBeInstanceOf(MembershipError);
    await expect(removeMember(prisma, p.id, owner.id, owner)).rejects.toThrow(/at least one owner/);
    await changeRole(prisma, p.id, m.id, 'owner', owner);
    await changeRole(prisma, p.id, owner.id, 'viewer', m);
    await removeMember(prisma, p.id, owner.id, m);
    expect((await listMembers(prisma, p.id)).map((x) => [x.email, x.role])).toEqual([[m.email, 'owner']]);
    await renameProject(prisma, p.id, 'Roles 2', m);
    const log = await listAudit(prisma, p.id);
    expect(log.slice(0, 4).map((e) => [e.action, e.target, e.actorEmail])).toEqual([
      ['project.renamed', 'Roles 2', m.email],
      ['member.removed', owner.email, m.email],
      ['member.role_changed', owner.email, m.email],
      ['member.role_changed', m.email, owner.email],
    ]);
    expect(log[0]?.details).toEqual({ from: 'Roles', to: 'Roles 2' });
  });

  it('the audit log pages newest first and refuses an unknown action', async () => {
    const owner = await account('owner');
    const p = await createOwnedProject(prisma, 'Paging', owner);
    for (let i = 0; i < 5; i++) await recordAudit(prisma, { projectId: p.id, actor: owner, action: 'sampling.changed', details: { to: i } });
    const first = await listAudit(prisma, p.id, { limit: 3 });
    const rest = await listAudit(prisma, p.id, { limit: 3, before: first.at(-1)?.id });
    expect([...first, ...rest].map((e) => e.action)).toEqual([...Array(5).fill('sampling.changed'), 'project.created']);
    expect(first.map((e) => (e.details as { to: number }).to)).toEqual([4, 3, 2]);
    await expect(recordAudit(prisma, { projectId: p.id, actor: owner, action: 'nope' as 'key.created' })).rejects.toThrow(/unknown action "nope"/);
  });

  it('deleting a project deletes its telemetry, keys and memberships, and nothing of other projects', async () => {
    const owner = await account('owner');
    const doomed = await createOwnedProject(prisma, 'Doomed', owner);
    const kept = await createOwnedProject(prisma, 'Kept', owner);
    for (const p of [doomed, kept]) {
      await prisma.session.create({ data: { projectId: p.id, id: 's1', startedAt: new Date('2027-02-10T09:00:00Z') } });
    }
    expect(await deleteProject(prisma, doomed.id)).toBe(true);
    expect(await prisma.session.count({ where: { projectId: doomed.id } })).toBe(0);
    expect(await prisma.session.count({ where: { projectId: kept.id } })).toBe(1);
    expect(await roleIn(prisma, owner.id, doomed.id)).toBeNull();
    expect(await prisma.auditEntry.count({ where: { projectId: doomed.id } })).toBe(0);
    expect(await deleteProject(prisma, doomed.id)).toBe(false);
  });
});

describe('first owner and sign-in links', () => {
  it('a fresh install gets an owner of every ownerless project; a sign-in link works once', async () => {
    const orphan = await prisma.project.create({ data: { id: randomUUID(), name: 'Orphan' } });
    const owner = await ensureOwner(prisma, 'First@Example.test');
    expect(owner).toMatchObject({ email: 'first@example.test', created: true });
    expect(await roleIn(prisma, owner.id, orphan.id)).toBe('owner');
    expect((await ensureOwner(prisma, 'first@example.test')).created).toBe(false);
    await expect(ensureOwner(prisma, 'not an email')).rejects.toThrow(/not an email address/);

    const link = await createSignInLink(prisma, owner.id);
    const [a, b] = await Promise.all([consumeSignInLink(prisma, link.token), consumeSignInLink(prisma, link.token)]);
    expect([a, b].filter(Boolean)).toEqual([owner.id]);
    expect(await consumeSignInLink(prisma, link.token)).toBeNull();
    const expired = await createSignInLink(prisma, owner.id, -1);
    expect(await consumeSignInLink(prisma, expired.token)).toBeNull();
    expect(signInLinkPath('a+b')).toBe('/api/auth/sign-in/link?token=a%2Bb');
  });
});
