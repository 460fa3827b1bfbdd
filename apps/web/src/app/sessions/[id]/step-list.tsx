'use client';

import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useRef } from 'react';
import { classStyle } from '@/lib/failure-classes';
import { formatDuration, formatInt } from '@/lib/format';
import { stepFailed } from '@/lib/replay-nav';
import type { TimelineStepDto, ToolCallStepDto } from '@/server/queries/session-types';
import { attemptColor } from './attempt-timeline';
import type { Via } from './replay-context';

// One line per step: a fixed height lets the virtualizer place 5,000 rows without measuring them.
export const ROW_HEIGHT = 44;

export function stepLabel(s: TimelineStepDto): string {
  // Every tool the model named up to this step: a hallucinated name shows beside its correction.
  if (s.kind === 'tool') return s.toolNames.length ? s.toolNames.join(' → ') : s.toolName;
  if (s.kind === 'model') return s.model ?? 'model';
  if (s.kind === 'guard') return s.guardName;
  return s.name;
}

/** The decision a row shows: the call's, or for a part of a call (call-parts.ts) its last attempt's. */
function rowDecision(s: ToolCallStepDto): string | null {
  return s.part ? (s.attempts.at(-1)?.decision ?? null) : s.decision;
}

const KIND = { tool: 'tool', model: 'model', guard: 'guard', span: 'span' } as const;

// Memoized: a step re-renders the two rows whose selection changed, not the ~40 in view.
const Row = memo(function Row({
  s,
  current,
  match,
  onSelect,
}: {
  s: TimelineStepDto;
  current: boolean;
  match: boolean;
  onSelect: (step: number, via: Via) => void;
}) {
  const failed = stepFailed(s);
  const indent = s.kind === 'span' ? Math.min(s.depth, 8) * 10 : 0;
  return (
    <button
      type="button"
      data-testid="step"
      data-step={s.step}
      data-kind={s.kind}
      data-current={current ? 'true' : undefined}
      data-match={match ? 'true' : undefined}
      data-failed={failed ? 'true' : undefined}
      aria-current={current ? 'step' : undefined}
      onClick={() => onSelect(s.step, 'click')}
      className={`flex h-full w-full min-w-0 items-center gap-2 border-b border-slate-100 px-2 text-left text-sm ${
        current ? 'bg-indigo-50 ring-2 ring-inset ring-indigo-500' : match ? 'bg-yellow-50' : 'hover:bg-slate-50'
      }`}
    >
      <span className="w-12 shrink-0 text-right font-mono text-[11px] tabular-nums text-slate-400">{formatInt(s.step)}</span>
      <span
        className={`w-11 shrink-0 text-[10px] font-semibold uppercase tracking-wide ${failed ? 'text-red-700' : 'text-slate-400'}`}
      >
        {KIND[s.kind]}
      </span>
      <span className="min-w-0 flex-1 truncate font-mono text-xs text-slate-900" style={{ paddingLeft: indent }} title={stepLabel(s)}>
        {stepLabel(s)}
      </span>
      {s.kind === 'tool' ? (
        <span className="flex max-w-24 shrink-0 flex-wrap items-center gap-0.5 overflow-hidden" data-testid="attempt-dots">
          {s.attempts.slice(0, 12).map((a) => (
            <span
              key={a.spanId}
              data-testid="attempt-dot"
              data-outcome={a.outcome ?? 'none'}
              title={`#${a.number} ${a.outcome ?? ''} ${a.failureClass ? classStyle(a.failureClass).label : ''}`}
              // A passed attempt is a circle, any other a square: the outcome does not rest on colour alone.
              className={`size-2 ${a.outcome === 'success' ? 'rounded-full' : 'rounded-[1px]'}`}
              style={{ background: attemptColor(a) }}
            />
          ))}
          {s.attempts.length > 12 ? <span className="text-[10px] text-slate-500">+{formatInt(s.attempts.length - 12)}</span> : null}
        </span>
      ) : null}
      {s.kind === 'tool' && s.discoveryFor ? (
        <span data-testid="runtime-call-mark" className="shrink-0 text-[10px] text-sky-800" title={`Run by the runtime for call ${s.discoveryFor}, not by the model`}>
          runtime
        </span>
      ) : null}
      {s.kind === 'tool' && rowDecision(s) ? (
        <span className="hidden max-w-28 shrink-0 truncate font-mono text-[10px] text-slate-700 xl:inline">{rowDecision(s)}</span>
      ) : null}
      {s.kind === 'model' ? (
        <span className={`shrink-0 text-[11px] tabular-nums ${s.repairFailureClass ? 'text-amber-700' : 'text-slate-500'}`}>
          {formatInt(s.inputTokens + s.outputTokens)} tok
        </span>
      ) : (
        <span className="shrink-0 text-[11px] tabular-nums text-slate-400">{formatDuration(s.kind === 'guard' ? s.durationUs / 1000 : s.durationMs)}</span>
      )}
    </button>
  );
});

/** The step list: model turns and logical tool calls (and other spans), virtualized. */
export function StepList({
  steps,
  current,
  matches,
  onSelect,
}: {
  steps: TimelineStepDto[];
  current: number;
  matches: Set<number>;
  onSelect: (step: number, via: Via) => void;
}) {
  const parent = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({
    count: steps.length,
    getScrollElement: () => parent.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  useEffect(() => {
    if (current >= 1) v.scrollToIndex(current - 1, { align: 'auto' });
  }, [current, v]);
  return (
    <div
      ref={parent}
      data-testid="timeline"
      className="h-[calc(100vh-16rem)] min-h-80 overflow-auto rounded-lg border border-slate-200 bg-white"
    >
      <div style={{ height: v.getTotalSize(), position: 'relative' }}>
        {v.getVirtualItems().map((item) => {
          const s = steps[item.index] as TimelineStepDto;
          return (
            <div
              key={`${s.kind}:${s.traceId}:${s.spanId}${s.kind === 'tool' && s.part ? `#${s.part.index}` : ''}`}
              style={{ position: 'absolute', top: 0, left: 0, width: '100%', height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
            >
              <Row s={s} current={s.step === current} match={matches.has(s.step)} onSelect={onSelect} />
            </div>
          );
        })}
      </div>
    </div>
  );
}
