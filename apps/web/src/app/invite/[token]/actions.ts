'use server';

import { acceptInvitation } from '@guardtrace/db';
import { redirect } from 'next/navigation';
import { requireAccount } from '@/server/accounts';
import { db } from '@/server/db';

/** Uses the invitation for the signed-in account (once: a used link takes nobody else in). */
export async function acceptInvite(form: FormData): Promise<void> {
  const account = await requireAccount();
  const token = form.get('token');
  const joined = typeof token === 'string' ? await acceptInvitation(db(), token, account) : null;
  if (!joined) redirect(`/invite/${encodeURIComponent(String(token ?? ''))}`);
  redirect(`/sessions?project=${joined.projectId}`);
}
