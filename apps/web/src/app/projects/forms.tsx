'use client';

import { useActionState } from 'react';
import type { ActionState } from '@/server/action-guard';
import { createProjectAction, deleteProjectAction, renameProjectAction } from './actions';

const INITIAL: ActionState = { ok: true, message: '' };
export const INPUT =
  'rounded-md border border-slate-300 px-3 py-1.5 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500';
export const BUTTON =
  'rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700 disabled:cursor-wait disabled:opacity-60';

export function Message({ state }: { state: ActionState }) {
  if (!state.message) return null;
  return (
    <p className={`mt-2 text-sm ${state.ok ? 'text-emerald-700' : 'text-red-700'}`} role="status" aria-live="polite">
      {state.message}
    </p>
  );
}

export function CreateProjectForm() {
  const [state, action, pending] = useActionState(createProjectAction, INITIAL);
  return (
    <form action={action} data-testid="create-project-form" className="flex flex-wrap items-center gap-2">
      <label className="sr-only" htmlFor="new-project-name">
        Project name
      </label>
      <input id="new-project-name" name="name" placeholder="New project name" maxLength={80} required className={`${INPUT} w-72`} />
      <button type="submit" className={BUTTON} disabled={pending}>
        Create project
      </button>
      <Message state={state} />
    </form>
  );
}

export function RenameProjectForm({ project, name }: { project: string; name: string }) {
  const [state, action, pending] = useActionState(renameProjectAction, INITIAL);
  return (
    <form action={action} data-testid="rename-project-form" className="flex flex-wrap items-center gap-2">
      <input type="hidden" name="project" value={project} />
      <label className="sr-only" htmlFor={`rename-${project}`}>
        New name
      </label>
      <input id={`rename-${project}`} name="name" defaultValue={name} maxLength={80} required className={`${INPUT} w-56`} />
      <button type="submit" className={BUTTON} disabled={pending}>
        Rename
      </button>
      <Message state={state} />
    </form>
  );
}

export function DeleteProjectForm({ project, name }: { project: string; name: string }) {
  const [state, action, pending] = useActionState(deleteProjectAction, INITIAL);
  return (
    <form action={action} data-testid="delete-project-form" className="flex flex-wrap items-center gap-2">
      <input type="hidden" name="project" value={project} />
      <label className="sr-only" htmlFor={`confirm-${project}`}>
        Type the project name to delete it
      </label>
      <input id={`confirm-${project}`} name="confirm" placeholder={`Type "${name}" to delete`} required className={`${INPUT} w-56`} />
      <button type="submit" className="rounded-md border border-red-300 px-3 py-1.5 text-sm font-medium text-red-700 hover:bg-red-50" disabled={pending}>
        Delete project
      </button>
      <Message state={state} />
    </form>
  );
}
