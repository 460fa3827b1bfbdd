'use client';

import { useActionState } from 'react';
import type { ActionState } from '@/server/action-guard';
import { saveModelPrice } from './prices-actions';

const INITIAL: ActionState = { ok: true, message: '' };
const INPUT =
  'rounded-md border border-slate-300 px-3 py-1.5 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500';
const BUTTON =
  'rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700 disabled:cursor-wait disabled:opacity-60';

function Field({ id, label, name, mono }: { id: string; label: string; name: string; mono?: boolean }) {
  return (
    <div>
      <label htmlFor={id} className="block text-xs font-medium text-slate-700">
        {label}
      </label>
      {mono ? (
        <input id={id} name={name} required maxLength={120} placeholder="gpt-4.1" className={`${INPUT} mt-1 w-48 font-mono`} />
      ) : (
        <input id={id} name={name} type="number" required min={0} step="any" className={`${INPUT} mt-1 w-28 text-right tabular-nums`} />
      )}
    </div>
  );
}

/** A project price of a model, in US dollars per million tokens. */
export function ModelPriceForm({ project }: { project: string }) {
  const [state, action, pending] = useActionState(saveModelPrice, INITIAL);
  return (
    <form action={action} data-testid="model-price-form">
      <input type="hidden" name="project" value={project} />
      <div className="flex flex-wrap items-end gap-3">
        <Field id="price-model" label="Model" name="model" mono />
        <Field id="price-input" label="Input $ / 1M" name="input" />
        <Field id="price-cached" label="Cached input $ / 1M" name="cached" />
        <Field id="price-output" label="Output $ / 1M" name="output" />
        <button type="submit" className={BUTTON} disabled={pending}>
          Save price
        </button>
      </div>
      {state.message ? (
        <p className={`mt-2 text-sm ${state.ok ? 'text-emerald-700' : 'text-red-700'}`} role="status" aria-live="polite">
          {state.message}
        </p>
      ) : null}
    </form>
  );
}
