'use server';

import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { auth } from './accounts';

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
