'use client';

import { useCallback, useDeferredValue, useMemo, useRef, useState } from 'react';
import { TableSkeleton } from '@/components/skeletons';
import { type CallFailureSignature, signatureKey } from '@/lib/call-failures';
import { formatInt } from '@/lib/format';
import { defaultAttempt, moveStep, searchSteps, searchText } from '@/lib/replay-nav';
import { replayDataUrl, sameFailureUrl } from '@/lib/replay-urls';
import type { SameFailureNav } from '@/server/queries/same-failure';
import type { ReplayStepsDto, ReplayTreeDto } from '@/server/queries/session-types';
import { StepDetail } from './detail';
import { Escalations, HelpDialog } from './panels';
import { ReplayContext, type ReplayContextValue, type Via } from './replay-context';
import { SpanTree } from './span-tree';
import { StepList, stepLabel } from './step-list';
import { getJson, useJson } from './use-json';
import { useReplayKeys } from './use-replay-keys';
import { type InitialSelection, useSelectionUrl } from './use-selection-url';

export type { InitialSelection } from './use-selection-url';

/**
 * The "same failure" navigation of the session's failures, loaded on first ask (one request per
 * distinct failure): the selected call shows it, and n / N wait for it.
 */
function useSameFailures(basePath: string, project: string) {
  const [navs, setNavs] = useState<Record<string, SameFailureNav | null>>({});
  const pending = useRef(new Map<string, Promise<SameFailureNav | null>>());
  const requestNav = useCallback(
    (sig: CallFailureSignature): Promise<SameFailureNav | null> => {
      const k = signatureKey(sig);
      let p = pending.current.get(k);
      if (!p) {
        // A failure the server cannot place (no such session any more) has no navigation: shown as none.
        p = getJson<SameFailureNav>(sameFailureUrl(basePath, project, sig)).catch(() => null);
        pending.current.set(k, p);
        p.then((nav) => setNavs((m) => ({ ...m, [k]: nav })));
      }
      return p;
    },
    [basePath, project],
  );
  return { navs, requestNav };
}

/**
 * The stepping debugger. Everything is loaded once; every key and click is handled here in the
 * browser. The selection lives in the URL (use-selection-url.ts), the keys in use-replay-keys.ts.
 * A step costs the two list rows whose selection changed and the detail pane: the handlers read
 * the selection from a ref, so callbacks, the context and the key listener never change. The
 * detail pane follows a deferred copy of the selection: the list's selection and the step header
 * paint first, the pane just after (skipped for steps passed over while a key is held).
 */
export function Debugger({
  data,
  project,
  sessionId,
  basePath,
  initial,
}: {
  data: ReplayStepsDto;
  project: string;
  sessionId: string;
  basePath: string;
  initial: InitialSelection;
}) {
  const { steps, escalations } = data;
  const { sel, selRef, commit, flushUrl } = useSelectionUrl(steps, basePath, project, initial);
  const [query, setQuery] = useState('');
  const [help, setHelp] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const search = useRef<HTMLInputElement>(null);
  const { navs, requestNav } = useSameFailures(basePath, project);

  // The span tree is every span again: loaded the first time the tree view opens, then kept.
  const [treeOpened, setTreeOpened] = useState(sel.view === 'tree');
  if (sel.view === 'tree' && !treeOpened) setTreeOpened(true);
  const treeData = useJson<ReplayTreeDto>(treeOpened ? replayDataUrl(basePath, project, 'tree') : null);
  const spanTree = treeData.state === 'ready' ? treeData.value.spanTree : null;
  const treeIndexOf = useMemo(() => new Map((spanTree ?? []).map((n, i) => [n.spanId, i])), [spanTree]);

  // The search index is built on the first search, not on every page load.
  const searching = query !== '';
  const index = useMemo(() => (searching ? steps.map(searchText) : null), [steps, searching]);
  const matches = useMemo(() => (index ? searchSteps(index, query) : []), [index, query]);
  const matchSet = useMemo(() => new Set(matches), [matches]);
  const tokensBefore = useMemo(() => {
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
  }, [steps]);

  const select = useCallback(
    (step: number, attempt: number | null, via: Via) => {
      const s = steps[step - 1];
      commit({ ...selRef.current, view: 'steps', step, attempt: attempt ?? defaultAttempt(s) }, via);
    },
    [commit, steps, selRef],
  );
  const selectFromList = useCallback((step: number, via: Via) => select(step, null, via), [select]);

  const jumpMatch = useCallback(
    (dir: 1 | -1) => {
      if (!matches.length) return;
      const at = selRef.current.step;
      const next = dir === 1 ? (matches.find((m) => m > at) ?? matches[0]) : (matches.findLast((m) => m < at) ?? matches.at(-1));
      if (next !== undefined) commit({ ...selRef.current, view: 'steps', ...moveStep(steps, { step: next, attempt: null }, 0) }, 'key');
    },
    [commit, matches, steps, selRef],
  );

  useReplayKeys({ steps, project, search, selRef, commit, flushUrl, requestNav, setHelp, setNotice });

  const ctx = useMemo<ReplayContextValue>(
    () => ({ basePath, project, sessionId, sameFailure: navs, requestSameFailure: requestNav, select }),
    [basePath, project, sessionId, navs, requestNav, select],
  );
  const current = steps[sel.step - 1];
  const progress = tokensBefore[sel.step - 1];
  const treeIndex = sel.span ? (treeIndexOf.get(sel.span) ?? -1) : -1;
  // null on the first render: the list and the keys come first, the detail pane a render later.
  const shown = useDeferredValue<typeof sel | null>(sel, null);
  const shownStep = shown ? steps[shown.step - 1] : undefined;
  const shownIndex = shown?.span ? (treeIndexOf.get(shown.span) ?? -1) : -1;
  const shownNode = shown?.view === 'tree' && shownIndex >= 0 ? spanTree?.[shownIndex] : undefined;
  const tab = 'rounded-md px-3 py-1 text-sm font-medium';

  return (
    <ReplayContext value={ctx}>
      <div
        data-testid="replay"
        className="mb-3 flex flex-wrap items-center gap-3 rounded-lg border border-slate-200 bg-white px-3 py-2 shadow-sm"
      >
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
            className={`${tab} ${sel.view === 'steps' ? 'bg-slate-800 text-white' : 'text-slate-700 hover:bg-slate-100'}`}
            onClick={() => commit({ ...selRef.current, view: 'steps' }, 'click')}
          >
            Steps
          </button>
          <button
            type="button"
            data-testid="view-tree"
            aria-pressed={sel.view === 'tree'}
            className={`${tab} ${sel.view === 'tree' ? 'bg-slate-800 text-white' : 'text-slate-700 hover:bg-slate-100'}`}
            onClick={() => commit({ ...selRef.current, view: 'tree' }, 'click')}
          >
            Span tree
          </button>
          <button
            type="button"
            data-testid="help-button"
            className={`${tab} text-slate-700 hover:bg-slate-100`}
            onClick={() => setHelp(true)}
            aria-label="Keyboard shortcuts"
          >
            ?
          </button>
        </fieldset>
        <span role="status" className="text-xs text-emerald-700" data-testid="replay-notice">
          {notice}
        </span>
      </div>
      <Escalations escalations={escalations} />
      <div className="grid gap-4 lg:grid-cols-[minmax(0,24rem)_minmax(0,1fr)]">
        <div className="min-w-0">
          {sel.view === 'steps' ? (
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
                      jumpMatch(e.shiftKey ? -1 : 1);
                    } else if (e.key === 'Escape') e.currentTarget.blur();
                  }}
                  className="min-w-0 flex-1 rounded-md border border-slate-300 px-2 py-1 text-sm"
                />
                <span data-testid="match-count" className="shrink-0 text-xs tabular-nums text-slate-500">
                  {query ? `${formatInt(matches.length)} match${matches.length === 1 ? '' : 'es'}` : ''}
                </span>
              </div>
              {steps.length ? (
                <StepList steps={steps} current={sel.step} matches={matchSet} onSelect={selectFromList} />
              ) : (
                <p className="rounded-lg border border-dashed border-slate-300 bg-white px-6 py-12 text-center text-sm text-slate-600">
                  No model calls, tool calls or spans recorded under this session’s root: see the span tree.
                </p>
              )}
            </>
          ) : treeData.state === 'error' ? (
            <p role="alert" className="text-sm text-red-800">
              Could not load the span tree: {treeData.message}
            </p>
          ) : !spanTree ? (
            <TableSkeleton />
          ) : (
            <SpanTree
              nodes={spanTree}
              current={treeIndex}
              onSelect={(i) => {
                const n = spanTree[i];
                if (n) commit({ ...selRef.current, span: n.spanId, ...(n.step ? { step: n.step, attempt: defaultAttempt(steps[n.step - 1]) } : {}) }, 'click');
              }}
            />
          )}
        </div>
        <section aria-label="Selected step" aria-busy={shown !== sel} data-testid="step-detail" className="min-w-0">
          {shown ? <StepDetail step={shownNode && shownNode.step === null ? null : shownStep} attempt={shown.attempt} treeNode={shownNode} /> : null}
        </section>
      </div>
      {help ? <HelpDialog onClose={() => setHelp(false)} /> : null}
    </ReplayContext>
  );
}
