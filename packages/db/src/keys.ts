import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { PrismaClient } from './client.ts';

/** Keys look like `gt_<40 base62-ish chars>`; the prefix shown in the UI is the first 11 characters. */
const KEY_PREFIX = 'gt_';
const SHOWN_CHARS = 11;

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

export async function createApiKey(prisma: PrismaClient, projectId: string, name = 'default'): Promise<CreatedKey> {
  const key = generateApiKey();
  const id = randomUUID();
  const prefix = key.slice(0, SHOWN_CHARS);
  await prisma.apiKey.create({ data: { id, projectId, name, prefix, hash: hashApiKey(key) } });
  return { id, projectId, key, prefix };
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
