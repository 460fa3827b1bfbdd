import { useEffect, useRef } from 'react';
import { DecisionChip, FailureClassBadge, FlagChip, OutcomeBadge } from '@/components/badges';
import { handedBack } from '@/lib/escalation-summary';
import { formatDuration, formatInt } from '@/lib/format';
import type { AttemptDto, ToolCallStepDto } from '@/server/queries/session-types';
import { AutoRepairNote } from './auto-repair-note';
import { FailureReason } from './failure-reason';
import { GuardTable } from './guard-table';
import { Payload } from './payload';
import { useReplayContext } from './replay-context';

function Budgets({ a }: { a: AttemptDto }) {
  const b = a.budgets;
  const items: [string, string | null][] = [
    ['attempts left', b.attemptsLeft === null ? null : formatInt(b.attemptsLeft)],
    ['session retries left', b.sessionRetriesLeft === null ? null : formatInt(b.sessionRetriesLeft)],
    ['rejections left', b.rejectionsLeft === null ? null : formatInt(b.rejectionsLeft)],
    ['latency left', b.latencyLeftMs === null ? null : formatDuration(b.latencyLeftMs)],
    ['repair tokens left (user)', b.repairTokensLeft === null ? null : formatInt(b.repairTokensLeft)],
  ];
  const known = items.filter(([, v]) => v !== null);
  if (!known.length && !b.exhausted) return null;
  return (
    <dl data-testid="budgets" className="flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-slate-500">
      {known.map(([label, value]) => (
        <div key={label} className="flex gap-1" data-testid="budget">
          <dt>{label}</dt>
          <dd className="font-medium tabular-nums text-slate-800">{value}</dd>
        </div>
      ))}
      {b.exhausted ? (
        <div className="flex">
          <dt className="sr-only">Budget exhausted</dt>
          <dd>
            <FlagChip tone="red">budget exhausted: {b.exhausted}</FlagChip>
          </dd>
        </div>
      ) : null}
    </dl>
  );
}

/** One attempt of the selected call: its header, budgets, payloads, feedback, repair link and guards. */
export function Attempt({
  a,
  call,
  selected,
}: {
  a: AttemptDto;
  call: ToolCallStepDto;
  selected: boolean;
}) {
  const { select } = useReplayContext();
  const failed = a.outcome !== null && a.outcome !== 'success';
  const otherTool = a.toolName && a.toolName !== call.toolName ? a.toolName : null;
  // The class once: an error type or a reason that only repeats it (or each other) is not printed again.
  const errorType = a.errorType && a.errorType !== a.failureClass ? a.errorType : null;
  const reason = a.failureReason && a.failureReason !== a.failureClass && a.failureReason !== a.errorType ? a.failureReason : null;
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (selected) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [selected]);
  return (
    <li
      ref={ref}
      data-testid="attempt"
      data-number={a.number}
      data-outcome={a.outcome ?? ''}
      data-selected={selected ? 'true' : undefined}
      className={`relative rounded-md border p-3 ${failed ? 'border-red-200 bg-red-50/30' : 'border-slate-200 bg-white'} ${
        selected ? 'ring-2 ring-indigo-500' : ''
      }`}
    >
      <div data-testid="attempt-header" className="flex flex-wrap items-center gap-2">
        <button
          type="button"
          data-testid="attempt-select"
          onClick={() => select(call.step, a.number, 'click')}
          className="rounded bg-slate-800 px-1.5 py-0.5 font-mono text-[11px] font-semibold text-white"
          aria-label={`Select attempt ${a.number}`}
        >
          #{a.number}
        </button>
        {otherTool ? (
          <span data-testid="attempt-tool" className="min-w-0 font-mono text-xs text-indigo-800 wrap-anywhere">
            as {otherTool}
          </span>
        ) : null}
        <OutcomeBadge outcome={a.outcome} />
        {a.failureClass ? <FailureClassBadge failureClass={a.failureClass} /> : null}
        <DecisionChip decision={a.decision} />
        {a.internalRetry ? (
          <span data-testid="internal-retry" className="rounded bg-sky-50 px-1.5 py-0.5 text-[11px] text-sky-800 ring-1 ring-sky-200">
            internal retry (SDK backoff)
          </span>
        ) : null}
        {a.resentAfterReconcile ? (
          <span data-testid="reconcile-resend" className="rounded bg-sky-50 px-1.5 py-0.5 text-[11px] text-sky-800 ring-1 ring-sky-200">
            sent again by the SDK (reconcile: not committed)
          </span>
        ) : null}
        {a.circuitState ? <FlagChip>circuit {a.circuitState}</FlagChip> : null}
        {a.fallbackTool ? <FlagChip>fallback → {a.fallbackTool}</FlagChip> : null}
        {a.escalationReason && handedBack(a.decision, a.escalationReason) ? (
          <FlagChip>
            <span data-testid="handback-reason">
              retries ran out ({a.escalationReason}): {a.decision === 'replan' ? 'handed back to the model' : 'handed to the fallback tool'}
            </span>
          </FlagChip>
        ) : a.escalationReason ? (
          <FlagChip tone="red">
            <span data-testid="escalation-reason">escalated: {a.escalationReason}</span>
          </FlagChip>
        ) : null}
        {errorType ? (
          <span data-testid="error-type" className="min-w-0 font-mono text-xs text-red-700 wrap-anywhere">
            {errorType}
          </span>
        ) : null}
        <span className="ml-auto flex items-center gap-3 text-xs text-slate-500 tabular-nums">
          {a.backoffMs !== null ? <span data-testid="backoff">backoff {formatDuration(a.backoffMs)}</span> : null}
          <span>{formatDuration(a.durationMs)}</span>
        </span>
      </div>
      <FailureReason reason={reason} />
      <div className="mt-1">
        <Budgets a={a} />
      </div>
      <div className="mt-3 grid gap-3 lg:grid-cols-2">
        {a.arguments ? (
          <Payload label="Arguments" kind="arguments" traceId={call.traceId} spanId={a.spanId} preview={a.arguments} />
        ) : (
          <p className="text-xs text-slate-600" data-testid="arguments-not-captured">
            Arguments not recorded for this attempt: content capture left them out (the SDK's <code>capture</code>, or a
            clean session not sampled in for content), or its instrumentation does not record them.
          </p>
        )}
        {a.feedback ? (
          <Payload
            label={a.internalRetry || a.resentAfterReconcile ? 'Error kept by the SDK (not shown to the model)' : a.autoRepair ? 'Correction told to the model with the result' : 'Feedback shown to the model'}
            kind="feedback"
            traceId={call.traceId}
            spanId={a.spanId}
            preview={a.feedback}
            tone="amber"
            json={false}
          />
        ) : null}
      </div>
      {a.autoRepair ? <AutoRepairNote repair={a.autoRepair} /> : null}
      {a.repairedByStep !== null ? (
        <p data-testid="repaired-by" className="mt-2 text-xs text-slate-600">
          {a.repairedByInferred ? 'Answered by the model turn at' : 'Repaired by the model turn at'}{' '}
          <button type="button" className="font-medium text-indigo-700 underline" onClick={() => select(a.repairedByStep as number, null, 'click')}>
            step {formatInt(a.repairedByStep)}
          </button>
          {a.repairedByInferred ? ' (the first model call after it: its instrumentation marks no repair turn, so no repair is counted)' : null}
        </p>
      ) : null}
      <div className="mt-3">
        <h4 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-slate-500">Guards</h4>
        <GuardTable checks={a.guardChecks} />
      </div>
    </li>
  );
}
