'use client';

import { useRouter } from 'next/navigation';
import { useActionState, useEffect, useId } from 'react';
import { type SaveDatasetState, saveDataset } from './actions';

const INITIAL: SaveDatasetState = { ok: false, message: '' };

export interface SaveDatasetFormProps {
  project: string;
  /** `query`: the explorer's current query; `session`: all calls of a session; `step`: one call. */
  kind: 'query' | 'session' | 'step';
  query?: string;
  session?: string;
  call?: string;
  /** The name proposed. */
  defaultName: string;
}

/** "Save as dataset": a name, then the dataset's page (which shows the copy's progress). */
export function SaveDatasetForm({ project, kind, query, session, call, defaultName }: SaveDatasetFormProps) {
  const [state, action, pending] = useActionState(saveDataset, INITIAL);
  const router = useRouter();
  const nameId = useId();
  useEffect(() => {
    if (state.ok && state.href) router.push(state.href);
  }, [state, router]);
  return (
    <details className="relative inline-block text-sm" data-testid={`save-dataset-${kind}`}>
      <summary className="cursor-pointer list-none rounded border border-slate-300 bg-white px-2 py-0.5 text-xs font-medium text-slate-800 hover:bg-slate-50">
        Save as dataset
      </summary>
      <form action={action} className="absolute right-0 z-20 mt-1 flex w-72 flex-col gap-2 rounded-md border border-slate-200 bg-white p-3 shadow-lg">
        <input type="hidden" name="project" value={project} />
        <input type="hidden" name="kind" value={kind} />
        <input type="hidden" name="query" value={query ?? ''} />
        <input type="hidden" name="session" value={session ?? ''} />
        <input type="hidden" name="call" value={call ?? ''} />
        <label htmlFor={nameId} className="text-xs font-medium text-slate-700">
          Dataset name
        </label>
        <input id={nameId} name="name" defaultValue={defaultName} required maxLength={200} className="rounded border border-slate-300 px-2 py-1 text-sm" />
        <p className="text-xs text-slate-600">
          {kind === 'query'
            ? 'Saves the tool calls of the sessions listed; tool:, class:, failed:, decision:, budget:, unfixed:, repaired: and started: also narrow the calls themselves.'
            : kind === 'session'
              ? 'Saves every tool call of this session.'
              : 'Saves this tool call.'}
        </p>
        <button type="submit" disabled={pending} className="rounded bg-indigo-600 px-2 py-1 text-xs font-medium text-white hover:bg-indigo-700 disabled:opacity-60">
          {pending ? 'Saving…' : 'Save'}
        </button>
        <p role="status" aria-live="polite" className={`text-xs ${state.ok ? 'text-slate-700' : 'text-red-700'}`}>
          {state.message}
        </p>
      </form>
    </details>
  );
}
