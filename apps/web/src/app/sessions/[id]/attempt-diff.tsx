'use client';

import { useId, useState } from 'react';
import { type DiffAttempt, type DiffMode, diffRows, pairFor } from '@/lib/attempt-diff-rows';
import { AttemptDiffTable } from './attempt-diff-table';

export interface AttemptDiffProps {
  /** The call's attempts, in order (at least two for a diff to show). */
  attempts: DiffAttempt[];
  /** Mode shown first (default `previous`). */
  initialMode?: DiffMode;
  /** Attempt number compared with the one before it in `previous` mode (default: the last). */
  initialAttempt?: number;
}

const MODES = [
  ['previous', 'Previous → this'],
  ['pair', 'Pair'],
  ['first-final', 'First → final'],
] as const;

/**
 * The arguments of two attempts of one call side by side as changed paths: previous → this,
 * any chosen pair, or first → final. Each field a failed check of the earlier attempt pointed
 * at is highlighted with what the later attempt did about it (rows: lib/attempt-diff-rows.ts).
 */
export function AttemptDiff({ attempts, initialMode = 'previous', initialAttempt }: AttemptDiffProps) {
  const numbers = attempts.map((a) => a.attempt);
  const last = numbers[numbers.length - 1] ?? 1;
  const [mode, setMode] = useState<DiffMode>(initialMode);
  const [chosen, setChosen] = useState(initialAttempt ?? last);
  const [from, setFrom] = useState(numbers[0] ?? 1);
  const [to, setTo] = useState(last);
  const id = useId();
  const pair = pairFor(mode, numbers, chosen, from, to);
  if (numbers.length < 2) return null;
  const before = attempts.find((a) => a.attempt === pair?.[0]);
  const after = attempts.find((a) => a.attempt === pair?.[1]);
  const diff = before && after ? diffRows(before, after) : null;
  const select = 'rounded border border-slate-300 bg-white px-1.5 py-0.5 text-xs text-slate-900 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500';
  const options = numbers.map((n) => (
    <option key={n} value={n}>
      #{n}
    </option>
  ));
  return (
    <section data-testid="attempt-diff" aria-labelledby={`${id}-title`} className="rounded-md border border-slate-200 bg-white p-3">
      <div className="flex flex-wrap items-center gap-3">
        <h4 id={`${id}-title`} className="text-[11px] font-semibold uppercase tracking-wide text-slate-600">
          Argument diff
        </h4>
        <fieldset className="flex flex-wrap items-center gap-2 text-xs text-slate-800">
          <legend className="sr-only">Compare</legend>
          {MODES.map(([value, label]) => (
            <label key={value} className="inline-flex cursor-pointer items-center gap-1">
              <input type="radio" name={`${id}-mode`} value={value} checked={mode === value} onChange={() => setMode(value)} className="accent-indigo-600" />
              {label}
            </label>
          ))}
        </fieldset>
        {mode === 'previous' ? (
          <label className="inline-flex items-center gap-1 text-xs text-slate-800">
            Attempt
            <select className={select} value={chosen} onChange={(e) => setChosen(Number(e.target.value))} data-testid="diff-attempt">
              {options.slice(1)}
            </select>
          </label>
        ) : null}
        {mode === 'pair' ? (
          <>
            <label className="inline-flex items-center gap-1 text-xs text-slate-800">
              From
              <select className={select} value={from} onChange={(e) => setFrom(Number(e.target.value))} data-testid="diff-from">
                {options}
              </select>
            </label>
            <label className="inline-flex items-center gap-1 text-xs text-slate-800">
              To
              <select className={select} value={to} onChange={(e) => setTo(Number(e.target.value))} data-testid="diff-to">
                {options}
              </select>
            </label>
          </>
        ) : null}
      </div>
      {!pair || !before || !after || !diff ? (
        <p className="mt-2 text-xs text-slate-600">Choose two different attempts.</p>
      ) : (
        <>
          <p className="mt-2 text-xs text-slate-700" data-testid="diff-pair">
            Attempt #{before.attempt} → #{after.attempt}:{' '}
            {diff.unrecorded !== null
              ? `the arguments of #${diff.unrecorded} were not recorded, so they are not compared${diff.changes ? '; the tool name changed' : ''}`
              : diff.changes === 0
                ? 'call unchanged'
                : `${diff.changes} changed field${diff.changes === 1 ? '' : 's'}`}
            {failedAt(before) > 0 ? `; #${before.attempt} failed at ${failedAt(before)} field${failedAt(before) === 1 ? '' : 's'}` : ''}
          </p>
          {diff.rows.length > 0 ? <AttemptDiffTable rows={diff.rows} before={before.attempt} after={after.attempt} /> : null}
        </>
      )}
    </section>
  );
}

/** Fields the attempt failed at: its failed argument pointers, and the tool name for an unknown tool. */
function failedAt(a: DiffAttempt): number {
  return a.failedPointers.length + (a.toolFailed ? 1 : 0);
}
