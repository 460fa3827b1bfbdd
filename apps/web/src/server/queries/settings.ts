import 'server-only';
import { type AuditActor, createApiKey, type PrismaClient, recordAudit, revokeApiKey } from '@guardtrace/db';

interface ApiKeyDto {
  id: string;
  name: string;
  /** First characters of the key, safe to show. */
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface ProjectSettingsDto {
  id: string;
  name: string;
  cleanSampleRate: number;
  /** Days a session is kept after it ended; null: the collector's default (GUARDTRACE_RETENTION_DAYS, else forever). */
  retentionDays: number | null;
  keys: ApiKeyDto[];
}

export async function getProjectSettings(db: PrismaClient, projectId: string): Promise<ProjectSettingsDto | null> {
  const project = await db.project.findUnique({
    where: { id: projectId },
    include: { apiKeys: { orderBy: [{ revokedAt: { sort: 'desc', nulls: 'first' } }, { createdAt: 'desc' }] } },
  });
  if (!project) return null;
  return {
    id: project.id,
    name: project.name,
    cleanSampleRate: project.cleanSampleRate,
    retentionDays: project.retentionDays,
    keys: project.apiKeys.map((k) => ({
      id: k.id,
      name: k.name,
      prefix: k.prefix,
      createdAt: k.createdAt.toISOString(),
      lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
      revokedAt: k.revokedAt?.toISOString() ?? null,
    })),
  };
}

/**
 * Fraction of clean sessions SDKs keep (they fetch it from the collector); failures are always
 * kept. Logged with the account that changed it (null: the system).
 */
export async function setCleanSampleRate(db: PrismaClient, projectId: string, rate: number, actor: AuditActor | null = null): Promise<boolean> {
  if (!(rate >= 0 && rate <= 1)) throw new RangeError('clean sample rate must be between 0 and 1');
  return db.$transaction(async (tx) => {
    const before = await tx.project.findUnique({ where: { id: projectId }, select: { cleanSampleRate: true } });
    if (!before) return false;
    await tx.project.update({ where: { id: projectId }, data: { cleanSampleRate: rate } });
    if (before.cleanSampleRate !== rate) {
      await recordAudit(tx, { projectId, actor, action: 'sampling.changed', details: { from: before.cleanSampleRate, to: rate } });
    }
    return true;
  });
}

/** Longest retention the form accepts: 10 years, beyond which "keep forever" (null) says it better. */
export const MAX_RETENTION_DAYS = 3650;

/**
 * Days the collector's retention job keeps this project's sessions after they ended; null
 * falls back to the collector's GUARDTRACE_RETENTION_DAYS (unset there too: forever).
 */
export async function setRetentionDays(db: PrismaClient, projectId: string, days: number | null, actor: AuditActor | null = null): Promise<boolean> {
  if (days !== null && !(Number.isInteger(days) && days >= 1 && days <= MAX_RETENTION_DAYS)) {
    throw new RangeError(`retention must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or none`);
  }
  return db.$transaction(async (tx) => {
    const before = await tx.project.findUnique({ where: { id: projectId }, select: { retentionDays: true } });
    if (!before) return false;
    await tx.project.update({ where: { id: projectId }, data: { retentionDays: days } });
    if (before.retentionDays !== days) {
      await recordAudit(tx, { projectId, actor, action: 'retention.changed', details: { from: before.retentionDays, to: days } });
    }
    return true;
  });
}

/** A new key for the project; the full key is returned once and only its hash is stored. */
export async function createProjectKey(
  db: PrismaClient,
  projectId: string,
  name: string,
  actor: AuditActor | null = null,
): Promise<{ key: string; prefix: string } | null> {
  return db.$transaction(async (tx) => {
    const exists = await tx.project.findUnique({ where: { id: projectId }, select: { id: true } });
    if (!exists) return null;
    const created = await createApiKey(tx, projectId, name);
    await recordAudit(tx, { projectId, actor, action: 'key.created', target: `${name} (${created.prefix}…)`, details: { key: created.id } });
    return { key: created.key, prefix: created.prefix };
  });
}

/** Revokes a key of this project only; a key id of another project changes nothing. */
export async function revokeProjectKey(db: PrismaClient, projectId: string, keyId: string, actor: AuditActor | null = null): Promise<boolean> {
  return db.$transaction(async (tx) => {
    if (!(await revokeApiKey(tx, projectId, keyId))) return false;
    const key = await tx.apiKey.findUnique({ where: { id: keyId }, select: { name: true, prefix: true } });
    await recordAudit(tx, { projectId, actor, action: 'key.revoked', target: key ? `${key.name} (${key.prefix}…)` : null, details: { key: keyId } });
    return true;
  });
}
