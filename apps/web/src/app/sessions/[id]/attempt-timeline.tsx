import { formatDuration } from '@/lib/format';
import { classStyle, SUCCESS_COLOR } from '@/lib/failure-classes';
import type { AttemptDto } from '@/server/queries/session-types';
import type { Via } from './replay-context';

/** Dot colour of an attempt: green when it passed, else its failure class's colour (never a green). */
export function attemptColor(a: AttemptDto): string {
  if (a.outcome === 'success') return SUCCESS_COLOR;
  return a.failureClass ? classStyle(a.failureClass).color : '#94a3b8';
}

/**
 * The call's attempts on one time axis, to scale: each attempt where it ran, and the backoff
 * the SDK waited after it (hatched), so a long backoff looks long. To scale, a sub-millisecond
 * attempt is a sliver next to its neighbours, too small and too close to be a control (WCAG 2.2
 * target size): the timeline is a picture, hidden from assistive technology, where a click on a
 * bar is a pointer shortcut; the controls are the attempt list's own buttons under it, which
 * also say every duration and backoff shown here.
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
      <div className="relative h-7 rounded bg-slate-100" aria-hidden="true">
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
              {/* biome-ignore lint/a11y/noStaticElementInteractions: a pointer shortcut; the same action is the attempt list's button */}
              {/* biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard's way is the attempt list's button */}
              <span
                data-testid="timeline-bar"
                data-number={a.number}
                title={`Attempt ${a.number}: ${a.outcome ?? 'no outcome'}, ${formatDuration(a.durationMs)}`}
                onClick={() => onSelect(a.number, 'click')}
                className={`absolute top-1 h-5 min-w-2 cursor-pointer rounded-sm ${selected === a.number ? 'ring-2 ring-indigo-600 ring-offset-1' : ''}`}
                style={{ left: pct(at), width: pct(a.durationMs), background: attemptColor(a) }}
              />
            </span>
          );
        })}
      </div>
      <div className="mt-1 flex justify-between text-[11px] tabular-nums text-slate-400" aria-hidden="true">
        <span>0</span>
        <span>{formatDuration(end)}</span>
      </div>
    </div>
  );
}
