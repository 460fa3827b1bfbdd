import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Db } from './audit.ts';
import type { PrismaClient } from './client.ts';

/** Keys look like `gt_<40 base62-ish chars>`; the prefix shown in the UI is the first 11 characters. */
const KEY_PREFIX = 'gt_';
const SHOWN_CHARS = 11;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The Postgres notification channel on which a key's hash is announced when the key is
 * revoked or created: every collector LISTENs and drops its cached answer for that key, so a
 * revocation takes effect at once on all of them instead of after their cache's lifetime.
 */
export const API_KEY_CHANNEL = 'guardtrace_api_keys';

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(30).toString('base64url');
}

export interface CreatedKey {
  id: string;
  projectId: string;
  /** The full key: shown once, never stored. */
  key: string;
  prefix: string;
}

export async function createApiKey(prisma: Db, projectId: string, name = 'default'): Promise<CreatedKey> {
  const key = generateApiKey();
  const id = randomUUID();
  const prefix = key.slice(0, SHOWN_CHARS);
  const hash = hashApiKey(key);
  await prisma.apiKey.create({ data: { id, projectId, name, prefix, hash } });
  // A collector that was sent this key before it existed remembers it as unknown for a while.
  await prisma.$executeRaw`SELECT pg_notify(${API_KEY_CHANNEL}, ${hash})`;
  return { id, projectId, key, prefix };
}

/**
 * Revokes a key of this project (a key id of another project changes nothing) and tells every
 * collector at once (API_KEY_CHANNEL): the notification is sent when the update commits, in the
 * same statement. True when a key was revoked now.
 */
export async function revokeApiKey(prisma: Db, projectId: string, keyId: string): Promise<boolean> {
  // Ids are uuids: anything else names no key (and must not reach Postgres' uuid cast).
  if (!UUID.test(keyId) || !UUID.test(projectId)) return false;
  const rows = await prisma.$queryRaw<{ n: number }[]>`
    WITH revoked AS (
      UPDATE api_keys SET revoked_at = now()
      WHERE id = ${keyId}::uuid AND project_id = ${projectId}::uuid AND revoked_at IS NULL
      RETURNING hash
    )
    SELECT count(pg_notify(${API_KEY_CHANNEL}, hash))::int AS n FROM revoked`;
  return (rows[0]?.n ?? 0) === 1;
}

export async function createProject(
  prisma: PrismaClient,
  name: string,
  opts: { id?: string; cleanSampleRate?: number } = {},
): Promise<{ id: string; name: string }> {
  const id = opts.id ?? randomUUID();
  await prisma.project.create({ data: { id, name, cleanSampleRate: opts.cleanSampleRate ?? 1 } });
  return { id, name };
}
