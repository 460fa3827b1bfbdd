'use client';

import { useId, useState } from 'react';
import { diffJson, type JsonChange, type PointerOutcome, type PointerVerdict, pointerVerdicts, related, valueAt } from '@/lib/json-diff';

/** One attempt of a tool call, as the diff needs it. */
export interface DiffAttempt {
  /** 1-based attempt number. */
  attempt: number;
  /** The arguments as a value (parsed JSON; text that is not JSON stays a string). */
  args: unknown;
  /** JSON pointers of the fields this attempt's failed checks objected to. */
  failedPointers: string[];
  failureClass: string | null;
  /** True when every check passed (the attempt ran, or succeeded). */
  passed: boolean;
}

export type DiffMode = 'previous' | 'pair' | 'first-final';

export interface AttemptDiffProps {
  /** The call's attempts, in order (at least two for a diff to show). */
  attempts: DiffAttempt[];
  /** Mode shown first (default `previous`). */
  initialMode?: DiffMode;
  /** Attempt number compared with the one before it in `previous` mode (default: the last). */
  initialAttempt?: number;
}

const VERDICT_TEXT: Record<PointerVerdict, string> = {
  fixed: 'fixed',
  'still-failing': 'still failing',
  'changed-something-else': 'changed something else',
  ignored: 'ignored',
};

const VERDICT_HELP: Record<PointerVerdict, string> = {
  fixed: 'the value at the failed field changed and the check passed',
  'still-failing': 'the value changed, the check still fails there',
  'changed-something-else': 'the failed field is unchanged; other fields changed',
  ignored: 'nothing changed',
};

// Dark text on light tints: every pair is above 4.5:1.
const VERDICT_STYLE: Record<PointerVerdict, string> = {
  fixed: 'bg-emerald-50 text-emerald-900 ring-emerald-300',
  'still-failing': 'bg-red-50 text-red-900 ring-red-300',
  'changed-something-else': 'bg-amber-50 text-amber-950 ring-amber-300',
  ignored: 'bg-slate-100 text-slate-800 ring-slate-300',
};

const KIND_STYLE: Record<JsonChange['kind'], string> = {
  added: 'text-emerald-800',
  removed: 'text-red-800',
  changed: 'text-amber-900',
  moved: 'text-indigo-800',
};

function show(v: unknown, present: boolean): string {
  if (!present) return '(absent)';
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s;
}

function Value({ value, present }: { value: unknown; present: boolean }) {
  return (
    <code className={`block max-h-40 overflow-auto whitespace-pre-wrap font-mono text-xs wrap-anywhere ${present ? 'text-slate-900' : 'italic text-slate-500'}`}>
      {show(value, present)}
    </code>
  );
}

function PointerVerdictBadge({ verdict }: { verdict: PointerVerdict }) {
  return (
    <span
      data-testid="pointer-verdict"
      data-verdict={verdict}
      title={VERDICT_HELP[verdict]}
      className={`inline-flex items-center whitespace-nowrap rounded-md px-2 py-0.5 text-xs font-semibold ring-1 ring-inset ${VERDICT_STYLE[verdict]}`}
    >
      {VERDICT_TEXT[verdict]}
    </span>
  );
}

/** The two attempts a mode compares: [earlier, later] numbers. */
function pairFor(mode: DiffMode, numbers: number[], chosen: number, from: number, to: number): [number, number] | null {
  if (numbers.length < 2) return null;
  const firstN = numbers[0] as number;
  const lastN = numbers[numbers.length - 1] as number;
  if (mode === 'first-final') return [firstN, lastN];
  if (mode === 'pair') return from === to ? null : from < to ? [from, to] : [to, from];
  const i = numbers.indexOf(chosen);
  return i > 0 ? [numbers[i - 1] as number, chosen] : [firstN, numbers[1] as number];
}

interface Row {
  change: JsonChange | null;
  pointer: string;
  outcome: PointerOutcome | undefined;
}

/** Changed paths, plus each failed pointer that did not change (so it is never missing from the list). */
function rowsOf(changes: JsonChange[], outcomes: PointerOutcome[]): Row[] {
  const rows: Row[] = changes.map((c) => ({
    change: c,
    pointer: c.pointer,
    outcome: outcomes.find((o) => o.changes.includes(c)),
  }));
  for (const o of outcomes) if (o.changes.length === 0) rows.push({ change: null, pointer: o.pointer, outcome: o });
  return rows;
}

/**
 * The arguments of two attempts of one call side by side as changed paths: previous → this,
 * any chosen pair, or first → final. Each field a failed check of the earlier attempt pointed
 * at is highlighted with what the later attempt did about it.
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
  const changes = before && after ? diffJson(before.args, after.args) : [];
  const outcomes = before && after ? pointerVerdicts(before, after, changes) : [];
  const rows = rowsOf(changes, outcomes);
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
          {(
            [
              ['previous', 'Previous → this'],
              ['pair', 'Pair'],
              ['first-final', 'First → final'],
            ] as const
          ).map(([value, label]) => (
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
      {!pair || !before || !after ? (
        <p className="mt-2 text-xs text-slate-600">Choose two different attempts.</p>
      ) : (
        <>
          <p className="mt-2 text-xs text-slate-700" data-testid="diff-pair">
            Attempt #{before.attempt} → #{after.attempt}: {changes.length === 0 ? 'arguments unchanged' : `${changes.length} changed path${changes.length === 1 ? '' : 's'}`}
            {before.failedPointers.length > 0 ? `; #${before.attempt} failed at ${before.failedPointers.length} field${before.failedPointers.length === 1 ? '' : 's'}` : ''}
          </p>
          {rows.length > 0 ? (
            <table className="mt-2 w-full table-fixed text-xs">
              <caption className="sr-only">
                Changed argument paths from attempt {before.attempt} to attempt {after.attempt}
              </caption>
              <thead>
                <tr className="text-left text-[11px] uppercase tracking-wide text-slate-600">
                  <th scope="col" className="w-[28%] py-1 pl-2 pr-2 font-medium">Path</th>
                  <th scope="col" className="w-[12%] py-1 pr-2 font-medium">Change</th>
                  <th scope="col" className="py-1 pr-2 font-medium">Before (#{before.attempt})</th>
                  <th scope="col" className="py-1 pr-2 font-medium">After (#{after.attempt})</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {rows.map((r) => {
                  const failed = r.outcome !== undefined || before.failedPointers.some((p) => related(p, r.pointer));
                  const b = r.change ? { present: r.change.kind !== 'added', value: r.change.before } : presence(before.args, r.pointer);
                  const a = r.change ? { present: r.change.kind !== 'removed', value: r.change.after } : presence(after.args, r.pointer);
                  return (
                    <tr
                      key={`${r.change?.kind ?? 'same'}:${r.pointer}:${r.change?.beforePointer ?? ''}`}
                      data-testid="diff-change"
                      data-pointer={r.pointer}
                      data-failed={failed ? 'true' : undefined}
                      className={`align-top ${failed ? 'bg-rose-50 outline-2 -outline-offset-2 outline-rose-400' : ''}`}
                    >
                      <th scope="row" className="py-1.5 pl-2 pr-2 text-left font-mono font-normal text-slate-900 wrap-anywhere">
                        {r.pointer === '' ? '(whole value)' : r.pointer}
                        {r.change?.beforePointer && r.change.beforePointer !== r.pointer ? (
                          <span className="block text-[11px] text-slate-600">was {r.change.beforePointer}</span>
                        ) : null}
                        {failed ? (
                          <span className="mt-1 flex flex-wrap items-center gap-1 font-sans">
                            <span className="text-[11px] font-semibold text-rose-900">failed check</span>
                            {r.outcome ? <PointerVerdictBadge verdict={r.outcome.verdict} /> : null}
                          </span>
                        ) : null}
                      </th>
                      <td className={`py-1.5 pr-2 font-medium ${r.change ? KIND_STYLE[r.change.kind] : 'text-slate-700'}`}>{r.change ? r.change.kind : 'unchanged'}</td>
                      <td className="py-1.5 pr-2">
                        <Value value={b.value} present={b.present} />
                      </td>
                      <td className="py-1.5 pr-2">
                        <Value value={a.value} present={a.present} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          ) : null}
        </>
      )}
    </section>
  );
}

function presence(root: unknown, pointer: string): { present: boolean; value: unknown } {
  try {
    const v = valueAt(root, pointer);
    return v.found ? { present: true, value: v.value } : { present: false, value: undefined };
  } catch {
    // not a pointer (a hand-made prop): shown as absent rather than breaking the page
    return { present: false, value: undefined };
  }
}
