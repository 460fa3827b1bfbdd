'use client';

import { useRouter } from 'next/navigation';
import { useActionState, useEffect } from 'react';
import type { ActionState } from '@/server/action-guard';
import { removeDataset } from '../actions';

const INITIAL: ActionState = { ok: false, message: '' };

/** Deletes the dataset (members), then back to the list. */
export function DeleteDatasetForm({ project, id }: { project: string; id: string }) {
  const [state, action, pending] = useActionState(removeDataset, INITIAL);
  const router = useRouter();
  useEffect(() => {
    if (state.ok) router.push(`/datasets?project=${project}`);
  }, [state, router, project]);
  return (
    <form action={action} className="flex items-center gap-2">
      <input type="hidden" name="project" value={project} />
      <input type="hidden" name="id" value={id} />
      <button type="submit" disabled={pending} className="rounded border border-red-300 bg-white px-2 py-1 text-xs font-medium text-red-700 hover:bg-red-50 disabled:opacity-60">
        Delete dataset
      </button>
      <span role="status" aria-live="polite" className="text-xs text-red-700">
        {state.ok ? '' : state.message}
      </span>
    </form>
  );
}
