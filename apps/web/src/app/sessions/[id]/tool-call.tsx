import type { ToolDefinitionSummary } from '@guardtrace/semconv';
import { useEffect, useMemo, useState } from 'react';
import { DecisionChip, FailureClassBadge, FlagChip, OutcomeBadge } from '@/components/badges';
import { diffAttempts, failureSignature, signatureKey } from '@/lib/call-failures';
import { handedBack } from '@/lib/escalation-summary';
import { fixtureCaveat, fixtureText } from '@/lib/fixture';
import { formatDuration, formatInt } from '@/lib/format';
import type { ToolCallStepDto } from '@/server/queries/session-types';
import { SaveDatasetForm } from '../../datasets/save-form';
import { AttemptDiff } from './attempt-diff';
import { Attempt } from './attempt-row';
import { AttemptTimeline } from './attempt-timeline';
import { DefinitionFacts } from './definition-facts';
import { FailureReason } from './failure-reason';
import { FixtureButton } from './fixture-button';
import { GuardTable } from './guard-table';
import { Payload } from './payload';
import { useReplayContext } from './replay-context';
import { SameFailureLinks } from './same-failure-links';

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
