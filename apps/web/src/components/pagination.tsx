import Link from 'next/link';
import { formatInt } from '@/lib/format';

/** Previous / next links of a keyset-paged list (no page numbers: pages are cursors). */
export function CursorPagination({
  total,
  capped = false,
  shown,
  prevHref,
  nextHref,
  firstHref,
}: {
  total: number;
  /** More match than were counted: the total is a lower bound. */
  capped?: boolean;
  shown: number;
  prevHref: string | null;
  nextHref: string | null;
  /** Shown when there is no previous page but the list did not start at the top (a stale cursor). */
  firstHref?: string;
}) {
  const link = 'rounded-md border border-slate-300 bg-white px-3 py-1.5 font-medium hover:bg-slate-50';
  const disabled = 'rounded-md border border-slate-200 px-3 py-1.5 text-slate-500';
  return (
    <nav className="mt-4 flex items-center justify-between text-sm text-slate-600" aria-label="Pagination">
      <p data-testid="pagination-summary">
        {formatInt(shown)} shown of {formatInt(total)}
        {capped ? '+' : ''} {total === 1 && !capped ? 'session' : 'sessions'}
      </p>
      <div className="flex items-center gap-2">
        {firstHref && !prevHref ? (
          <Link href={firstHref} className={link}>
            First page
          </Link>
        ) : null}
        {prevHref ? (
          <Link href={prevHref} className={link} rel="prev" data-testid="page-prev">
            ← Previous
          </Link>
        ) : (
          <span className={disabled} aria-disabled="true">
            ← Previous
          </span>
        )}
        {nextHref ? (
          <Link href={nextHref} className={link} rel="next" data-testid="page-next">
            Next →
          </Link>
        ) : (
          <span className={disabled} aria-disabled="true">
            Next →
          </span>
        )}
      </div>
    </nav>
  );
}
