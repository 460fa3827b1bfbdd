'use client';

import { Fragment, memo, useId, useMemo, useState } from 'react';
import { FailureClassBadge } from '@/components/badges';
import { groupEscalations, groupText } from '@/lib/escalation-summary';
import { formatInt } from '@/lib/format';
import type { EscalationDto } from '@/server/queries/session-types';
import { useReplayContext } from './replay-context';

// At least 24 × 24 CSS px per link (WCAG 2.2, 2.5.8 target size): a row of the list is a target.
const TARGET = 'inline-flex min-h-6 items-center rounded px-1 font-medium text-indigo-800 underline hover:bg-amber-100';

/** Each escalation, a link to its step with why it happened; rendered only while the list is open. */
const EscalationList = memo(function EscalationList({ id, escalations }: { id: string; escalations: EscalationDto[] }) {
  const { select } = useReplayContext();
  return (
    <ol id={id} data-testid="escalation-list" className="mt-1 max-h-64 space-y-0.5 overflow-auto border-t border-amber-200 pt-1">
      {escalations.map((e) => (
        <li key={`${e.step}-${e.attempt}`} data-testid="escalation" className="flex flex-wrap items-center gap-x-2 gap-y-0.5">
          <button type="button" className={TARGET} onClick={() => select(e.step, e.attempt, 'click')}>
            Step {formatInt(e.step)}
            {e.attempt !== null ? ` attempt #${e.attempt}` : ''}
          </button>
          <span className="min-w-0 font-mono wrap-anywhere">{e.toolName}</span>
          {e.decision ? <span className="font-mono">→ {e.decision}</span> : null}
          {e.failureClass ? <FailureClassBadge failureClass={e.failureClass} /> : null}
          <span data-testid="escalation-why" className="min-w-0 wrap-anywhere">
            {e.why}
          </span>
        </li>
      ))}
    </ol>
  );
});

/**
 * Where and why the session escalated, as one line: how many of each kind (each kind a link to
 * its next escalation after the selected step), and the whole list, each with its reason, on ask.
 * A session with 55 escalations keeps its step list and detail on the first screen.
 */
export const Escalations = memo(function Escalations({ escalations, step }: { escalations: EscalationDto[]; step: number }) {
  const { select } = useReplayContext();
  const [open, setOpen] = useState(false);
  const id = useId();
  const groups = useMemo(() => groupEscalations(escalations), [escalations]);
  if (!escalations.length) return null;
  const next = (kind: EscalationDto['kind']) => {
    const of = escalations.filter((e) => e.kind === kind);
    const e = of.find((x) => x.step > step) ?? of[0];
    if (e) select(e.step, e.attempt, 'click');
  };
  return (
    <section data-testid="escalations" aria-label="Escalations" className="mb-3 rounded-lg border border-amber-300 bg-amber-50 px-3 py-1 text-xs text-amber-950">
      <div className="flex flex-wrap items-center gap-x-2">
        <p data-testid="escalation-summary" className="min-w-0">
          <span className="font-semibold">
            {formatInt(escalations.length)} escalation{escalations.length === 1 ? '' : 's'}:
          </span>{' '}
          {groups.map((g, i) => (
            <Fragment key={g.kind}>
              <button
                type="button"
                data-testid="escalation-group"
                data-kind={g.kind}
                className={TARGET}
                title="Go to the next escalation of this kind"
                onClick={() => next(g.kind)}
              >
                {groupText(g)}
              </button>
              {i < groups.length - 1 ? ', ' : ''}
            </Fragment>
          ))}
        </p>
        <button
          type="button"
          data-testid="escalations-toggle"
          aria-expanded={open}
          aria-controls={open ? id : undefined}
          className="ml-auto inline-flex min-h-6 items-center rounded px-2 font-medium text-amber-950 ring-1 ring-amber-300 ring-inset hover:bg-amber-100"
          onClick={() => setOpen((o) => !o)}
        >
          {open ? 'Hide the list' : 'List each with why'}
        </button>
      </div>
      {open ? <EscalationList id={id} escalations={escalations} /> : null}
    </section>
  );
});
