'use client';

import { useCallback, useDeferredValue, useMemo, useRef, useState } from 'react';
import { TableSkeleton } from '@/components/skeletons';
import { defaultAttempt, moveStep, placeAttempt, wholeCall } from '@/lib/replay-nav';
import { replayDataUrl } from '@/lib/replay-urls';
import type { ReplayStepsDto, ReplayTreeDto } from '@/server/queries/session-types';
import { StepDetail } from './detail';
import { Escalations } from './escalations';
import { HelpDialog } from './panels';
import { ReplayBar } from './replay-bar';
import { ReplayContext, type ReplayContextValue, type Via } from './replay-context';
import { SpanTree } from './span-tree';
import { StepsPane } from './steps-pane';
import { useJson } from './use-json';
import { useReplayKeys } from './use-replay-keys';
import { useSameFailures } from './use-same-failures';
import { type InitialSelection, useSelectionUrl } from './use-selection-url';

export type { InitialSelection } from './use-selection-url';

/**
 * The stepping debugger: the selection and what shows it. Everything is loaded once; every key
 * and click is handled here in the browser. The selection lives in the URL (use-selection-url.ts),
 * the keys in use-replay-keys.ts, the bar, the escalations and the steps pane are their own
 * components. A step costs the two list rows whose selection changed and the detail pane: the
 * handlers read the selection from a ref, so callbacks, the context and the key listener never
 * change. The detail pane follows a deferred copy of the selection: the list's selection and the
 * step header paint first, the pane just after (skipped for steps passed over while a key is held).
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

  // An attempt of a call listed in parts is selected at the part that holds it.
  const select = useCallback(
    (step: number, attempt: number | null, via: Via) => {
      const at = attempt === null ? { step, attempt: defaultAttempt(steps[step - 1]) } : placeAttempt(steps, step, attempt);
      commit({ ...selRef.current, view: 'steps', ...at }, via);
    },
    [commit, steps, selRef],
  );
  const selectFromList = useCallback((step: number, via: Via) => select(step, null, via), [select]);
  const jumpTo = useCallback((step: number) => commit({ ...selRef.current, view: 'steps', ...moveStep(steps, { step, attempt: null }, 0) }, 'key'), [commit, steps, selRef]);
  const setView = useCallback((view: 'steps' | 'tree') => commit({ ...selRef.current, view }, 'click'), [commit, selRef]);
  const openHelp = useCallback(() => setHelp(true), []);

  useReplayKeys({ steps, project, search, selRef, commit, flushUrl, requestNav, setHelp, setNotice });

  const ctx = useMemo<ReplayContextValue>(
    () => ({ basePath, project, sessionId, sameFailure: navs, requestSameFailure: requestNav, select }),
    [basePath, project, sessionId, navs, requestNav, select],
  );
  const treeIndex = sel.span ? (treeIndexOf.get(sel.span) ?? -1) : -1;
  // null on the first render: the list and the keys come first, the detail pane a render later.
  const shown = useDeferredValue<typeof sel | null>(sel, null);
  const shownPart = shown ? steps[shown.step - 1] : undefined;
  // The detail shows a call listed in parts whole (every attempt, the diff).
  const shownStep = useMemo(() => (shownPart ? wholeCall(steps, shownPart) : undefined), [steps, shownPart]);
  const shownIndex = shown?.span ? (treeIndexOf.get(shown.span) ?? -1) : -1;
  const shownNode = shown?.view === 'tree' && shownIndex >= 0 ? spanTree?.[shownIndex] : undefined;

  return (
    <ReplayContext value={ctx}>
      <ReplayBar steps={steps} sel={sel} notice={notice} onView={setView} onHelp={openHelp} />
      <Escalations escalations={escalations} step={sel.step} />
      <div className="grid gap-4 lg:grid-cols-[minmax(0,24rem)_minmax(0,1fr)]">
        <div className="min-w-0">
          {sel.view === 'steps' ? (
            <StepsPane steps={steps} current={sel.step} search={search} query={query} setQuery={setQuery} onSelect={selectFromList} onJump={jumpTo} />
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
