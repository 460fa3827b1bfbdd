/**
 * Accounts, with better-auth: email + password (argon2id), sessions stored in Postgres
 * (auth_sessions) behind an HttpOnly, SameSite=Lax cookie that is Secure when the base URL is
 * https, sign-in throttling per IP (better-auth's limiter, counters in Postgres) and per
 * account (below), and one-time sign-in links (`npm start`, create-owner).
 *
 * Sign-up needs an invitation link (its token in the x-guardtrace-invitation header) unless
 * GUARDTRACE_SIGNUP=open.
 */
import { randomUUID } from 'node:crypto';
import { consumeSignInLink, peekInvitation, type PrismaClient } from '@guardtrace/db';
import { betterAuth, type BetterAuthPlugin } from 'better-auth';
import { prismaAdapter } from 'better-auth/adapters/prisma';
import { APIError, createAuthEndpoint, createAuthMiddleware } from 'better-auth/api';
import { setSessionCookie } from 'better-auth/cookies';
import { nextCookies } from 'better-auth/next-js';
import { z } from 'zod';
import type { AccountsEnv } from '@/env';
import { CLIENT_IP_HEADER, INVITATION_HEADER } from '@/lib/auth-headers';
import { hashPassword, verifyPassword } from './password';


// Per account: 10 failed sign-ins in 15 minutes lock that email out for the rest of the window,
// whatever the IP (a slow spread-out guessing run); counters live in auth_rate_limits. Wrong
// current passwords given to change one count too (account-actions.ts): same guess, same budget.
const ACCOUNT_WINDOW_MS = 15 * 60 * 1000;
const ACCOUNT_MAX_FAILURES = 10;

/** Seconds until the account may try a password again, or null when it may now. */
export async function accountLocked(db: PrismaClient, email: string): Promise<number | null> {
  const row = await db.authRateLimit.findUnique({ where: { key: `account|${email}` } });
  if (!row || row.count < ACCOUNT_MAX_FAILURES) return null;
  const until = Number(row.lastRequest) + ACCOUNT_WINDOW_MS;
  return until > Date.now() ? Math.ceil((until - Date.now()) / 1000) : null;
}

export async function countFailure(db: PrismaClient, email: string): Promise<void> {
  const now = BigInt(Date.now());
  const windowStart = now - BigInt(ACCOUNT_WINDOW_MS);
  // One statement: concurrent failures each count (a read-then-write would lose some).
  await db.$executeRaw`
    INSERT INTO auth_rate_limits (id, key, count, last_request) VALUES (${randomUUID()}, ${`account|${email}`}, 1, ${now})
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN auth_rate_limits.last_request < ${windowStart} THEN 1 ELSE auth_rate_limits.count + 1 END,
      last_request = ${now}`;
}

const emailOf = (body: unknown): string | null => {
  const e = (body as { email?: unknown } | undefined)?.email;
  return typeof e === 'string' ? e.trim().toLowerCase() : null;
};

/** GET /api/auth/sign-in/link?token=...: a one-time link (packages/db owner.ts) becomes a session. */
function signInLinks(db: PrismaClient) {
  return {
    id: 'guardtrace-sign-in-link',
    endpoints: {
      signInLink: createAuthEndpoint('/sign-in/link', { method: 'GET', query: z.object({ token: z.string().max(200) }) }, async (ctx) => {
        const userId = await consumeSignInLink(db, ctx.query.token);
        const user = userId ? await ctx.context.internalAdapter.findUserById(userId) : null;
        if (!user) throw ctx.redirect('/sign-in?error=link');
        const session = await ctx.context.internalAdapter.createSession(user.id);
        await setSessionCookie(ctx, { session, user });
        throw ctx.redirect('/sessions');
      }),
    },
    // The per-IP limiter counts these like sign-ins: a token is 256 bits, but a flood is still a flood.
    rateLimit: [{ pathMatcher: (p: string) => p === '/sign-in/link', window: 60, max: 10 }],
  } satisfies BetterAuthPlugin;
}

export function createAuth(db: PrismaClient, env: AccountsEnv) {
  return betterAuth({
    appName: 'Guardtrace',
    secret: env.GUARDTRACE_AUTH_SECRET,
    baseURL: env.GUARDTRACE_BASE_URL,
    trustedOrigins: env.trustedOrigins,
    database: prismaAdapter(db, { provider: 'postgresql' }),
    telemetry: { enabled: false },
    user: { modelName: 'authUser' },
    session: {
      modelName: 'authSession',
      // 7 days, renewed daily while used: a browser left signed in for a week signs in again.
      expiresIn: 7 * 24 * 60 * 60,
      updateAge: 24 * 60 * 60,
    },
    account: { modelName: 'authAccount' },
    verification: { modelName: 'authVerification' },
    emailAndPassword: {
      enabled: true,
      // 12 characters: a passphrase, not a word (NIST 800-63B asks for 8 at least).
      minPasswordLength: 12,
      maxPasswordLength: 256,
      password: {
        hash: hashPassword,
        verify: ({ hash: stored, password }) => verifyPassword(stored, password),
      },
    },
    rateLimit: {
      enabled: true,
      storage: 'database',
      modelName: 'authRateLimit',
      // Per IP and path: 5 sign-in or sign-up tries a minute, 100 other auth requests a minute.
      window: 60,
      max: 100,
      customRules: { '/sign-in/email': { window: 60, max: 5 }, '/sign-up/email': { window: 60, max: 5 } },
    },
    advanced: {
      ipAddress: env.GUARDTRACE_TRUSTED_PROXIES.length
        ? { ipAddressHeaders: ['x-forwarded-for'], trustedProxies: env.GUARDTRACE_TRUSTED_PROXIES }
        : { ipAddressHeaders: [CLIENT_IP_HEADER] },
      defaultCookieAttributes: { httpOnly: true, sameSite: 'lax' },
    },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        if (ctx.path === '/sign-in/email') {
          const email = emailOf(ctx.body);
          const wait = email ? await accountLocked(db, email) : null;
          if (wait !== null) throw new APIError('TOO_MANY_REQUESTS', { message: `Too many failed sign-ins for this account: try again in ${Math.ceil(wait / 60)} minutes.` });
        }
        if (ctx.path === '/sign-up/email' && env.GUARDTRACE_SIGNUP !== 'open') {
          const token = ctx.headers?.get(INVITATION_HEADER) ?? '';
          if (!token || !(await peekInvitation(db, token))) {
            throw new APIError('FORBIDDEN', { message: 'Sign-up needs an invitation link from a project owner (this one is unknown, used or expired).' });
          }
        }
      }),
      after: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== '/sign-in/email') return;
        const email = emailOf(ctx.body);
        if (!email) return;
        const returned = ctx.context.returned;
        const failed = returned instanceof APIError || (returned instanceof Response && !returned.ok);
        if (failed) await countFailure(db, email);
        else await db.authRateLimit.deleteMany({ where: { key: `account|${email}` } });
      }),
    },
    // nextCookies last: server actions (sign out) set and clear the cookie through next/headers.
    plugins: [signInLinks(db), nextCookies()],
  });
}

export type Auth = ReturnType<typeof createAuth>;
