import { FailureClassBadge, VerdictBadge } from '@/components/badges';
import { formatCost } from '@/lib/cost';
import { formatDuration, formatInt, formatMicros } from '@/lib/format';
import type { GuardStepDto, ModelCallStepDto, RawSpanStepDto, StepRefDto } from '@/server/queries/session-types';
import { GuardrailFacts } from './guardrail-facts';
import { Payload } from './payload';
import { useReplayContext } from './replay-context';
import { SpanDetails } from './span-details';

function StepLink({ r, label }: { r: StepRefDto; label: string }) {
  const { select } = useReplayContext();
  return (
    <button type="button" className="font-medium text-indigo-700 underline" onClick={() => select(r.step, r.attempt, 'click')}>
      {label} step {formatInt(r.step)}
      {r.attempt !== null ? ` attempt #${r.attempt}` : ''}
      {r.toolName ? ` (${r.toolName})` : ''}
    </button>
  );
}

export function ModelCallRow({ call }: { call: ModelCallStepDto }) {
  return (
    <div data-testid="model-call" className="rounded-lg border border-slate-200 bg-white px-4 py-2.5 shadow-sm">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className="text-xs font-semibold uppercase tracking-wide text-slate-400">Model</span>
        <span className="min-w-0 font-mono text-sm font-medium text-slate-900 wrap-anywhere">{call.model ?? 'unknown model'}</span>
        {call.provider ? <span className="text-xs text-slate-500">{call.provider}</span> : null}
        {call.repairFailureClass ? <FailureClassBadge failureClass={call.repairFailureClass} prefix="repairs" /> : null}
        <span className="ml-auto text-xs tabular-nums text-slate-600">
          {formatInt(call.inputTokens)} in{call.cachedInputTokens ? ` (${formatInt(call.cachedInputTokens)} cached)` : ''} · {formatInt(call.outputTokens)} out ·{' '}
          <span data-testid="model-call-cost">{formatCost(call.cost)}</span> · {formatDuration(call.durationMs)}
        </span>
      </div>
      {call.repairs || call.corrected ? (
        <p data-testid="repair-chain" className="mt-2 flex flex-wrap gap-x-3 text-xs text-slate-600">
          {call.repairs ? <StepLink r={call.repairs} label={call.repairsInferred ? 'Answers the failed' : 'Repairs the failed'} /> : null}
          {call.corrected ? <StepLink r={call.corrected} label="→ corrected call:" /> : null}
          {call.repairs && call.repairsInferred ? (
            <span data-testid="repair-inferred" className="text-slate-500">
              (the first model turn after it: its instrumentation marks no repair turn, so its tokens are not counted as repair tokens)
            </span>
          ) : null}
        </p>
      ) : null}
      <div className="mt-3 grid gap-3 lg:grid-cols-2">
        {call.input ? <Payload label="Prompt (input messages)" kind="input" traceId={call.traceId} spanId={call.spanId} preview={call.input} /> : null}
        {call.output ? (
          <Payload label="Output messages" kind="output" traceId={call.traceId} spanId={call.spanId} preview={call.output} />
        ) : null}
      </div>
      {!call.input && !call.output ? (
        <p className="mt-2 text-xs text-slate-400">
          Prompt and output not captured: the agent did not opt in to content capture, or its instrumentation writes them as log records and
          its OpenTelemetry logs exporter does not send them to this collector's /v1/logs.
        </p>
      ) : null}
    </div>
  );
}

/** A guard decision that belongs to no attempt: its verdict and, when it failed, why (with its violations). */
export function GuardRow({ check }: { check: GuardStepDto }) {
  const failed = check.verdict === 'fail';
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
      <GuardrailFacts check={check} />
    </div>
  );
}

const STATUS = ['unset', 'ok', 'error'];

/** Another instrumentation's span: status, and on demand its attributes, resource, events (exceptions with stack) and links. */
export function RawSpanRow({ span }: { span: RawSpanStepDto }) {
  const error = span.statusCode === 2;
  return (
    <div
      data-testid="raw-span"
      data-depth={span.depth}
      className={`rounded-lg border bg-white px-4 py-2.5 shadow-sm ${error ? 'border-red-200' : 'border-slate-200'}`}
    >
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className="text-xs font-semibold uppercase tracking-wide text-slate-400">Span</span>
        <span className="min-w-0 font-mono text-sm text-slate-900 wrap-anywhere">{span.name}</span>
        {span.serviceName ? <span className="text-xs text-slate-500">{span.serviceName}</span> : null}
        {error ? (
          <span className="line-clamp-3 min-w-0 rounded bg-red-50 px-1.5 py-0.5 text-xs text-red-700 wrap-anywhere">
            error{span.statusMessage ? `: ${span.statusMessage}` : ''}
          </span>
        ) : null}
        <span className="ml-auto text-xs tabular-nums text-slate-600">
          {STATUS[span.statusCode] ?? span.statusCode} · {formatDuration(span.durationMs)} · {formatInt(span.eventCount)} events ·{' '}
          {formatInt(span.linkCount)} links
        </span>
      </div>
      <div className="mt-2">
        <SpanDetails traceId={span.traceId} spanId={span.spanId} />
      </div>
    </div>
  );
}
