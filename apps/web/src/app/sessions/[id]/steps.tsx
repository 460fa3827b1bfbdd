import { FailureClassBadge, VerdictBadge } from '@/components/badges';
import { formatDuration, formatInt, formatMicros } from '@/lib/format';
import type { GuardStepDto, ModelCallStepDto, RawSpanStepDto } from '@/server/queries/session-types';

export function ModelCallRow({ call }: { call: ModelCallStepDto }) {
  return (
    <div
      data-testid="model-call"
      className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-lg border border-slate-200 bg-white px-4 py-2.5 shadow-sm"
    >
      <span className="text-xs font-semibold uppercase tracking-wide text-slate-400">Model</span>
      <span className="font-mono text-sm font-medium text-slate-900">{call.model ?? 'unknown model'}</span>
      {call.provider ? <span className="text-xs text-slate-500">{call.provider}</span> : null}
      {call.repairFailureClass ? <FailureClassBadge failureClass={call.repairFailureClass} prefix="repairs" /> : null}
      <span className="ml-auto text-xs tabular-nums text-slate-600">
        {formatInt(call.inputTokens)} in · {formatInt(call.outputTokens)} out · {formatDuration(call.durationMs)}
      </span>
    </div>
  );
}

/** A guard decision that belongs to no attempt: its verdict and, when it failed, why (with its violations). */
export function GuardRow({ check }: { check: GuardStepDto }) {
  const failed = check.verdict !== 'pass';
  return (
    <div
      data-testid="guard-check"
      data-verdict={check.verdict}
      className={`rounded-lg border bg-white px-4 py-2.5 shadow-sm ${failed ? 'border-red-200' : 'border-slate-200'}`}
    >
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className="text-xs font-semibold uppercase tracking-wide text-slate-400">Guard</span>
        <span className="min-w-0 font-mono text-sm font-medium text-slate-900 wrap-anywhere">{check.guardName}</span>
        {check.stage ? <span className="text-xs text-slate-500">{check.stage}</span> : null}
        <VerdictBadge verdict={check.verdict} />
        {check.failureClass && failed ? <FailureClassBadge failureClass={check.failureClass} /> : null}
        <span className="ml-auto text-xs tabular-nums text-slate-600">{formatMicros(check.durationUs)}</span>
      </div>
      {check.reason ? (
        <p
          data-testid="guard-reason"
          title={check.reason}
          className={`mt-1.5 line-clamp-3 whitespace-pre-line text-xs wrap-anywhere ${failed ? 'text-red-800' : 'text-slate-600'}`}
        >
          {check.reason}
        </p>
      ) : null}
    </div>
  );
}

const STATUS = ['unset', 'ok', 'error'];

export function RawSpanRow({ span }: { span: RawSpanStepDto }) {
  const error = span.statusCode === 2;
  return (
    <details
      data-testid="raw-span"
      data-depth={span.depth}
      style={span.depth ? { marginLeft: `${span.depth * 1.25}rem` } : undefined}
      className={`group rounded-lg border bg-white shadow-sm ${error ? 'border-red-200' : 'border-slate-200'}`}
    >
      <summary className="flex cursor-pointer list-none flex-wrap items-center gap-x-3 gap-y-1 px-4 py-2.5">
        <span className="text-xs font-semibold uppercase tracking-wide text-slate-400">Span</span>
        <span className="min-w-0 font-mono text-sm text-slate-900 wrap-anywhere">{span.name}</span>
        {span.serviceName ? <span className="text-xs text-slate-500">{span.serviceName}</span> : null}
        {error ? (
          <span className="line-clamp-3 min-w-0 rounded bg-red-50 px-1.5 py-0.5 text-xs text-red-700 wrap-anywhere">
            error{span.statusMessage ? `: ${span.statusMessage}` : ''}
          </span>
        ) : null}
        <span className="ml-auto text-xs tabular-nums text-slate-600">
          {STATUS[span.statusCode] ?? span.statusCode} · {formatDuration(span.durationMs)}
          <span className="ml-2 text-slate-400 group-open:hidden">attributes ▸</span>
        </span>
      </summary>
      <pre className="mx-3 mb-3 max-h-72 overflow-auto rounded bg-slate-900 p-2.5 font-mono text-xs text-slate-100">
        {span.attributes}
      </pre>
    </details>
  );
}
