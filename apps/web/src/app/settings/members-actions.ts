'use server';

import { changeRole, createInvitation, isRole, MembershipError, removeMember, revokeInvitation } from '@guardtrace/db';
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { accountsEnv } from '@/env';
import { type ActionState, guarded } from '@/server/action-guard';
import type { Account } from '@/server/accounts';
import { db } from '@/server/db';

// Owners only (manageMembers), checked in each action; a membership rule broken (the last
// owner) comes back as a message.

const role = z.string().refine(isRole, 'Choose viewer, member or owner');

const inviteInput = z.object({ project: z.uuid(), role });

/** A one-time invitation link, shown once: only its hash is stored. */
export async function inviteAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const input = inviteInput.safeParse({ project: form.get('project'), role: form.get('role') });
  if (!input.success) return { ok: false, message: input.error.issues[0]?.message ?? 'Invalid input' };
  const { project } = input.data;
  const asRole = input.data.role as 'viewer' | 'member' | 'owner';
  return guarded(project, 'manageMembers', async (account) => {
    const inv = await createInvitation(db(), project, asRole, account);
    revalidatePath('/settings');
    return {
      ok: true,
      message: `Send this link to the person you invite (${asRole}). It works once, until ${inv.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC, and will not be shown again.`,
      key: `${accountsEnv().GUARDTRACE_BASE_URL}/invite/${inv.token}`,
    };
  });
}

const memberInput = z.object({ project: z.uuid(), user: z.string().min(1).max(100) });

async function membership(form: FormData, change: (project: string, user: string, account: Account) => Promise<void>): Promise<ActionState> {
  const input = memberInput.safeParse({ project: form.get('project'), user: form.get('user') });
  if (!input.success) return { ok: false, message: 'Invalid input' };
  const { project, user } = input.data;
  return guarded(project, 'manageMembers', async (account) => {
    try {
      await change(project, user, account);
    } catch (err) {
      if (err instanceof MembershipError) return { ok: false, message: err.message };
      throw err;
    }
    revalidatePath('/settings');
    return { ok: true, message: 'Saved.' };
  });
}

export async function changeRoleAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const next = role.safeParse(form.get('role'));
  if (!next.success) return { ok: false, message: next.error.issues[0]?.message ?? 'Invalid role' };
  return membership(form, async (project, user, account) => {
    await changeRole(db(), project, user, next.data as 'viewer' | 'member' | 'owner', account);
  });
}

export async function removeMemberAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  return membership(form, async (project, user, account) => {
    await removeMember(db(), project, user, account);
  });
}

const revokeInput = z.object({ project: z.uuid(), invitation: z.uuid() });

export async function revokeInvitationAction(form: FormData): Promise<void> {
  const input = revokeInput.safeParse({ project: form.get('project'), invitation: form.get('invitation') });
  if (!input.success) return;
  const { project, invitation } = input.data;
  await guarded(project, 'manageMembers', async (account) => {
    await revokeInvitation(db(), project, invitation, account);
    revalidatePath('/settings');
    return { ok: true, message: '' };
  });
}
