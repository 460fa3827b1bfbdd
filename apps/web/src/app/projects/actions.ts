'use server';

import { checkProjectName, createOwnedProject, deleteProject, renameProject } from '@guardtrace/db';
import { revalidatePath } from 'next/cache';
import { redirect } from 'next/navigation';
import { z } from 'zod';
import { type ActionState, guarded } from '@/server/action-guard';
import { requireAccount } from '@/server/accounts';
import { db } from '@/server/db';

const nameField = z.string().refine((v) => {
  try {
    checkProjectName(v);
    return true;
  } catch {
    return false;
  }
}, 'A project name has 1 to 80 characters');

/** Any signed-in account may start a project; it becomes the project's owner. */
export async function createProjectAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const account = await requireAccount();
  const name = nameField.safeParse(form.get('name'));
  if (!name.success) return { ok: false, message: name.error.issues[0]?.message ?? 'Invalid name' };
  const project = await createOwnedProject(db(), name.data, account);
  redirect(`/settings?project=${project.id}`);
}

const renameInput = z.object({ project: z.uuid(), name: nameField });

export async function renameProjectAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const input = renameInput.safeParse({ project: form.get('project'), name: form.get('name') });
  if (!input.success) return { ok: false, message: input.error.issues[0]?.message ?? 'Invalid input' };
  const { project, name } = input.data;
  return guarded(project, 'manageProject', async (account) => {
    await renameProject(db(), project, name, account);
    revalidatePath('/projects');
    return { ok: true, message: 'Renamed.' };
  });
}

const deleteInput = z.object({ project: z.uuid(), confirm: z.string() });

/** Deletes the project with all its sessions and keys; the owner types its name to confirm. */
export async function deleteProjectAction(_prev: ActionState, form: FormData): Promise<ActionState> {
  const input = deleteInput.safeParse({ project: form.get('project'), confirm: form.get('confirm') });
  if (!input.success) return { ok: false, message: 'Invalid input' };
  const { project, confirm } = input.data;
  const result = await guarded(project, 'manageProject', async () => {
    const row = await db().project.findUnique({ where: { id: project }, select: { name: true } });
    if (!row || row.name !== confirm.trim()) return { ok: false, message: `Type the project's name, ${row?.name ?? ''}, to delete it.` };
    await deleteProject(db(), project);
    return { ok: true, message: 'Deleted.' };
  });
  if (result.ok) redirect('/projects');
  return result;
}
