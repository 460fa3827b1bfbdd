'use server';

// Every action checks the signed-in account's role in the project itself (guarded): src/proxy.ts
// only saw a cookie. Then input and project scope.

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { type ActionState, guarded } from '@/server/action-guard';
import { db } from '@/server/db';
import { createProjectKey, revokeProjectKey, setCleanSampleRate } from '@/server/queries/settings';

const projectId = z.uuid();

const rateInput = z.object({
  project: projectId,
  // Percent in the form, a fraction in the database.
  percent: z.coerce.number().min(0, 'Use 0 to 100').max(100, 'Use 0 to 100'),
});

export async function updateSampleRate(_prev: ActionState, form: FormData): Promise<ActionState> {
  const input = rateInput.safeParse({ project: form.get('project'), percent: form.get('percent') });
  if (!input.success) return { ok: false, message: input.error.issues[0]?.message ?? 'Invalid input' };
  const { project, percent } = input.data;
  return guarded(project, 'manageSampling', async (account) => {
    const rate = Math.round(percent * 100) / 10_000;
    if (!(await setCleanSampleRate(db(), project, rate, account))) return { ok: false, message: 'Project not found', status: 404 };
    revalidatePath('/settings');
    return { ok: true, message: `Saved: SDKs keep ${percent}% of clean sessions.` };
  });
}

const keyInput = z.object({
  project: projectId,
  // 60 characters: a label, not a description.
  name: z.string().trim().min(1, 'Name the key').max(60, 'At most 60 characters'),
});

export async function createKey(_prev: ActionState, form: FormData): Promise<ActionState> {
  const input = keyInput.safeParse({ project: form.get('project'), name: form.get('name') });
  if (!input.success) return { ok: false, message: input.error.issues[0]?.message ?? 'Invalid input' };
  const { project, name } = input.data;
  return guarded(project, 'manageKeys', async (account) => {
    const created = await createProjectKey(db(), project, name, account);
    if (!created) return { ok: false, message: 'Project not found', status: 404 };
    revalidatePath('/settings');
    return { ok: true, message: 'Copy this key now: it is stored hashed and will not be shown again.', key: created.key };
  });
}

const revokeInput = z.object({ project: projectId, key: z.uuid() });

export async function revokeKey(form: FormData): Promise<void> {
  const input = revokeInput.safeParse({ project: form.get('project'), key: form.get('key') });
  if (!input.success) return;
  const { project, key } = input.data;
  await guarded(project, 'manageKeys', async (account) => {
    await revokeProjectKey(db(), project, key, account);
    revalidatePath('/settings');
    return { ok: true, message: '' };
  });
}
