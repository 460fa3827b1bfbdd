'use client';

import { memo } from 'react';
import { formatDuration } from '@/lib/format';
import type { SpanNodeDto, TimelineStepDto } from '@/server/queries/session-types';
import { SpanDetails } from './span-details';
import { GuardRow, ModelCallRow, RawSpanRow } from './steps';
import { ToolCallCard } from './tool-call';

/**
 * The detail pane: the selected step (or span of the tree) in full. Memoized: it renders when the
 * (deferred) selection it shows changes, not with every render of the debugger.
 */
export const StepDetail = memo(function StepDetail({
  step,
  attempt,
  treeNode,
}: {
  step: TimelineStepDto | null | undefined;
  attempt: number | null;
  treeNode?: SpanNodeDto | undefined;
}) {
  if (!step && treeNode) {
    return (
      <div data-testid="tree-span" className="rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm">
        <p className="flex flex-wrap items-center gap-2">
          <span className="text-xs font-semibold uppercase tracking-wide text-slate-400">Span</span>
          <span className="min-w-0 font-mono text-sm text-slate-900 wrap-anywhere">{treeNode.name}</span>
          {treeNode.serviceName ? <span className="text-xs text-slate-500">{treeNode.serviceName}</span> : null}
          {treeNode.scopeName ? <span className="text-xs text-slate-400">{treeNode.scopeName}</span> : null}
          <span className="ml-auto text-xs tabular-nums text-slate-600">{formatDuration(treeNode.durationMs)}</span>
        </p>
        {treeNode.statusCode === 2 ? (
          <p className="mt-1 text-xs text-red-700 wrap-anywhere">error{treeNode.statusMessage ? `: ${treeNode.statusMessage}` : ''}</p>
        ) : null}
        <div className="mt-2">
          <SpanDetails key={treeNode.spanId} traceId={treeNode.traceId} spanId={treeNode.spanId} />
        </div>
      </div>
    );
  }
  if (!step) return <p className="text-sm text-slate-500">Select a step.</p>;
  const key = `${step.traceId}:${step.spanId}`;
  return (
    <div data-step={step.step} data-kind={step.kind}>
      {step.kind === 'tool' ? <ToolCallCard key={key} call={step} selectedAttempt={attempt} /> : null}
      {step.kind === 'model' ? <ModelCallRow key={key} call={step} /> : null}
      {step.kind === 'guard' ? <GuardRow key={key} check={step} /> : null}
      {step.kind === 'span' ? <RawSpanRow key={key} span={step} /> : null}
    </div>
  );
});
