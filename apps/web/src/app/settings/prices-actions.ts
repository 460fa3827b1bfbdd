'use server';

// As actions.ts: each action checks the signed-in account's role in the project itself (guarded).

import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { type ActionState, guarded } from '@/server/action-guard';
import { db } from '@/server/db';
import { removeModelPrice, setModelPrice } from '@/server/queries/prices';

// $10,000 per million tokens: far above any published price, low enough to catch a typo in the unit.
const MAX_PRICE = 10_000;
const usd = (label: string) =>
  z.coerce
    .number({ error: `${label}: enter a price in dollars per million tokens` })
    .min(0, `${label}: a price cannot be negative`)
    .max(MAX_PRICE, `${label}: at most $${MAX_PRICE} per million tokens`);

const priceInput = z.object({
  project: z.uuid(),
  // 120 characters: longer than any provider's model id with its prefixes.
  model: z.string().trim().min(1, 'Name the model').max(120, 'At most 120 characters'),
  input: usd('Input'),
  cached: usd('Cached input'),
  output: usd('Output'),
});

export async function saveModelPrice(_prev: ActionState, form: FormData): Promise<ActionState> {
  const input = priceInput.safeParse(Object.fromEntries(['project', 'model', 'input', 'cached', 'output'].map((k) => [k, form.get(k) ?? ''])));
  if (!input.success) return { ok: false, message: input.error.issues[0]?.message ?? 'Invalid input' };
  const { project, model, input: inputPerMTok, cached, output } = input.data;
  return guarded(project, 'managePrices', async (account) => {
    const saved = await setModelPrice(db(), project, { model, inputPerMTok, cachedInputPerMTok: cached, outputPerMTok: output }, account);
    if (!saved) return { ok: false, message: 'Project not found', status: 404 };
    revalidatePath('/settings');
    return { ok: true, message: `Saved: ${saved} is priced at this project's price in every cost figure.` };
  });
}

const removeInput = z.object({ project: z.uuid(), model: z.string().min(1).max(120) });

export async function deleteModelPrice(form: FormData): Promise<void> {
  const input = removeInput.safeParse({ project: form.get('project'), model: form.get('model') });
  if (!input.success) return;
  const { project, model } = input.data;
  await guarded(project, 'managePrices', async (account) => {
    await removeModelPrice(db(), project, model, account);
    revalidatePath('/settings');
    return { ok: true, message: '' };
  });
}
