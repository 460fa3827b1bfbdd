import { DecisionChip, FailureClassBadge, FlagChip, OutcomeBadge, VerdictBadge } from '@/components/badges';
import { type ArgsDiff, diffArguments } from '@/lib/args-diff';
import { formatDuration, formatMicros, prettyJson } from '@/lib/format';
import type { AttemptDto, GuardCheckDto, ToolCallStepDto } from '@/server/queries/session-types';
import { Suspense } from 'react';
import { diffAttempts, failureSignature } from '@/lib/call-failures';
import { fixtureText } from '@/lib/fixture';
import { AttemptDiff } from './attempt-diff';
import { FailureReason } from './failure-reason';
import { FixtureButton } from './fixture-button';
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
            </td>
            <td className="py-1.5 text-right tabular-nums text-slate-600">{formatMicros(g.durationUs)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Budgets({ a }: { a: AttemptDto }) {
  const items = [
    a.attemptsLeft !== null ? `${a.attemptsLeft} attempt${a.attemptsLeft === 1 ? '' : 's'} left` : null,
    a.sessionRetriesLeft !== null
      ? `${a.sessionRetriesLeft} session retr${a.sessionRetriesLeft === 1 ? 'y' : 'ies'} left`
      : null,
  ].filter(Boolean);
  if (!items.length && !a.budgetExhausted) return null;
  return (
    <span className="flex flex-wrap items-center gap-2 text-xs text-slate-500">
      {items.join(' · ')}
      {a.budgetExhausted ? <FlagChip tone="red">budget exhausted: {a.budgetExhausted}</FlagChip> : null}
    </span>
  );
}

function ArgsChange({ diff, from }: { diff: ArgsDiff; from: number }) {
  const chip = 'rounded px-1.5 py-px font-mono text-[11px]';
  return (
    <p className="mt-1.5 flex flex-wrap items-center gap-1.5 text-xs text-slate-500" data-testid="args-diff">
      <span>Arguments changed since #{from}:</span>
      {diff.removed.map((k) => (
        <span key={`-${k}`} className={`${chip} bg-red-50 text-red-700 line-through`}>
          {k}
        </span>
      ))}
      {diff.added.map((k) => (
        <span key={`+${k}`} className={`${chip} bg-emerald-50 text-emerald-700`}>
          +{k}
        </span>
      ))}
      {diff.changed.map((k) => (
        <span key={`~${k}`} className={`${chip} bg-amber-50 text-amber-800`}>
          ~{k}
        </span>
      ))}
    </p>
  );
}

function Attempt({ a, previous }: { a: AttemptDto; previous: AttemptDto | undefined }) {
  const diff = previous ? diffArguments(previous.arguments, a.arguments) : null;
  const failed = a.outcome !== null && a.outcome !== 'success';
  return (
    <li
      data-testid="attempt"
      data-number={a.number}
      data-outcome={a.outcome ?? ''}
      className={`relative rounded-md border p-3 ${failed ? 'border-red-200 bg-red-50/30' : 'border-slate-200 bg-white'}`}
    >
      <div className="flex flex-wrap items-center gap-2">
        <span className="rounded bg-slate-800 px-1.5 py-0.5 font-mono text-[11px] font-semibold text-white">
          #{a.number}
        </span>
        <OutcomeBadge outcome={a.outcome} />
        {a.failureClass ? <FailureClassBadge failureClass={a.failureClass} /> : null}
        <DecisionChip decision={a.decision} />
        {a.errorType ? <span className="min-w-0 font-mono text-xs text-red-700 wrap-anywhere">{a.errorType}</span> : null}
        <span className="ml-auto flex items-center gap-3 text-xs text-slate-500 tabular-nums">
          {a.backoffMs !== null ? <span data-testid="backoff">backoff {formatDuration(a.backoffMs)}</span> : null}
          <span>{formatDuration(a.durationMs)}</span>
        </span>
      </div>
      <FailureReason reason={a.failureReason} />
      <div className="mt-1">
        <Budgets a={a} />
      </div>
      {diff && previous ? <ArgsChange diff={diff} from={previous.number} /> : null}
      <div className="mt-3 grid gap-3 lg:grid-cols-2">
        <div>
          <h4 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-slate-500">Arguments</h4>
          <pre className="max-h-60 overflow-auto rounded bg-slate-900 p-2.5 font-mono text-xs leading-relaxed text-slate-100">
            {a.arguments ? prettyJson(a.arguments) : '—'}
          </pre>
        </div>
        {a.feedback ? (
          <div>
            <h4 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-amber-700">
              Feedback shown to the model
            </h4>
            <pre
              data-testid="feedback"
              className="max-h-60 overflow-auto whitespace-pre-wrap rounded border border-amber-200 bg-amber-50 p-2.5 font-mono text-xs leading-relaxed text-amber-950"
            >
              {a.feedback}
            </pre>
          </div>
        ) : null}
      </div>
      <div className="mt-3">
        <h4 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-slate-500">Guards</h4>
        <GuardTable checks={a.guardChecks} />
      </div>
    </li>
  );
}

export function ToolCallCard({ call, project, sessionId }: { call: ToolCallStepDto; project: string; sessionId: string }) {
  const f = call.flags;
  const signature = failureSignature(call);
  return (
    <div data-testid="tool-call" data-tool={call.toolName} className="rounded-lg border border-slate-200 bg-white shadow-sm">
      <div className="flex flex-wrap items-center gap-2 border-b border-slate-100 px-4 py-3">
        <span className="text-xs font-semibold uppercase tracking-wide text-slate-400">Tool</span>
        <span className="min-w-0 font-mono text-sm font-semibold text-slate-900 wrap-anywhere">{call.toolName}</span>
        {call.callId ? (
          <span className="min-w-0 font-mono text-[11px] text-slate-400 wrap-anywhere">{call.callId}</span>
        ) : null}
        {f.readOnly ? <FlagChip>read-only</FlagChip> : null}
        {f.idempotent === false ? <FlagChip tone="red">non-idempotent</FlagChip> : null}
        {f.idempotent ? <FlagChip>idempotent</FlagChip> : null}
        {f.destructive ? <FlagChip tone="red">destructive</FlagChip> : null}
        {f.external ? <FlagChip>external</FlagChip> : null}
        <span className="ml-auto flex items-center gap-2">
          <OutcomeBadge outcome={call.outcome} />
          {call.failureClass ? <FailureClassBadge failureClass={call.failureClass} /> : null}
          <DecisionChip decision={call.decision} />
          <span className="text-xs tabular-nums text-slate-500">
            {call.attempts.length} attempt{call.attempts.length === 1 ? '' : 's'} · {formatDuration(call.durationMs)}
          </span>
        </span>
      </div>
      {call.failureReason ? (
        <div className="px-4 pt-1">
          <FailureReason reason={call.failureReason} />
        </div>
      ) : null}
      {call.idempotencyKey ? (
        <p className="px-4 pt-2 text-xs text-slate-500 wrap-anywhere">
          Idempotency key <span className="font-mono text-slate-700">{call.idempotencyKey}</span>
        </p>
      ) : null}
      {call.attempts.length ? (
        <div className="flex flex-wrap items-center gap-3 px-4 pt-2">
          <FixtureButton text={fixtureText(sessionId, call)} />
          {signature ? (
            <Suspense fallback={null}>
              <SameFailureLinks project={project} sessionId={sessionId} signature={signature} />
            </Suspense>
          ) : null}
        </div>
      ) : null}
      {call.attempts.length > 1 ? (
        <div className="px-3 pt-3">
          <AttemptDiff attempts={diffAttempts(call)} />
        </div>
      ) : null}
      {call.attempts.length ? (
        <ol className="space-y-2 p-3">
          {call.attempts.map((a, i) => (
            <Attempt key={a.spanId} a={a} previous={call.attempts[i - 1]} />
          ))}
        </ol>
      ) : (
        <div className="px-4 py-3 text-xs text-slate-500">
          <p>No attempts recorded: this tool call was not run through Guardtrace guards.</p>
          {call.arguments ? (
            <pre className="mt-2 max-h-60 overflow-auto rounded bg-slate-900 p-2.5 font-mono text-xs text-slate-100">
              {prettyJson(call.arguments)}
            </pre>
          ) : null}
        </div>
      )}
    </div>
  );
}
