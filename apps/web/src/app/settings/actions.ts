'use server';

import { revalidatePath } from 'next/cache';
import { headers } from 'next/headers';
import { z } from 'zod';
import { authEnv } from '@/env';
import { isAuthorized } from '@/server/auth';
import { db } from '@/server/db';
import { createProjectKey, MAX_RETENTION_DAYS, revokeProjectKey, setCleanSampleRate, setRetentionDays } from '@/server/queries/settings';

// Each action checks the sign-in itself too (src/proxy.ts already did): they change what
// the collector accepts, so they do not rely on a single gate. Then input and project scope.
async function signedIn(): Promise<boolean> {
  const auth = authEnv();
  return isAuthorized((await headers()).get('authorization'), auth.GUARDTRACE_WEB_USER, auth.GUARDTRACE_WEB_PASSWORD);
}
const SIGN_IN: ActionState = { ok: false, message: 'Sign in first: this server asks for a user name and password.' };

export interface ActionState {
  ok: boolean;
  message: string;
  /** A key just created: shown once. */
  key?: string;
}

const projectId = z.uuid();

const rateInput = z.object({
  project: projectId,
  // Percent in the form, a fraction in the database.
  percent: z.coerce.number().min(0, 'Use 0 to 100').max(100, 'Use 0 to 100'),
});

export async function updateSampleRate(_prev: ActionState, form: FormData): Promise<ActionState> {
  if (!(await signedIn())) return SIGN_IN;
  const input = rateInput.safeParse({ project: form.get('project'), percent: form.get('percent') });
  if (!input.success) return { ok: false, message: input.error.issues[0]?.message ?? 'Invalid input' };
  const rate = Math.round(input.data.percent * 100) / 10_000;
  if (!(await setCleanSampleRate(db(), input.data.project, rate))) return { ok: false, message: 'Project not found' };
  revalidatePath('/settings');
  return { ok: true, message: `Saved: SDKs keep ${input.data.percent}% of clean sessions.` };
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
  if (!(await signedIn())) return SIGN_IN;
  const input = retentionInput.safeParse({ project: form.get('project'), days: form.get('days') ?? '' });
  if (!input.success) return { ok: false, message: input.error.issues[0]?.message ?? 'Invalid input' };
  if (!(await setRetentionDays(db(), input.data.project, input.data.days))) return { ok: false, message: 'Project not found' };
  revalidatePath('/settings');
  const days = input.data.days;
  return {
    ok: true,
    message:
      days === null
        ? "Saved: this project follows the collector's default retention."
        : `Saved: sessions are deleted ${days} day${days === 1 ? '' : 's'} after they end (within the hour).`,
  };
}

const keyInput = z.object({
  project: projectId,
  // 60 characters: a label, not a description.
  name: z.string().trim().min(1, 'Name the key').max(60, 'At most 60 characters'),
});

export async function createKey(_prev: ActionState, form: FormData): Promise<ActionState> {
  if (!(await signedIn())) return SIGN_IN;
  const input = keyInput.safeParse({ project: form.get('project'), name: form.get('name') });
  if (!input.success) return { ok: false, message: input.error.issues[0]?.message ?? 'Invalid input' };
  const created = await createProjectKey(db(), input.data.project, input.data.name);
  if (!created) return { ok: false, message: 'Project not found' };
  revalidatePath('/settings');
  return { ok: true, message: 'Copy this key now: it is stored hashed and will not be shown again.', key: created.key };
}

const revokeInput = z.object({ project: projectId, key: z.uuid() });

export async function revokeKey(form: FormData): Promise<void> {
  if (!(await signedIn())) return;
  const input = revokeInput.safeParse({ project: form.get('project'), key: form.get('key') });
  if (!input.success) return;
  await revokeProjectKey(db(), input.data.project, input.data.key);
  revalidatePath('/settings');
}
