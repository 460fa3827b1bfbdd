/**
 * Who may do what in a project. Every account reaches a project only through a membership
 * with a role; the web app asks `roleIn` (or `projectsOf`) before it reads or changes
 * anything of a project, and `allows` decides what the role permits.
 *
 * viewer: reads sessions, analytics and settings.
 * member: also manages API keys, sampling, retention, model prices and alert rules, and reads the audit log.
 * owner:  also manages members and invitations, renames and deletes the project.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { type AuditActor, type Db, recordAudit } from './audit.ts';
import type { PrismaClient } from './generated/prisma/client.ts';

export const ROLES = ['viewer', 'member', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** The least role each capability needs. */
const NEEDS = {
  read: 'viewer',
  manageKeys: 'member',
  manageSampling: 'member',
  manageRetention: 'member',
  managePrices: 'member',
  manageAlerts: 'member',
  manageDatasets: 'member',
  readAudit: 'member',
  manageMembers: 'owner',
  manageProject: 'owner',
} as const satisfies Record<string, Role>;
export type Capability = keyof typeof NEEDS;

export function allows(role: Role | null | undefined, capability: Capability): boolean {
  if (!role) return false;
  return ROLES.indexOf(role) >= ROLES.indexOf(NEEDS[capability]);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The account's role in the project; null when it is no member (or the project does not exist). */
export async function roleIn(db: Db, userId: string, projectId: string): Promise<Role | null> {
  if (!UUID.test(projectId)) return null;
  const m = await db.projectMember.findUnique({ where: { projectId_userId: { projectId, userId } }, select: { role: true } });
  return m && isRole(m.role) ? m.role : null;
}

export interface MemberProject {
  id: string;
  name: string;
  createdAt: Date;
  role: Role;
}

/** The projects the account belongs to, oldest first. */
export async function projectsOf(db: Db, userId: string): Promise<MemberProject[]> {
  const rows = await db.projectMember.findMany({
    where: { userId },
    select: { role: true, project: { select: { id: true, name: true, createdAt: true } } },
    orderBy: [{ project: { createdAt: 'asc' } }, { projectId: 'asc' }],
  });
  return rows.filter((r) => isRole(r.role)).map((r) => ({ ...r.project, role: r.role as Role }));
}

/** A project name as people type it: trimmed, 1 to 80 characters (a label, not a description). */
export function checkProjectName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 80) throw new RangeError('A project name has 1 to 80 characters');
  return trimmed;
}

/** A new project with `owner` as its owner. */
export async function createOwnedProject(prisma: PrismaClient, name: string, owner: AuditActor): Promise<{ id: string; name: string }> {
  const clean = checkProjectName(name);
  const id = randomUUID();
  await prisma.$transaction(async (tx) => {
    await tx.project.create({ data: { id, name: clean } });
    await tx.projectMember.create({ data: { projectId: id, userId: owner.id, role: 'owner' } });
    await recordAudit(tx, { projectId: id, actor: owner, action: 'project.created', target: clean });
  });
  return { id, name: clean };
}

export async function renameProject(prisma: PrismaClient, projectId: string, name: string, actor: AuditActor): Promise<boolean> {
  const clean = checkProjectName(name);
  return prisma.$transaction(async (tx) => {
    const before = await tx.project.findUnique({ where: { id: projectId }, select: { name: true } });
    if (!before) return false;
    if (before.name === clean) return true;
    await tx.project.update({ where: { id: projectId }, data: { name: clean } });
    await recordAudit(tx, { projectId, actor, action: 'project.renamed', target: clean, details: { from: before.name, to: clean } });
    return true;
  });
}

/**
 * Deletes the project and everything of it: keys, members, invitations and audit log by
 * cascade, and the telemetry rows of every table with a project_id column (spans, sessions,
 * derived rows, rollups: found in the catalog, so a table added later is not left behind).
 */
export async function deleteProject(prisma: PrismaClient, projectId: string): Promise<boolean> {
  if (!UUID.test(projectId)) return false;
  return prisma.$transaction(
    async (tx) => {
      const tables = await tx.$queryRaw<{ name: string }[]>`
        SELECT c.table_name AS name FROM information_schema.columns c
        JOIN pg_class t ON t.relname = c.table_name
        JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = c.table_schema
        WHERE c.table_schema = current_schema() AND c.column_name = 'project_id' AND NOT t.relispartition
          AND c.table_name <> 'projects'`;
      for (const { name } of tables) {
        // The name comes from the catalog, quoted as an identifier; the id is a bound parameter.
        await tx.$executeRawUnsafe(`DELETE FROM "${name.replaceAll('"', '""')}" WHERE project_id = $1::uuid`, projectId);
      }
      const { count } = await tx.project.deleteMany({ where: { id: projectId } });
      return count === 1;
    },
    // A big project takes a while: far past Prisma's 5 s default for interactive transactions.
    { timeout: 10 * 60_000 },
  );
}

export interface MemberRow {
  userId: string;
  email: string;
  name: string;
  role: Role;
  since: Date;
}

export async function listMembers(db: Db, projectId: string): Promise<MemberRow[]> {
  const rows = await db.projectMember.findMany({
    where: { projectId },
    select: { userId: true, role: true, createdAt: true, user: { select: { email: true, name: true } } },
    orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
  });
  return rows
    .filter((r) => isRole(r.role))
    .map((r) => ({ userId: r.userId, email: r.user.email, name: r.user.name, role: r.role as Role, since: r.createdAt }));
}

/** Why a membership change was refused. */
export class MembershipError extends Error {}

async function ownersLeft(tx: Db, projectId: string, without: string): Promise<number> {
  return tx.projectMember.count({ where: { projectId, role: 'owner', userId: { not: without } } });
}

/** Changes a member's role; a project always keeps at least one owner. */
export async function changeRole(prisma: PrismaClient, projectId: string, userId: string, role: Role, actor: AuditActor): Promise<void> {
  if (!isRole(role)) throw new MembershipError(`Unknown role "${String(role)}": expected ${ROLES.join(', ')}`);
  await prisma.$transaction(async (tx) => {
    // Locks the project's memberships in a fixed order: two owners demoting each other at
    // once cannot both pass the last-owner check.
    await tx.$queryRaw`SELECT 1 FROM project_members WHERE project_id = ${projectId}::uuid ORDER BY user_id FOR UPDATE`;
    const m = await tx.projectMember.findUnique({ where: { projectId_userId: { projectId, userId } }, include: { user: { select: { email: true } } } });
    if (!m) throw new MembershipError('No such member in this project');
    if (m.role === role) return;
    if (m.role === 'owner' && (await ownersLeft(tx, projectId, userId)) === 0) throw new MembershipError('A project keeps at least one owner: make someone else owner first');
    await tx.projectMember.update({ where: { projectId_userId: { projectId, userId } }, data: { role } });
    await recordAudit(tx, { projectId, actor, action: 'member.role_changed', target: m.user.email, details: { from: m.role, to: role } });
  });
}

/** Removes a member (or lets one leave); a project always keeps at least one owner. */
export async function removeMember(prisma: PrismaClient, projectId: string, userId: string, actor: AuditActor): Promise<void> {
  await prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT 1 FROM project_members WHERE project_id = ${projectId}::uuid ORDER BY user_id FOR UPDATE`;
    const m = await tx.projectMember.findUnique({ where: { projectId_userId: { projectId, userId } }, include: { user: { select: { email: true } } } });
    if (!m) throw new MembershipError('No such member in this project');
    if (m.role === 'owner' && (await ownersLeft(tx, projectId, userId)) === 0) throw new MembershipError('A project keeps at least one owner: make someone else owner first');
    await tx.projectMember.delete({ where: { projectId_userId: { projectId, userId } } });
    await recordAudit(tx, { projectId, actor, action: 'member.removed', target: m.user.email, details: { role: m.role } });
  });
}

// Invitations: a random token in a link, shown once in the app; only its SHA-256 is stored.

/** 7 days: long enough to pass a link on over a weekend, short enough that a lost one dies. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export async function createInvitation(
  prisma: PrismaClient,
  projectId: string,
  role: Role,
  actor: AuditActor,
  ttlMs: number = INVITATION_TTL_MS,
): Promise<{ id: string; token: string; expiresAt: Date }> {
  if (!isRole(role)) throw new MembershipError(`Unknown role "${String(role)}": expected ${ROLES.join(', ')}`);
  const token = randomBytes(32).toString('base64url');
  const id = randomUUID();
  const expiresAt = new Date(Date.now() + ttlMs);
  await prisma.$transaction(async (tx) => {
    await tx.invitation.create({ data: { id, projectId, role, tokenHash: hashToken(token), createdBy: actor.id, expiresAt } });
    await recordAudit(tx, { projectId, actor, action: 'member.invited', target: role, details: { invitation: id, expiresAt: expiresAt.toISOString() } });
  });
  return { id, token, expiresAt };
}

export interface InvitationRow {
  id: string;
  role: Role;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  acceptedBy: string | null;
  revokedAt: Date | null;
}

export async function listInvitations(db: Db, projectId: string): Promise<InvitationRow[]> {
  const rows = await db.invitation.findMany({
    where: { projectId },
    orderBy: { createdAt: 'desc' },
    take: 50,
    select: { id: true, role: true, createdAt: true, expiresAt: true, acceptedAt: true, acceptedBy: true, revokedAt: true },
  });
  return rows.filter((r) => isRole(r.role)).map((r) => ({ ...r, role: r.role as Role }));
}

export async function revokeInvitation(prisma: PrismaClient, projectId: string, invitationId: string, actor: AuditActor): Promise<boolean> {
  if (!UUID.test(invitationId)) return false;
  return prisma.$transaction(async (tx) => {
    const { count } = await tx.invitation.updateMany({
      where: { id: invitationId, projectId, acceptedAt: null, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    if (count === 1) await recordAudit(tx, { projectId, actor, action: 'invitation.revoked', details: { invitation: invitationId } });
    return count === 1;
  });
}

/** What an invitation link leads to, without using it (the page that asks to accept it). */
export async function peekInvitation(db: Db, token: string): Promise<{ projectName: string; role: Role } | null> {
  const inv = await db.invitation.findUnique({ where: { tokenHash: hashToken(token) }, include: { project: { select: { name: true } } } });
  if (!inv || inv.acceptedAt || inv.revokedAt || inv.expiresAt.getTime() <= Date.now() || !isRole(inv.role)) return null;
  return { projectName: inv.project.name, role: inv.role };
}

/**
 * Uses an invitation: once, before it expires. The account joins with the invitation's role
 * (an existing member keeps the higher of the two). Null when the link is unknown, used,
 * revoked or expired.
 */
export async function acceptInvitation(prisma: PrismaClient, token: string, account: AuditActor): Promise<{ projectId: string; role: Role } | null> {
  return prisma.$transaction(async (tx) => {
    // One statement claims it: of two simultaneous uses, one updates the row, the other none.
    const claimed = await tx.$queryRaw<{ id: string; project_id: string; role: string }[]>`
      UPDATE invitations SET accepted_at = now(), accepted_by = ${account.id}
      WHERE token_hash = ${hashToken(token)} AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
      RETURNING id, project_id, role`;
    const inv = claimed[0];
    if (!inv || !isRole(inv.role)) return null;
    const projectId = inv.project_id;
    const existing = await tx.projectMember.findUnique({ where: { projectId_userId: { projectId, userId: account.id } } });
    let role: Role = inv.role;
    if (existing && isRole(existing.role) && ROLES.indexOf(existing.role) >= ROLES.indexOf(inv.role)) role = existing.role;
    await tx.projectMember.upsert({
      where: { projectId_userId: { projectId, userId: account.id } },
      create: { projectId, userId: account.id, role },
      update: { role },
    });
    await recordAudit(tx, { projectId, actor: account, action: 'member.joined', target: account.email, details: { role, invitation: inv.id } });
    return { projectId, role };
  });
}
