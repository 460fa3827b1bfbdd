import { barPercent } from '@/lib/format';

/** A titled panel of the analytics page. */
export function Card({ title, subtitle, children, id }: { title: string; subtitle?: string; children: React.ReactNode; id?: string }) {
  const headingId = id ? `${id}-title` : undefined;
  return (
    <section className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm" aria-labelledby={headingId} data-testid={id}>
      <h2 id={headingId} className="text-sm font-semibold text-slate-900">
        {title}
      </h2>
      {subtitle ? <p className="mt-0.5 text-xs text-slate-500">{subtitle}</p> : null}
      <div className="mt-4">{children}</div>
    </section>
  );
}

export function Empty({ children }: { children: React.ReactNode }) {
  return <p className="py-8 text-center text-sm text-slate-500">{children}</p>;
}

export const TH = 'px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-500';
export const TD = 'px-3 py-2.5';
export const NUM = 'px-3 py-2.5 text-right tabular-nums';

/** A proportional bar for a table cell (decorative: the number beside it is the value). */
export function Bar({ value, max, color = '#d97706' }: { value: number; max: number; color?: string }) {
  const pct = barPercent(value, max);
  return (
    <div className="h-2 w-full min-w-16 rounded bg-slate-100" aria-hidden="true">
      <div className="h-2 rounded" style={{ width: `${pct}%`, backgroundColor: color }} />
    </div>
  );
}
