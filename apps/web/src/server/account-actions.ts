'use server';

import { hasPassword } from '@guardtrace/db';
import { isAPIError } from 'better-auth/api';
import { revalidatePath } from 'next/cache';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { auth, currentAccount } from './accounts';
import type { ActionState } from './action-guard';
import { accountLocked, countFailure } from './auth-config';
import { db } from './db';

/** Ends this browser's session (deleted in Postgres, cookie cleared). */
export async function signOut(): Promise<void> {
  await auth().api.signOut({ headers: await headers() });
  redirect('/sign-in');
}

/** Ends every session of the account, on every device, this one included. */
export async function signOutEverywhere(): Promise<void> {
  const h = await headers();
  // Signed out already (no session): there is nothing to revoke, and the cookie is cleared below.
  await auth()
    .api.revokeSessions({ headers: h })
    .catch(() => undefined);
  await auth().api.signOut({ headers: h });
  redirect('/sign-in');
}

/**
 * Sets the signed-in account's password (one that came in by a sign-in link or invitation has
 * none), or changes it given the current one, through better-auth's own endpoints
 * (`setPassword`, `changePassword`): the same length rules as sign-up, hashed with the app's
 * argon2id. Its sessions stay signed in.
 */
export async function setPasswordAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const account = await currentAccount();
  if (!account) return { ok: false, message: 'Sign in first.', status: 401 };
  const field = (name: string) => {
    const v = form.get(name);
    return typeof v === 'string' ? v : '';
  };
  const [current, next, again] = [field('currentPassword'), field('newPassword'), field('confirmPassword')];
  if (next !== again) return { ok: false, message: 'The two new passwords differ: type the same one twice.' };
  const h = await headers();
  try {
    if (await hasPassword(db(), account.id)) {
      if (!current) return { ok: false, message: 'Type your current password to change it.' };
      // Server actions pass no per-IP limiter: the account's own budget of wrong passwords bounds guessing.
      const email = account.email.toLowerCase();
      const wait = await accountLocked(db(), email);
      if (wait !== null) return { ok: false, message: `Too many wrong passwords for this account: try again in ${Math.ceil(wait / 60)} minutes.` };
      try {
        await auth().api.changePassword({ body: { currentPassword: current, newPassword: next, revokeOtherSessions: false }, headers: h });
      } catch (err) {
        if (isAPIError(err) && (err.body as { code?: unknown } | undefined)?.code === 'INVALID_PASSWORD') await countFailure(db(), email);
        throw err;
      }
    } else {
      await auth().api.setPassword({ body: { newPassword: next }, headers: h });
    }
  } catch (err) {
    const refusal = passwordRefusal(err);
    if (refusal === null) throw err;
    return { ok: false, message: refusal };
  }
  revalidatePath('/account');
  return { ok: true, message: `Password saved: sign in as ${account.email} with it, in any browser.` };
}

/**
 * better-auth's refusal (a 4xx APIError with a code), in the words of this form; null for anything
 * else. Through better-auth's own `isAPIError`: a plain `instanceof APIError` missed the error
 * in the built server, where it comes from another copy of the class.
 */
function passwordRefusal(err: unknown): string | null {
  if (!isAPIError(err) || err.statusCode >= 500) return null;
  const e = err as { body?: { code?: unknown; message?: unknown } };
  const code = e.body?.code;
  if (code === 'PASSWORD_TOO_SHORT') return 'Too short: 12 characters at least (a few words make a good one).';
  if (code === 'PASSWORD_TOO_LONG') return 'Too long: 256 characters at most.';
  if (code === 'INVALID_PASSWORD') return 'The current password is not right.';
  return typeof e.body?.message === 'string' ? e.body.message : 'The password was not saved.';
}
