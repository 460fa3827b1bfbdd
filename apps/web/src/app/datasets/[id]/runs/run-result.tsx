import type { ReplayDecision, ReplayResult } from '@guardtrace/semconv';
import Link from 'next/link';
import { AttemptDiff } from '@/app/sessions/[id]/attempt-diff';
import { FailureClassBadge } from '@/components/badges';
import { decisionLine, diffAttempts, flaggedFields, type RecordedAttempt, stepHref } from '@/lib/replay-run';

/** What a decision without feedback text means: not made (not replayed), let through, or rejected with none. */
function noFeedback(d: ReplayDecision | null): string {
  if (!d) return 'Not replayed: no decision is made now (the reason is above).';
  return d.allowed ? 'No feedback: the call went through to the tool.' : 'No feedback text recorded for this rejection.';
}

function Decision({ title, d, testId }: { title: string; d: ReplayDecision | null; testId: string }) {
  return (
    <div className="min-w-0 flex-1 rounded-md border border-slate-200 bg-slate-50 p-3" data-testid={testId} data-allowed={d ? String(d.allowed) : undefined}>
      <h4 className="text-[11px] font-semibold uppercase tracking-wide text-slate-600">{title}</h4>
      <p className="mt-1 flex flex-wrap items-center gap-2 text-sm text-slate-900" data-testid="decision-line">
        {decisionLine(d)}
        {d?.failureClass ? <FailureClassBadge failureClass={d.failureClass} /> : null}
      </p>
      {d?.feedback ? (
        <pre className="mt-2 max-h-60 overflow-auto whitespace-pre-wrap rounded bg-white p-2 font-mono text-xs text-slate-800 ring-1 ring-slate-200 wrap-anywhere" data-testid="feedback">
          {d.feedback}
        </pre>
      ) : (
        <p className="mt-2 text-xs text-slate-600">{noFeedback(d)}</p>
      )}
    </div>
  );
}

const show = (v: unknown) => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s;
};

/**
 * One replayed attempt whose outcome changed: its call and a link to its replay step, the recorded
 * and the new decision side by side, what changed in the tool's definition, the fields the new
 * checks object to, and, for a call of several attempts, the replay's argument diff between them
 * (each attempt judged by the current guards).
 */
export function RunResult({ result, itemResults, attempts }: { result: ReplayResult; itemResults: ReplayResult[]; attempts: RecordedAttempt[] | null }) {
  const href = stepHref(result.stepPath);
  const fields = flaggedFields(result);
  const diff = attempts && attempts.length > 1 ? diffAttempts(result.tool, attempts, itemResults) : null;
  return (
    <li className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" data-testid="run-result" data-change={result.change} data-item-id={result.itemId} data-attempt={result.attempt}>
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1 text-sm">
        <span className="font-mono font-semibold text-slate-900">{result.tool}</span>
        <span className="text-slate-600">attempt #{result.attempt}</span>
        <span className="text-slate-600">
          session <span className="font-mono">{result.sessionId}</span>
        </span>
        {href ? (
          <Link href={href} prefetch={false} className="ml-auto text-indigo-700 underline-offset-2 hover:underline" data-testid="step-link">
            Open the recorded step →
          </Link>
        ) : (
          <span className="ml-auto text-xs text-slate-600">no replay step recorded</span>
        )}
      </div>
      {result.error ? (
        <p className="mt-2 text-sm text-red-800" data-testid="replay-error">
          {result.error}
        </p>
      ) : null}
      <div className="mt-3 flex flex-col gap-3 md:flex-row">
        <Decision title="Recorded" d={result.recorded} testId="recorded" />
        <Decision title="Now" d={result.now} testId="now" />
      </div>
      {result.definition.changes.length > 0 ? (
        <div className="mt-3">
          <h4 className="text-[11px] font-semibold uppercase tracking-wide text-slate-600">Definition changes</h4>
          <ul className="mt-1 list-disc pl-5 font-mono text-xs text-slate-800" data-testid="definition-changes">
            {result.definition.changes.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="mt-3">
        <h4 className="text-[11px] font-semibold uppercase tracking-wide text-slate-600">Arguments</h4>
        {fields.length > 0 ? (
          <table className="mt-1 w-full table-fixed text-xs" data-testid="flagged-fields">
            <caption className="sr-only">Fields the current guards object to</caption>
            <thead>
              <tr className="text-left text-[11px] uppercase tracking-wide text-slate-600">
                <th scope="col" className="w-[30%] py-1 pr-2 font-medium">Path the guards object to now</th>
                <th scope="col" className="py-1 pr-2 font-medium">Value</th>
                <th scope="col" className="w-[20%] py-1 pr-2 font-medium">Recorded</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {fields.map((f) => (
                <tr key={f.pointer} data-testid="flagged-field" data-pointer={f.pointer} className="align-top">
                  <th scope="row" className="py-1.5 pr-2 text-left font-mono font-normal text-slate-900 wrap-anywhere">
                    {f.pointer === '' ? '(whole arguments)' : f.pointer}
                  </th>
                  <td className="py-1.5 pr-2">
                    <code className={`block whitespace-pre-wrap font-mono wrap-anywhere ${f.present ? 'text-slate-900' : 'italic text-slate-600'}`}>{f.present ? show(f.value) : '(absent)'}</code>
                  </td>
                  <td className="py-1.5 pr-2 text-slate-700">{f.recorded ? 'objected to then too' : 'passed then'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        <pre className="mt-2 max-h-48 overflow-auto whitespace-pre-wrap rounded bg-slate-50 p-2 font-mono text-xs text-slate-800 ring-1 ring-slate-200 wrap-anywhere" data-testid="arguments">
          {JSON.stringify(result.arguments, null, 2) ?? 'not captured'}
        </pre>
        {diff ? (
          <div className="mt-3">
            <AttemptDiff attempts={diff} initialAttempt={result.attempt > 1 ? result.attempt : undefined} initialMode={result.attempt > 1 ? 'previous' : 'first-final'} />
          </div>
        ) : null}
      </div>
    </li>
  );
}
