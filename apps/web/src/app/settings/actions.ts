'use server';

// Every action checks the signed-in account's role in the project itself (guarded): src/proxy.ts
// only saw a cookie. Then input and project scope.

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { type ActionState, guarded } from '@/server/action-guard';
import { db } from '@/server/db';
import { createProjectKey, MAX_RETENTION_DAYS, revokeProjectKey, setCleanSampleRate, setRetentionDays } from '@/server/queries/settings';

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

const retentionInput = z.object({
  project: projectId,
  // Empty: no retention of its own (the collector's default applies).
  days: z
    .string()
    .trim()
    .transform((v) => (v === '' ? null : Number(v)))
    .pipe(
      z
        .number({ error: 'Enter a number of days, or leave it empty' })
        .int('Use whole days')
        .min(1, `Use 1 to ${MAX_RETENTION_DAYS} days`)
        .max(MAX_RETENTION_DAYS, `Use 1 to ${MAX_RETENTION_DAYS} days`)
        .nullable(),
    ),
});

export async function updateRetention(_prev: ActionState, form: FormData): Promise<ActionState> {
  const input = retentionInput.safeParse({ project: form.get('project'), days: form.get('days') ?? '' });
  if (!input.success) return { ok: false, message: input.error.issues[0]?.message ?? 'Invalid input' };
  const { project, days } = input.data;
  return guarded(project, 'manageRetention', async (account) => {
    if (!(await setRetentionDays(db(), project, days, account))) return { ok: false, message: 'Project not found', status: 404 };
    revalidatePath('/settings');
    return {
      ok: true,
      message:
        days === null
          ? "Saved: this project follows the collector's default retention."
          : `Saved: sessions are deleted ${days} day${days === 1 ? '' : 's'} after they end (within the hour).`,
    };
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
