'use client';

import { type RefObject, useMemo } from 'react';
import { formatInt } from '@/lib/format';
import { searchSteps, searchText } from '@/lib/replay-nav';
import type { TimelineStepDto } from '@/server/queries/session-types';
import type { Via } from './replay-context';
import { StepList } from './step-list';

/**
 * The steps view's left pane: the step search (`/`; Enter and Shift+Enter jump between matches)
 * and the step list. The search index is built on the first search, not on every page load.
 */
export function StepsPane({
  steps,
  current,
  search,
  query,
  setQuery,
  onSelect,
  onJump,
}: {
  steps: TimelineStepDto[];
  current: number;
  search: RefObject<HTMLInputElement | null>;
  /** The search text (kept by the debugger across views). */
  query: string;
  setQuery: (q: string) => void;
  onSelect: (step: number, via: Via) => void;
  /** Selects step `step` (a match) by key. */
  onJump: (step: number) => void;
}) {
  const searching = query !== '';
  const index = useMemo(() => (searching ? steps.map(searchText) : null), [steps, searching]);
  const matches = useMemo(() => (index ? searchSteps(index, query) : []), [index, query]);
  const matchSet = useMemo(() => new Set(matches), [matches]);
  const jump = (dir: 1 | -1) => {
    const next = dir === 1 ? (matches.find((m) => m > current) ?? matches[0]) : (matches.findLast((m) => m < current) ?? matches.at(-1));
    if (next !== undefined) onJump(next);
  };
  return (
    <>
      <div className="mb-2 flex items-center gap-2">
        <label className="sr-only" htmlFor="step-search">
          Search steps
        </label>
        <input
          id="step-search"
          ref={search}
          data-testid="step-search"
          type="search"
          value={query}
          placeholder="Search steps ( / )"
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              jump(e.shiftKey ? -1 : 1);
            } else if (e.key === 'Escape') e.currentTarget.blur();
          }}
          className="min-w-0 flex-1 rounded-md border border-slate-300 px-2 py-1 text-sm"
        />
        <span data-testid="match-count" className="shrink-0 text-xs tabular-nums text-slate-500">
          {query ? `${formatInt(matches.length)} match${matches.length === 1 ? '' : 'es'}` : ''}
        </span>
      </div>
      {steps.length ? (
        <StepList steps={steps} current={current} matches={matchSet} onSelect={onSelect} />
      ) : (
        <p className="rounded-lg border border-dashed border-slate-300 bg-white px-6 py-12 text-center text-sm text-slate-600">
          No model calls, tool calls or spans recorded under this session’s root: see the span tree.
        </p>
      )}
    </>
  );
}
