import type { ToolDefinitionSummary } from '@guardtrace/semconv';
import { useEffect, useMemo, useRef, useState } from 'react';
import { DecisionChip, FailureClassBadge, FlagChip, OutcomeBadge, VerdictBadge } from '@/components/badges';
import { diffAttempts, failureSignature, signatureKey } from '@/lib/call-failures';
import { handedBack } from '@/lib/escalation-summary';
import { fixtureCaveat, fixtureText } from '@/lib/fixture';
import { formatDuration, formatInt, formatMicros } from '@/lib/format';
import type { AttemptDto, GuardCheckDto, ToolCallStepDto } from '@/server/queries/session-types';
import { SaveDatasetForm } from '../../datasets/save-form';
import { AttemptDiff } from './attempt-diff';
import { AttemptTimeline } from './attempt-timeline';
import { AutoRepairNote } from './auto-repair-note';
import { DefinitionFacts } from './definition-facts';
import { FailureReason } from './failure-reason';
import { FixtureButton } from './fixture-button';
import { GuardrailFacts } from './guardrail-facts';
import { Payload } from './payload';
import { useReplayContext } from './replay-context';
import { SameFailureLinks } from './same-failure-links';

function GuardTable({ checks }: { checks: GuardCheckDto[] }) {
  if (checks.length === 0) return <p className="text-xs text-slate-400">No guard results recorded.</p>;
  return (
    <table className="w-full table-fixed text-xs">
      <thead>
        <tr className="text-left text-[11px] uppercase tracking-wide text-slate-400">
          <th className="w-[22%] py-1 pr-3 font-medium">Guard</th>
          <th className="w-[13%] py-1 pr-3 font-medium">Stage</th>
          <th className="w-[10%] py-1 pr-3 font-medium">Result</th>
          <th className="py-1 pr-3 font-medium">Reason</th>
          <th className="w-[10%] py-1 text-right font-medium">Duration</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {checks.map((g) => (
          <tr key={g.spanId} data-testid="guard-check" data-verdict={g.verdict} className="align-top">
            <td className="truncate py-1.5 pr-3 font-mono text-slate-800" title={g.guardName}>
              {g.guardName}
            </td>
            <td className="py-1.5 pr-3 text-slate-600">{g.stage ?? '—'}</td>
            <td className="py-1.5 pr-3">
              <VerdictBadge verdict={g.verdict} />
            </td>
            <td className="py-1.5 pr-3 text-slate-700">
              {g.reason ? (
                <span data-testid="guard-reason" title={g.reason} className="line-clamp-3 whitespace-pre-line wrap-anywhere">
                  {g.reason}
                </span>
              ) : (
                <span className="text-slate-400">—</span>
              )}
              {g.failureClass && g.verdict !== 'pass' ? (
                <span className="mt-1 inline-block">
                  <FailureClassBadge failureClass={g.failureClass} />
                </span>
              ) : null}
              <GuardrailFacts check={g} />
            </td>
            <td className="py-1.5 text-right tabular-nums text-slate-600">{formatMicros(g.durationUs)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

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

/**
 * The call with each attempt's whole arguments: the page holds previews, and the diff and the
 * fixture need the values. Loads only what the previews cut, once per selected call.
 */
function useWholeArguments(call: ToolCallStepDto): { whole: ToolCallStepDto; loading: boolean } {
  const { basePath, project } = useReplayContext();
  const cut = call.attempts.filter((a) => a.arguments && a.arguments.text.length < a.arguments.chars);
  const [loaded, setLoaded] = useState<Map<string, string> | null>(cut.length ? null : new Map());
  // biome-ignore lint/correctness/useExhaustiveDependencies: the cut attempts' span ids (the last dependency) name what to load; `cut` is rebuilt each render.
  useEffect(() => {
    if (!cut.length) return;
    let live = true;
    Promise.all(
      cut.map(async (a) => {
        const q = new URLSearchParams({ project, kind: 'arguments', trace: call.traceId, span: a.spanId, full: '1' });
        const res = await fetch(`${basePath}/payload?${q}`);
        const body = (await res.json()) as { value?: string };
        return [a.spanId, body.value ?? a.arguments?.text ?? ''] as const;
      }),
    ).then((entries) => {
      if (live) setLoaded(new Map(entries));
    });
    return () => {
      live = false;
    };
  }, [basePath, project, call.traceId, cut.map((a) => a.spanId).join()]);
  const whole = useMemo(() => {
    if (!loaded) return call;
    const attempts = call.attempts.map((a) => {
      const text = loaded.get(a.spanId);
      return text === undefined ? a : { ...a, arguments: { text, chars: text.length } };
    });
    return { ...call, attempts };
  }, [call, loaded]);
  return { whole, loading: loaded === null };
}

/** The call's readable definition (for "Copy as test fixture"), loaded when it has a hash; null when none was kept. */
function useDefinition(call: ToolCallStepDto): { summary: ToolDefinitionSummary | null; loading: boolean } {
  const { basePath, project } = useReplayContext();
  const [state, setState] = useState<{ span: string; summary: ToolDefinitionSummary | null } | null>(null);
  useEffect(() => {
    if (!call.definitionHash) return;
    let live = true;
    const q = new URLSearchParams({ project, kind: 'definition', trace: call.traceId, span: call.spanId, full: '1' });
    fetch(`${basePath}/payload?${q}`)
      .then(async (res) => (res.ok ? (JSON.parse(((await res.json()) as { value: string }).value) as ToolDefinitionSummary) : null))
      .catch(() => null)
      .then((summary) => {
        if (live) setState({ span: call.spanId, summary });
      });
    return () => {
      live = false;
    };
  }, [basePath, project, call.traceId, call.spanId, call.definitionHash]);
  if (!call.definitionHash) return { summary: null, loading: false };
  return state?.span === call.spanId ? { summary: state.summary, loading: false } : { summary: null, loading: true };
}

function Attempt({
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

/** The selected call: its attempts on a timeline, each attempt with budgets, payloads, feedback, guards and the repair chain. */
export function ToolCallCard({ call, selectedAttempt }: { call: ToolCallStepDto; selectedAttempt: number | null }) {
  const { select, project, sessionId, sameFailure, requestSameFailure } = useReplayContext();
  const f = call.flags;
  const { whole, loading: argumentsLoading } = useWholeArguments(call);
  const definition = useDefinition(call);
  const loading = argumentsLoading || definition.loading;
  const signature = useMemo(() => failureSignature(call), [call]);
  const nav = signature ? sameFailure[signatureKey(signature)] : undefined;
  useEffect(() => {
    if (signature) requestSameFailure(signature);
  }, [signature, requestSameFailure]);
  const diff = useMemo(() => (argumentsLoading || call.attempts.length < 2 ? null : diffAttempts(whole)), [argumentsLoading, whole, call.attempts.length]);
  return (
    <div data-testid="tool-call" data-tool={call.toolName} className="rounded-lg border border-slate-200 bg-white shadow-sm">
      <div className="flex flex-wrap items-center gap-2 border-b border-slate-100 px-4 py-3">
        <span className="text-xs font-semibold uppercase tracking-wide text-slate-400">Tool</span>
        <span className="min-w-0 font-mono text-sm font-semibold text-slate-900 wrap-anywhere">{call.toolName}</span>
        {call.callId ? <span className="min-w-0 font-mono text-[11px] text-slate-400 wrap-anywhere">{call.callId}</span> : null}
        {call.discoveryFor ? (
          <span data-testid="runtime-call" className="rounded bg-sky-50 px-1.5 py-0.5 text-[11px] text-sky-800 ring-1 ring-sky-200">
            run by the runtime, not the model: discovery for call <span className="font-mono">{call.discoveryFor}</span>
          </span>
        ) : null}
        {f.readOnly ? <FlagChip>read-only</FlagChip> : null}
        {f.idempotent === false ? <FlagChip tone="red">non-idempotent</FlagChip> : null}
        {f.idempotent ? <FlagChip>idempotent</FlagChip> : null}
        {f.destructive ? <FlagChip tone="red">destructive</FlagChip> : null}
        {f.external ? <FlagChip>external</FlagChip> : null}
        <span className="ml-auto flex flex-wrap items-center gap-2">
          <OutcomeBadge outcome={call.outcome} />
          {call.failureClass ? <FailureClassBadge failureClass={call.failureClass} /> : null}
          <DecisionChip decision={call.decision} />
          <span className="text-xs tabular-nums text-slate-500">
            {formatInt(call.attempts.length)} attempt{call.attempts.length === 1 ? '' : 's'} · {formatDuration(call.durationMs)}
          </span>
        </span>
      </div>
      {call.failureReason && call.failureReason !== call.failureClass ? (
        <div className="px-4 pt-1">
          <FailureReason reason={call.failureReason} />
        </div>
      ) : null}
      <dl className="flex flex-wrap gap-x-4 gap-y-1 px-4 pt-2 text-xs text-slate-500">
        {call.idempotencyKey ? (
          <div className="flex min-w-0 gap-1">
            <dt>Idempotency key</dt>
            <dd data-testid="idempotency-key" className="min-w-0 font-mono text-slate-700 wrap-anywhere">
              {call.idempotencyKey}
            </dd>
          </div>
        ) : null}
        {call.reconcileStatus ? (
          <div className="flex gap-1">
            <dt>Reconcile</dt>
            <dd data-testid="reconcile-status" className="font-medium text-slate-800">
              {call.reconcileStatus}
            </dd>
          </div>
        ) : null}
        {call.deduplicated ? (
          <dd data-testid="deduplicated" className="font-medium text-emerald-800">
            answered from the store (not run again)
          </dd>
        ) : null}
        {call.escalationReason && handedBack(call.decision, call.escalationReason) ? (
          <div className="flex gap-1">
            <dt>Retries ran out</dt>
            <dd data-testid="call-handback" className="font-medium text-slate-800">
              {call.escalationReason}, {call.decision === 'replan' ? 'handed back to the model' : 'handed to the fallback tool'}
            </dd>
          </div>
        ) : call.escalationReason ? (
          <div className="flex gap-1">
            <dt>Escalated</dt>
            <dd className="font-medium text-red-800">{call.escalationReason}</dd>
          </div>
        ) : null}
      </dl>
      {call.definitionHash ? <DefinitionFacts hash={call.definitionHash} summary={definition.summary} loading={definition.loading} /> : null}
      {call.attempts.length ? (
        <div className="flex flex-wrap items-center gap-3 px-4 pt-2">
          {loading ? (
            <span className="text-xs text-slate-500">{argumentsLoading ? 'loading the whole arguments…' : 'loading the tool definition…'}</span>
          ) : (
            <FixtureButton text={() => fixtureText(project, sessionId, whole, definition.summary)} caveat={fixtureCaveat(whole)} />
          )}
          <SaveDatasetForm project={project} kind="step" session={sessionId} call={call.spanId} defaultName={`${call.toolName} call`} />
          {signature && nav ? <SameFailureLinks project={project} signature={signature} nav={nav} /> : null}
        </div>
      ) : null}
      {diff ? (
        <div className="px-3 pt-3">
          <AttemptDiff key={call.spanId} attempts={diff} />
        </div>
      ) : null}
      <AttemptTimeline attempts={call.attempts} selected={selectedAttempt} onSelect={(n, via) => select(call.step, n, via)} />
      {call.attempts.length ? (
        <ol className="space-y-2 p-3">
          {call.attempts.map((a) => (
            <Attempt key={a.spanId} a={a} call={call} selected={selectedAttempt === a.number} />
          ))}
        </ol>
      ) : (
        <div className="space-y-2 px-4 py-3 text-xs text-slate-500">
          {call.guardChecks?.length ? null : <p>No attempts recorded: this tool call was not run through Guardtrace guards.</p>}
          {call.arguments ? (
            <Payload label="Arguments" kind="arguments" traceId={call.traceId} spanId={call.spanId} preview={call.arguments} />
          ) : null}
        </div>
      )}
      {call.guardChecks?.length ? (
        <div data-testid="call-guardrails" className="px-4 pb-3">
          <h4 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-slate-500">Guardrails on this call</h4>
          <GuardTable checks={call.guardChecks} />
        </div>
      ) : null}
      {call.result ? (
        <div className="px-4 pb-3">
          <Payload label="Result" kind="result" traceId={call.traceId} spanId={call.spanId} preview={call.result} />
        </div>
      ) : null}
    </div>
  );
}
