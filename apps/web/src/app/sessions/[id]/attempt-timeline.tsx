import { formatDuration } from '@/lib/format';
import { classStyle } from '@/lib/failure-classes';
import type { AttemptDto } from '@/server/queries/session-types';
import type { Via } from './replay-context';

/** Dot colour of an attempt: green when it passed, else its failure class's colour. */
export function attemptColor(a: AttemptDto): string {
  if (a.outcome === 'success') return '#059669';
  return a.failureClass ? classStyle(a.failureClass).color : '#94a3b8';
}

/**
 * The call's attempts on one time axis, to scale: each attempt where it ran, and the backoff
 * the SDK waited after it (hatched), so a long backoff looks long.
 */
export function AttemptTimeline({
  attempts,
  selected,
  onSelect,
}: {
  attempts: AttemptDto[];
  selected: number | null;
  onSelect: (attempt: number, via: Via) => void;
}) {
  if (!attempts.length) return null;
  const t0 = Math.min(...attempts.map((a) => Date.parse(a.startedAt)));
  const end = Math.max(...attempts.map((a) => Date.parse(a.startedAt) - t0 + a.durationMs + (a.backoffMs ?? 0)), 1);
  const pct = (ms: number) => `${Math.min(Math.max((ms / end) * 100, 0), 100)}%`;
  return (
    <div data-testid="attempt-timeline" className="px-4 pt-3">
      <fieldset className="relative h-7 rounded bg-slate-100">
        <legend className="sr-only">Attempts over time</legend>
        {attempts.map((a) => {
          const at = Date.parse(a.startedAt) - t0;
          return (
            <span key={a.spanId}>
              {a.backoffMs ? (
                <span
                  data-testid="timeline-backoff"
                  title={`backoff ${formatDuration(a.backoffMs)}`}
                  className="absolute top-2 h-3 bg-[repeating-linear-gradient(45deg,#cbd5e1_0,#cbd5e1_3px,transparent_3px,transparent_6px)]"
                  style={{ left: pct(at + a.durationMs), width: pct(a.backoffMs) }}
                />
              ) : null}
              <button
                type="button"
                data-testid="timeline-attempt"
                data-number={a.number}
                aria-pressed={selected === a.number}
                aria-label={`Attempt ${a.number}: ${a.outcome ?? 'no outcome'}, ${formatDuration(a.durationMs)}`}
                onClick={() => onSelect(a.number, 'click')}
                className={`absolute top-1 h-5 min-w-2 rounded-sm ${selected === a.number ? 'ring-2 ring-indigo-600 ring-offset-1' : ''}`}
                style={{ left: pct(at), width: pct(a.durationMs), background: attemptColor(a) }}
              />
            </span>
          );
        })}
      </fieldset>
      <div className="mt-1 flex justify-between text-[11px] tabular-nums text-slate-400">
        <span>0</span>
        <span>{formatDuration(end)}</span>
      </div>
    </div>
  );
}
