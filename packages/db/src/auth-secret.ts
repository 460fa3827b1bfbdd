/**
 * Development only (`npm start`): the secret that signs the web app's session cookies, kept in
 * a file so that restarting does not sign everyone out. GUARDTRACE_AUTH_SECRET, when set, wins
 * and nothing is written. A production deployment sets that variable (docs/deployment.md).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/** The file's name inside the folder it is kept in (the embedded Postgres' data folder by default). */
const AUTH_SECRET_FILE = 'auth-secret';
/** better-auth's minimum, and the web app's (apps/web/src/env.ts). */
const MIN_LENGTH = 32;

export interface AuthSecret {
  secret: string;
  /** Where it came from: the environment, a file made by an earlier start, or one made now. */
  source: 'GUARDTRACE_AUTH_SECRET' | 'kept' | 'created';
  /** The file it is kept in (unset when it came from the environment). */
  file?: string;
}

/**
 * `explicit` (GUARDTRACE_AUTH_SECRET) when set; otherwise the secret kept in `<folder>/auth-secret`,
 * made on the first start: 32 random bytes, readable by this OS user only (0600). Two starts at
 * once agree on one secret (the file appears whole or not at all). A file that holds fewer than
 * 32 characters is an error naming it, not replaced: replacing it would sign everyone out.
 */
export async function keptAuthSecret(opts: { explicit?: string; folder: string }): Promise<AuthSecret> {
  if (opts.explicit) return { secret: opts.explicit, source: 'GUARDTRACE_AUTH_SECRET' };
  const file = path.join(opts.folder, AUTH_SECRET_FILE);
  const existing = await read(file);
  if (existing !== undefined) return { secret: existing, source: 'kept', file };
  await fs.mkdir(opts.folder, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  // Written whole under another name, then linked into place: a reader never sees half a file,
  // and of two starts racing, the second's link fails and it reads the first's.
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(tmp, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await fs.link(tmp, file);
    return { secret, source: 'created', file };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const other = await read(file);
    if (other === undefined) throw err;
    return { secret: other, source: 'kept', file };
  } finally {
    await fs.rm(tmp, { force: true });
  }
}

async function read(file: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const secret = text.trim();
  if (secret.length < MIN_LENGTH) {
    throw new Error(
      `${file} holds no usable cookie secret (${MIN_LENGTH}+ characters expected, found ${secret.length}). ` +
        'Delete it to have a new one made at the next start (everyone then signs in again), or set GUARDTRACE_AUTH_SECRET.',
    );
  }
  return secret;
}
