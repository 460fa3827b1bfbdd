import { classStyle } from '@/lib/failure-classes';
import { formatInt, formatWeight } from '@/lib/format';

/** Failed attempts of a session by class: a stacked bar, its counts as the accessible name. */
export function ClassBar({ counts, weight }: { counts: { failureClass: string; count: number }[]; weight: number }) {
  const total = counts.reduce((n, c) => n + c.count, 0);
  if (total === 0) return <span className="text-slate-500">—</span>;
  const label = `Failed attempts by class${weight === 1 ? '' : ` (≈, scaled by sampling weight ${formatWeight(weight)})`}: ${counts
    .map((c) => `${classStyle(c.failureClass).label} ${formatInt(Math.round(c.count * weight))}`)
    .join(', ')}`;
  return (
    <div role="img" aria-label={label} title={label} data-testid="class-bar" className="mt-1.5 flex h-2.5 w-28 overflow-hidden rounded-full bg-slate-100">
      {counts.map((c) => (
        <span
          key={c.failureClass}
          data-class={c.failureClass}
          className="h-full"
          style={{ width: `${(c.count / total) * 100}%`, background: classStyle(c.failureClass).color }}
        />
      ))}
    </div>
  );
}
