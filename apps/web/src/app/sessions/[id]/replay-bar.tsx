'use client';

import { useMemo } from 'react';
import { formatInt } from '@/lib/format';
import type { TimelineStepDto } from '@/server/queries/session-types';
import type { Selection } from './use-selection-url';
import { stepLabel } from './step-list';

/** Tokens of the model turns up to each step (all, and those repairing a failed attempt). */
function tokensSoFar(steps: TimelineStepDto[]): { tokens: number; repair: number }[] {
  const sums: { tokens: number; repair: number }[] = [];
  let tokens = 0;
  let repair = 0;
  for (const s of steps) {
    if (s.kind === 'model') {
      tokens += s.inputTokens + s.outputTokens;
      if (s.repairFailureClass) repair += s.inputTokens + s.outputTokens;
    }
    sums.push({ tokens, repair });
  }
  return sums;
}

const TAB = 'rounded-md px-3 py-1 text-sm font-medium';

/** The replay's bar: where the selection is, the tokens spent so far, the view (steps or span tree), help and notices. */
export function ReplayBar({
  steps,
  sel,
  notice,
  onView,
  onHelp,
}: {
  steps: TimelineStepDto[];
  sel: Selection;
  notice: string | null;
  onView: (view: Selection['view']) => void;
  onHelp: () => void;
}) {
  const before = useMemo(() => tokensSoFar(steps), [steps]);
  const current = steps[sel.step - 1];
  const progress = before[sel.step - 1];
  return (
    <div data-testid="replay" className="mb-3 flex flex-wrap items-center gap-3 rounded-lg border border-slate-200 bg-white px-3 py-2 shadow-sm">
      <span className="text-sm tabular-nums text-slate-700" data-testid="replay-position">
        Step {formatInt(sel.step)} of {formatInt(steps.length)}
      </span>
      {current ? <span className="min-w-0 max-w-72 truncate font-mono text-sm text-slate-600">{stepLabel(current)}</span> : null}
      {progress ? (
        <span className="text-xs tabular-nums text-slate-500" data-testid="replay-progress">
          {formatInt(progress.tokens)} tokens so far · {formatInt(progress.repair)} repair
        </span>
      ) : null}
      <fieldset className="ml-auto flex items-center gap-1">
        <legend className="sr-only">View</legend>
        <button
          type="button"
          aria-pressed={sel.view === 'steps'}
          className={`${TAB} ${sel.view === 'steps' ? 'bg-slate-800 text-white' : 'text-slate-700 hover:bg-slate-100'}`}
          onClick={() => onView('steps')}
        >
          Steps
        </button>
        <button
          type="button"
          data-testid="view-tree"
          aria-pressed={sel.view === 'tree'}
          className={`${TAB} ${sel.view === 'tree' ? 'bg-slate-800 text-white' : 'text-slate-700 hover:bg-slate-100'}`}
          onClick={() => onView('tree')}
        >
          Span tree
        </button>
        <button type="button" data-testid="help-button" className={`${TAB} text-slate-700 hover:bg-slate-100`} onClick={onHelp} aria-label="Keyboard shortcuts">
          ?
        </button>
      </fieldset>
      <span role="status" className="text-xs text-emerald-700" data-testid="replay-notice">
        {notice}
      </span>
    </div>
  );
}
