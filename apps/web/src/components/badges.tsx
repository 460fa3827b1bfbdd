import type { ReactNode } from 'react';
import { classStyle } from '@/lib/failure-classes';

const BASE = 'inline-flex items-center gap-1 whitespace-nowrap rounded-md px-2 py-0.5 text-xs font-medium ring-1 ring-inset';

function Badge({ className, children, testId }: { className: string; children: ReactNode; testId?: string }) {
  return (
    <span className={`${BASE} ${className}`} data-testid={testId}>
      {children}
    </span>
  );
}

const OUTCOMES: Record<string, string> = {
  success: 'bg-emerald-50 text-emerald-800 ring-emerald-200',
  failed: 'bg-red-50 text-red-800 ring-red-200',
  rejected: 'bg-orange-50 text-orange-800 ring-orange-200',
  escalated: 'bg-amber-50 text-amber-900 ring-amber-300',
};

const DOTS: Record<string, string> = {
  success: 'bg-emerald-500',
  failed: 'bg-red-500',
  rejected: 'bg-orange-500',
  escalated: 'bg-amber-500',
};

/** Outcome of a session, tool call or attempt. */
export function OutcomeBadge({ outcome }: { outcome: string | null }) {
  if (!outcome) return <span className="text-xs text-slate-400">—</span>;
  return (
    <Badge className={OUTCOMES[outcome] ?? 'bg-slate-50 text-slate-700 ring-slate-200'} testId="outcome">
      <span className={`size-1.5 rounded-full ${DOTS[outcome] ?? 'bg-slate-400'}`} aria-hidden />
      {outcome}
    </Badge>
  );
}

const count = (n: number, one: string) => `${n.toLocaleString('en-US')} ${one}${n === 1 ? '' : 's'}`;

/**
 * A session's outcome is its root span's (or the SDK's verdict); failed attempts and error spans
 * inside it are shown beside it, so a session that "succeeded" around failures says so (the
 * explorer's `has:errors`).
 */
export function ErrorsInsideBadge({ failedAttempts, errorSpans }: { failedAttempts: number; errorSpans: number }) {
  if (failedAttempts <= 0 && errorSpans <= 0) return null;
  const what = `${count(failedAttempts, 'failed attempt')} and ${count(errorSpans, 'span')} with status ERROR inside this session (has:errors)`;
  return (
    <Badge className="bg-red-50 text-red-800 ring-red-200" testId="has-errors">
      <span title={what}>⚠ with errors</span>
    </Badge>
  );
}

export function FailureClassBadge({ failureClass, prefix }: { failureClass: string; prefix?: string }) {
  const style = classStyle(failureClass);
  return (
    <span className={`${BASE} ${style.badge}`} data-testid="failure-class" data-class={failureClass} title={failureClass}>
      {prefix ? <span className="font-normal opacity-75">{prefix}</span> : null}
      {style.label}
    </span>
  );
}

export function VerdictBadge({ verdict }: { verdict: string }) {
  const pass = verdict === 'pass';
  if (!pass && verdict !== 'fail') {
    // The collector derives pass/fail only from an explicit value (docs/semantic-conventions.md, "Guardrail results").
    return (
      <span className={`${BASE} bg-slate-50 text-slate-700 ring-slate-200`} title="No explicit pass or fail value: read the guardrail's own result">
        ? not derived
      </span>
    );
  }
  return (
    <Badge className={pass ? 'bg-emerald-50 text-emerald-800 ring-emerald-200' : 'bg-red-50 text-red-800 ring-red-200'}>
      {pass ? '✓ pass' : '✗ fail'}
    </Badge>
  );
}

export function DecisionChip({ decision }: { decision: string | null }) {
  if (!decision) return null;
  return (
    <span
      className="inline-flex items-center whitespace-nowrap rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[11px] text-slate-700"
      title={decision === 'auto_repair' ? 'Repaired in code: the corrected call ran as the next attempt, without a model turn' : undefined}
    >
      → {decision}
    </span>
  );
}

export function FlagChip({ children, tone = 'slate' }: { children: ReactNode; tone?: 'slate' | 'red' }) {
  const cls = tone === 'red' ? 'border-red-200 text-red-700' : 'border-slate-200 text-slate-600';
  return <span className={`rounded border px-1.5 py-px text-[11px] ${cls}`}>{children}</span>;
}
