import Link from 'next/link';
import { ReplayKeys } from './replay-keys';

/** Step-through replay: `?step=N` highlights step N and dims what had not happened yet. */
export function ReplayBar({
  step,
  total,
  hrefFor,
  label,
  progress,
}: {
  step: number | null;
  total: number;
  hrefFor: (step: number | undefined) => string;
  label: string | null;
  /** Running totals at the current step. */
  progress: string | null;
}) {
  const prev = step !== null && step > 1 ? hrefFor(step - 1) : null;
  const next = step === null ? (total > 0 ? hrefFor(1) : null) : step < total ? hrefFor(step + 1) : null;
  const btn = 'rounded-md border px-3 py-1.5 text-sm font-medium';
  const on = `${btn} border-slate-300 bg-white text-slate-800 hover:bg-slate-50`;
  const off = `${btn} border-slate-200 text-slate-300`;
  return (
    <div
      data-testid="replay"
      className="sticky top-14 z-[5] mb-4 flex flex-wrap items-center gap-3 rounded-lg border border-slate-200 bg-white/95 px-4 py-2.5 shadow-sm backdrop-blur"
    >
      <span className="text-xs font-semibold uppercase tracking-wide text-slate-500">Replay</span>
      {prev ? (
        <Link href={prev} scroll={false} className={on} data-testid="replay-prev">
          ← Prev
        </Link>
      ) : (
        <span className={off} data-testid="replay-prev" aria-disabled="true">
          ← Prev
        </span>
      )}
      {next ? (
        <Link href={next} scroll={false} className={on} data-testid="replay-next">
          {step === null ? 'Start ▶' : 'Next →'}
        </Link>
      ) : (
        <span className={off} data-testid="replay-next" aria-disabled="true">
          Next →
        </span>
      )}
      <span className="text-sm tabular-nums text-slate-700" data-testid="replay-position">
        {step === null ? `${total} steps` : `Step ${step} of ${total}`}
      </span>
      {label ? <span className="truncate font-mono text-sm text-slate-600">{label}</span> : null}
      {progress ? (
        <span className="text-xs tabular-nums text-slate-500" data-testid="replay-progress">
          {progress}
        </span>
      ) : null}
      {step !== null ? (
        <Link href={hrefFor(undefined)} scroll={false} className="ml-auto text-sm text-indigo-700 hover:underline">
          Show all
        </Link>
      ) : (
        <span className="ml-auto hidden text-xs text-slate-400 sm:inline">Use ← → to step</span>
      )}
      <ReplayKeys current={step} prevHref={prev} nextHref={next} />
    </div>
  );
}
