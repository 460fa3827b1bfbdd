'use client';

import { useEffect, useRef } from 'react';
import { FailureClassBadge } from '@/components/badges';
import { formatInt } from '@/lib/format';
import type { EscalationDto } from '@/server/queries/session-types';
import { useReplayContext } from './replay-context';

/**
 * Why a call escalated: the budget or repeat the SDK names; for a reconcile (no budget ran out: the
 * side effect may have happened, so it is never retried) the tool's answer to "did it happen?".
 */
function escalationWhy(e: Pick<EscalationDto, 'reason' | 'decision' | 'reconcileStatus'>): string {
  if (e.reason) return `because ${e.reason.replaceAll('_', ' ')}`;
  if (e.decision === 'fail_reconcile') {
    return e.reconcileStatus
      ? `side effect uncertain, not retried; reconcile answered ${e.reconcileStatus.replaceAll('_', ' ')}`
      : 'side effect uncertain, not retried; no reconcile answer recorded';
  }
  return 'no reason recorded';
}

/** Where and why the session escalated, each point a link to its step: the escalation's history. */
export function Escalations({ escalations }: { escalations: EscalationDto[] }) {
  const { select } = useReplayContext();
  if (!escalations.length) return null;
  return (
    <section data-testid="escalations" className="mb-3 rounded-lg border border-amber-300 bg-amber-50 px-3 py-2">
      <h2 className="text-xs font-semibold uppercase tracking-wide text-amber-900">
        Escalation{escalations.length > 1 ? 's' : ''} ({formatInt(escalations.length)})
      </h2>
      <ol className="mt-1 space-y-1">
        {escalations.map((e) => (
          <li key={`${e.step}-${e.attempt}`} data-testid="escalation" className="flex flex-wrap items-center gap-2 text-xs text-amber-950">
            <button
              type="button"
              className="font-medium text-indigo-700 underline"
              onClick={() => select(e.step, e.attempt, 'click')}
            >
              Step {formatInt(e.step)}
              {e.attempt !== null ? ` attempt #${e.attempt}` : ''}
            </button>
            <span className="min-w-0 font-mono wrap-anywhere">{e.toolName}</span>
            {e.decision ? <span className="font-mono">→ {e.decision}</span> : null}
            {e.failureClass ? <FailureClassBadge failureClass={e.failureClass} /> : null}
            <span data-testid="escalation-why">{escalationWhy(e)}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

const KEYS: [string, string][] = [
  ['j / k', 'next / previous step'],
  ['h / l', 'previous / next attempt of the call'],
  ['e / E', 'next / previous failure'],
  ['/', 'search the steps (Enter: next match, Shift+Enter: previous)'],
  ['n / N', 'next / previous session with the selected call’s failure'],
  ['y', 'copy a link to this step'],
  ['?', 'this help'],
  ['Esc', 'close'],
];

export function HelpDialog({ onClose }: { onClose: () => void }) {
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => close.current?.focus(), []);
  return (
    <div className="fixed inset-0 z-20 grid place-items-center bg-slate-900/40">
      <div
        role="dialog"
        aria-modal="true"
        aria-labelledby="replay-help-title"
        data-testid="help"
        className="w-full max-w-md rounded-lg bg-white p-5 shadow-xl"
      >
        <h2 id="replay-help-title" className="text-base font-semibold text-slate-900">
          Keyboard
        </h2>
        <dl className="mt-3 grid grid-cols-[6rem_1fr] gap-y-1 text-sm">
          {KEYS.map(([k, what]) => (
            <div key={k} className="contents">
              <dt>
                <kbd className="rounded border border-slate-300 bg-slate-50 px-1.5 font-mono text-xs">{k}</kbd>
              </dt>
              <dd className="text-slate-700">{what}</dd>
            </div>
          ))}
        </dl>
        <p className="mt-3 text-xs text-slate-500">Keys are ignored while you type in a field. Clicks add a history entry; keys replace it.</p>
        <button ref={close} type="button" onClick={onClose} className="mt-4 rounded-md bg-slate-800 px-3 py-1.5 text-sm text-white">
          Close
        </button>
      </div>
    </div>
  );
}
