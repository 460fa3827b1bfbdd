/**
 * The audit log of a project: who changed its keys, sampling, retention, model prices, members or name.
 * `recordAudit` takes the transaction that makes the change, so an entry exists exactly when
 * the change committed.
 */
import { randomUUID } from 'node:crypto';
import type { Prisma, PrismaClient } from './generated/prisma/client.ts';

/** Every action the log knows; the web app shows them in words (apps/web audit page). */
export const AUDIT_ACTIONS = [
  'project.created',
  'project.renamed',
  'key.created',
  'key.revoked',
  'sampling.changed',
  'retention.changed',
  'price.set',
  'price.removed',
  'member.invited',
  'invitation.revoked',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'alert.created',
  'alert.muted',
  'alert.unmuted',
  'alert.deleted',
  'alert.tested',
  'dataset.created',
  'dataset.deleted',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who acted: a signed-in account, or null for the system itself (`npm start`, a CLI). */
export interface AuditActor {
  id: string;
  email: string;
}

export interface AuditInput {
  projectId: string;
  actor: AuditActor | null;
  action: AuditAction;
  /** What it acted on, in words: a key's name and prefix, a member's email. */
  target?: string | null;
  /** Before and after values and the like; plain JSON, never a secret. */
  details?: Record<string, Prisma.InputJsonValue | null>;
}

/** A Prisma client or the transaction client of `$transaction(async (tx) => ...)`. */
export type Db = PrismaClient | Prisma.TransactionClient;

export async function recordAudit(tx: Db, input: AuditInput): Promise<void> {
  if (!(AUDIT_ACTIONS as readonly string[]).includes(input.action)) {
    throw new RangeError(`recordAudit: unknown action "${input.action}"; expected one of ${AUDIT_ACTIONS.join(', ')}`);
  }
  await tx.auditEntry.create({
    data: {
      id: randomUUID(),
      projectId: input.projectId,
      actorId: input.actor?.id ?? null,
      actorEmail: input.actor?.email ?? null,
      action: input.action,
      target: input.target ?? null,
      details: (input.details ?? {}) as Prisma.InputJsonObject,
    },
  });
}

export interface AuditEntryRow {
  id: string;
  at: Date;
  actorEmail: string | null;
  action: string;
  target: string | null;
  details: unknown;
}

/** Newest first; `before` (an entry's id) pages on (keyset, stable under new entries). */
export async function listAudit(db: Db, projectId: string, opts: { limit?: number; before?: string } = {}): Promise<AuditEntryRow[]> {
  // 100 a page: a screenful of changes, and a cheap index range scan.
  const limit = Math.min(Math.max(opts.limit ?? 100, 1), 500);
  const cursor = opts.before ? await db.auditEntry.findFirst({ where: { id: opts.before, projectId }, select: { at: true, id: true } }) : null;
  return db.auditEntry.findMany({
    where: {
      projectId,
      ...(cursor ? { OR: [{ at: { lt: cursor.at } }, { at: cursor.at, id: { lt: cursor.id } }] } : {}),
    },
    orderBy: [{ at: 'desc' }, { id: 'desc' }],
    take: limit,
    select: { id: true, at: true, actorEmail: true, action: true, target: true, details: true },
  });
}
