'use client';

import { useActionState } from 'react';
import type { ActionState } from '@/server/action-guard';
import { createKey, updateRetention, updateSampleRate } from './actions';

const INITIAL: ActionState = { ok: true, message: '' };
const INPUT =
  'rounded-md border border-slate-300 px-3 py-1.5 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500';
const BUTTON =
  'rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700 disabled:cursor-wait disabled:opacity-60';

function Message({ state }: { state: ActionState }) {
  if (!state.message) return null;
  return (
    <p className={`mt-2 text-sm ${state.ok ? 'text-emerald-700' : 'text-red-700'}`} role="status" aria-live="polite">
      {state.message}
    </p>
  );
}

export function SampleRateForm({ project, rate }: { project: string; rate: number }) {
  const [state, action, pending] = useActionState(updateSampleRate, INITIAL);
  return (
    <form action={action} data-testid="sample-rate-form">
      <input type="hidden" name="project" value={project} />
      <label htmlFor="percent" className="block text-sm font-medium text-slate-800">
        Clean sessions kept
      </label>
      <div className="mt-1 flex items-center gap-2">
        <input
          id="percent"
          name="percent"
          type="number"
          min={0}
          max={100}
          step={0.1}
          defaultValue={Math.round(rate * 1000) / 10}
          className={`${INPUT} w-28 text-right tabular-nums`}
          required
        />
        <span className="text-sm text-slate-600">%</span>
        <button type="submit" className={BUTTON} disabled={pending}>
          Save
        </button>
      </div>
      <Message state={state} />
    </form>
  );
}

export function RetentionForm({ project, days }: { project: string; days: number | null }) {
  const [state, action, pending] = useActionState(updateRetention, INITIAL);
  return (
    <form action={action} data-testid="retention-form">
      <input type="hidden" name="project" value={project} />
      <label htmlFor="retention-days" className="block text-sm font-medium text-slate-800">
        Keep sessions for
      </label>
      <div className="mt-1 flex items-center gap-2">
        <input
          id="retention-days"
          name="days"
          type="number"
          min={1}
          step={1}
          placeholder="default"
          defaultValue={days ?? ''}
          className={`${INPUT} w-28 text-right tabular-nums`}
        />
        <span className="text-sm text-slate-600">days after they end</span>
        <button type="submit" className={BUTTON} disabled={pending}>
          Save
        </button>
      </div>
      <Message state={state} />
    </form>
  );
}

export function CreateKeyForm({ project }: { project: string }) {
  const [state, action, pending] = useActionState(createKey, INITIAL);
  return (
    <form action={action} data-testid="create-key-form">
      <input type="hidden" name="project" value={project} />
      <div className="flex flex-wrap items-center gap-2">
        <label htmlFor="key-name" className="sr-only">
          Key name
        </label>
        <input id="key-name" name="name" placeholder="Key name, e.g. production agents" className={`${INPUT} w-72`} required />
        <button type="submit" className={BUTTON} disabled={pending}>
          Create key
        </button>
      </div>
      <Message state={state} />
      {state.key ? (
        <pre
          data-testid="new-api-key"
          className="mt-2 overflow-x-auto rounded-md border border-emerald-200 bg-emerald-50 p-3 font-mono text-sm text-emerald-950 select-all"
        >
          {state.key}
        </pre>
      ) : null}
    </form>
  );
}

/** Submit button of the revoke form: asks first, since agents using the key start getting 403. */
export function RevokeButton({ name }: { name: string }) {
  return (
    <button
      type="submit"
      className="text-sm font-medium text-red-700 hover:underline"
      onClick={(e) => {
        if (!window.confirm(`Revoke "${name}"? Agents using it will be rejected (403).`)) e.preventDefault();
      }}
    >
      Revoke
    </button>
  );
}
