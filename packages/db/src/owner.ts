/**
 * The first owner and one-time sign-in links. `npm start` makes the first owner of a fresh
 * install and prints a link that signs it in; `pnpm --filter @guardtrace/db create-owner` does
 * the same for a production database. The web app turns a link into a session
 * (apps/web/src/server/auth-config.ts, GET /api/auth/sign-in/link).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Db } from './audit.ts';
import type { PrismaClient } from './generated/prisma/client.ts';

/** 30 minutes: time to open the link printed at start-up, short enough that a copy in a log dies. */
export const SIGN_IN_LINK_TTL_MS = 30 * 60 * 1000;
const LINK_PREFIX = 'guardtrace-sign-in-link:';

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The path of a sign-in link under the web app's base URL. */
export function signInLinkPath(token: string): string {
  return `/api/auth/sign-in/link?token=${encodeURIComponent(token)}`;
}

/**
 * The owner to sign in: the account with this email (created when missing), owner of every
 * project that has no owner yet. With no email, the first owner of the oldest project, or a
 * new `owner@localhost` account on an install without accounts.
 */
export async function ensureOwner(prisma: PrismaClient, email?: string): Promise<{ id: string; email: string; created: boolean }> {
  if (email !== undefined && !EMAIL.test(email)) throw new RangeError(`"${email}" is not an email address (expected name@host)`);
  return prisma.$transaction(async (tx) => {
    let user = email ? await tx.authUser.findUnique({ where: { email: email.toLowerCase() } }) : null;
    if (!user && !email) user = await installOwner(tx);
    let created = false;
    if (!user) {
      const address = (email ?? 'owner@localhost').toLowerCase();
      user = await tx.authUser.create({ data: { id: randomUUID(), name: address.split('@')[0] ?? address, email: address, emailVerified: true } });
      created = true;
    }
    const ownerless = await tx.project.findMany({ where: { members: { none: { role: 'owner' } } }, select: { id: true } });
    for (const p of ownerless) {
      await tx.projectMember.upsert({
        where: { projectId_userId: { projectId: p.id, userId: user.id } },
        create: { projectId: p.id, userId: user.id, role: 'owner' },
        update: { role: 'owner' },
      });
    }
    return { id: user.id, email: user.email, created };
  });
}

/** The install's owner: the first owner of the oldest project, else the oldest account (null: none yet). */
function installOwner(db: Db) {
  return db.projectMember
    .findFirst({ where: { role: 'owner' }, orderBy: [{ project: { createdAt: 'asc' } }, { createdAt: 'asc' }], include: { user: true } })
    .then(async (owner) => owner?.user ?? (await db.authUser.findFirst({ orderBy: { createdAt: 'asc' } })));
}

/**
 * Whether the install's owner (the account `npm start` and sign-in-link sign in) can sign in
 * with a password. False on an install without accounts, or whose owner came in by link only:
 * the sign-in page then says how to get a new link.
 */
export async function ownerHasPassword(db: Db): Promise<boolean> {
  const owner = await installOwner(db);
  return owner ? hasPassword(db, owner.id) : false;
}

/** Whether the account can sign in with a password (better-auth's `credential` account holds one). */
export async function hasPassword(db: Db, userId: string): Promise<boolean> {
  return (await db.authAccount.count({ where: { userId, providerId: 'credential', password: { not: null } } })) > 0;
}

const linkIdentifier = (token: string) => LINK_PREFIX + createHash('sha256').update(token, 'utf8').digest('hex');

/** A token that signs the account in once, until it expires; only its hash is stored. */
export async function createSignInLink(db: Db, userId: string, ttlMs: number = SIGN_IN_LINK_TTL_MS): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + ttlMs);
  await db.authVerification.create({ data: { id: randomUUID(), identifier: linkIdentifier(token), value: userId, expiresAt } });
  return { token, expiresAt };
}

/** Uses a sign-in token: the account id once, then never again (null: unknown, used or expired). */
export async function consumeSignInLink(db: Db, token: string): Promise<string | null> {
  if (!token || token.length > 200) return null;
  // Deleted and read in one statement: of two simultaneous uses only one gets the row.
  const rows = await db.$queryRaw<{ value: string; expired: boolean }[]>`
    DELETE FROM auth_verifications WHERE identifier = ${linkIdentifier(token)}
    RETURNING value, expires_at <= now() AS expired`;
  const row = rows[0];
  return row && !row.expired ? row.value : null;
}
