'use server';

// As settings/actions.ts: each action checks the signed-in account's role in the project itself
// (guarded: viewers read datasets, members make and delete them); each change is audited.

import { recordAudit } from '@guardtrace/db';
import { createDataset, DATASET_NAME_MAX, DatasetInputError, type DatasetSource, deleteDataset, getDataset } from '@guardtrace/db/datasets';
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { type ActionState, guarded } from '@/server/action-guard';
import { db } from '@/server/db';
import { prismaQueryable } from '@/server/queries/datasets';

const input = z.object({
  project: z.uuid(),
  name: z.string().trim().min(1, 'Name the dataset').max(DATASET_NAME_MAX, `At most ${DATASET_NAME_MAX} characters`),
  kind: z.enum(['query', 'session', 'step']),
  query: z.string().max(500).default(''),
  session: z.string().default(''),
  call: z.string().default(''),
});

export interface SaveDatasetState extends ActionState {
  /** The new dataset's page (its items are copied from there on: the page shows the progress). */
  href?: string;
}

/**
 * Saves a dataset: the dataset row is made at once and its items copied in the background (the
 * dataset page shows how many so far); answers with the dataset's page as soon as the row exists.
 */
export async function saveDataset(_prev: SaveDatasetState, form: FormData): Promise<SaveDatasetState> {
  const parsed = input.safeParse(Object.fromEntries(['project', 'name', 'kind', 'query', 'session', 'call'].map((k) => [k, form.get(k) ?? undefined])));
  if (!parsed.success) return { ok: false, message: parsed.error.issues[0]?.message ?? 'Invalid input' };
  const { project, name, kind, query, session, call } = parsed.data;
  const source: DatasetSource = kind === 'query' ? { kind, query } : kind === 'session' ? { kind, sessionId: session } : { kind, sessionId: session, spanId: call };
  return guarded(project, 'manageDatasets', async (account) => {
    const q = prismaQueryable(db());
    let created: (id: string) => void = () => {};
    const started = new Promise<string>((resolve) => {
      created = resolve;
    });
    const done = createDataset(q, { projectId: project, name, source, createdBy: account.id, onCreated: (id) => created(id) });
    // The copy goes on after this answer; its end (or failure) is on the dataset's row.
    done.catch((err) => {
      if (!(err instanceof DatasetInputError)) console.error('dataset build failed', err);
    });
    let id: string;
    try {
      id = await Promise.race([started, done.then((d) => d.id)]);
    } catch (err) {
      if (err instanceof DatasetInputError) return { ok: false, message: err.message };
      throw err;
    }
    const row = await getDataset(q, project, id);
    await recordAudit(db(), { projectId: project, actor: account, action: 'dataset.created', target: name, details: { sourceKind: kind, source: row?.source ?? null, datasetId: id } });
    revalidatePath('/datasets');
    return { ok: true, message: `Saving the dataset “${name}”…`, href: `/datasets/${id}?project=${project}` };
  });
}

const removeInput = z.object({ project: z.uuid(), id: z.uuid() });

export async function removeDataset(_prev: ActionState, form: FormData): Promise<ActionState> {
  const parsed = removeInput.safeParse({ project: form.get('project'), id: form.get('id') });
  if (!parsed.success) return { ok: false, message: 'No such dataset', status: 404 };
  const { project, id } = parsed.data;
  return guarded(project, 'manageDatasets', async (account) => {
    const q = prismaQueryable(db());
    const row = await getDataset(q, project, id);
    if (!row || !(await deleteDataset(q, project, id))) return { ok: false, message: 'No such dataset', status: 404 };
    await recordAudit(db(), { projectId: project, actor: account, action: 'dataset.deleted', target: row.name, details: { itemCount: row.itemCount, datasetId: id } });
    revalidatePath('/datasets');
    return { ok: true, message: `Deleted the dataset “${row.name}”.` };
  });
}
