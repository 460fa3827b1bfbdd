'use server';

// As ../actions.ts: each action checks the signed-in account's role in the project itself
// (guarded, capability manageAlerts), then its input, then the project scope; each change is audited.

import { type AlertRuleInput, alertRuleProblem, isNewKind } from '@guardtrace/db/alerts';
import { revalidatePath } from 'next/cache';
import { headers } from 'next/headers';
import { z } from 'zod';
import { accountsEnv } from '@/env';
import { type ActionState, guarded } from '@/server/action-guard';
import { db } from '@/server/db';
import { createAlertRule, deleteAlertRule, sendTestAlert, setAlertMuted } from '@/server/queries/alerts';
import { ruleInput } from './rule-input';

const PATH = '/settings/alerts';
const field = (form: FormData, k: string) => {
  const v = form.get(k);
  return typeof v === 'string' ? v : '';
};

export async function createAlertRuleAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const keys = ['project', 'name', 'kind', 'failureClass', 'toolName', 'windowMinutes', 'comparison', 'threshold', 'webhookUrl', 'format'];
  const parsed = ruleInput.safeParse(Object.fromEntries(keys.map((k) => [k, field(form, k)])));
  if (!parsed.success) return { ok: false, message: parsed.error.issues[0]?.message ?? 'Invalid input' };
  const { project, ...rest } = parsed.data;
  const input = rest as AlertRuleInput;
  if (isNewKind(input.kind)) {
    input.comparison = 'gte';
    input.threshold = 0;
  }
  const problem = alertRuleProblem(input);
  if (problem) return { ok: false, message: problem };
  return guarded(project, 'manageAlerts', async (account) => {
    const made = await createAlertRule(db(), project, input, account);
    if (!made) return { ok: false, message: 'Project not found', status: 404 };
    revalidatePath(PATH);
    return {
      ok: true,
      message: `Created ${input.name}. Its webhook signing secret is shown once: verify X-Guardtrace-Signature with it (docs/production.md).`,
      key: made.secret,
    };
  });
}

const ruleRef = z.object({ project: z.uuid(), rule: z.uuid() });

export async function sendTestAlertAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const input = ruleRef.safeParse({ project: form.get('project'), rule: form.get('rule') });
  if (!input.success) return { ok: false, message: 'Invalid input' };
  const { project, rule } = input.data;
  return guarded(project, 'manageAlerts', async (account) => {
    // The links point at this app: where browsers reach it, else as this browser did.
    const h = await headers();
    const webUrl = accountsEnv().GUARDTRACE_BASE_URL ?? h.get('origin') ?? `http://${h.get('host') ?? 'localhost'}`;
    const res = await sendTestAlert(db(), project, rule, webUrl, new Date(), account);
    if (!res) return { ok: false, message: 'Rule not found', status: 404 };
    revalidatePath(PATH);
    // A new_* rule's test sends one delivery per new class or tool, as its firings do.
    if (res.deliveries > 1) {
      return res.ok
        ? { ok: true, message: `${res.deliveries} tests delivered, one for each new: ${res.subjects.join(', ')}. The receiver answered ${res.status}.` }
        : { ok: false, message: `Not every one of the ${res.deliveries} tests (one for each new: ${res.subjects.join(', ')}) was delivered: ${res.error ?? 'no answer'}.` };
    }
    return res.ok
      ? { ok: true, message: `Test delivered: the receiver answered ${res.status}.` }
      : { ok: false, message: `Test not delivered: ${res.error ?? 'no answer'}.` };
  });
}

export async function muteAlertAction(form: FormData): Promise<void> {
  const input = ruleRef.safeParse({ project: form.get('project'), rule: form.get('rule') });
  if (!input.success) return;
  const { project, rule } = input.data;
  const muted = form.get('muted') === 'true';
  await guarded(project, 'manageAlerts', async (account) => {
    await setAlertMuted(db(), project, rule, muted, account);
    revalidatePath(PATH);
    return { ok: true, message: '' };
  });
}

export async function deleteAlertAction(form: FormData): Promise<void> {
  const input = ruleRef.safeParse({ project: form.get('project'), rule: form.get('rule') });
  if (!input.success) return;
  const { project, rule } = input.data;
  await guarded(project, 'manageAlerts', async (account) => {
    await deleteAlertRule(db(), project, rule, account);
    revalidatePath(PATH);
    return { ok: true, message: '' };
  });
}
