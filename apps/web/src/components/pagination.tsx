import Link from 'next/link';
import { formatInt } from '@/lib/format';

export function Pagination({
  page,
  pageCount,
  total,
  pageSize,
  href,
}: {
  page: number;
  pageCount: number;
  total: number;
  pageSize: number;
  /** Link to a page number, keeping the other parameters. */
  href: (page: number) => string;
}) {
  const from = total === 0 ? 0 : (page - 1) * pageSize + 1;
  const to = Math.min(total, page * pageSize);
  const link = 'rounded-md border border-slate-300 bg-white px-3 py-1.5 font-medium hover:bg-slate-50';
  const disabled = 'rounded-md border border-slate-200 px-3 py-1.5 text-slate-400';
  return (
    <nav className="mt-4 flex items-center justify-between text-sm text-slate-600" aria-label="Pagination">
      <p data-testid="pagination-summary">
        {formatInt(from)}–{formatInt(to)} of {formatInt(total)}
      </p>
      <div className="flex items-center gap-2">
        {page > 1 ? (
          <Link href={href(page - 1)} className={link} rel="prev">
            ← Newer
          </Link>
        ) : (
          <span className={disabled}>← Newer</span>
        )}
        <span className="px-2 tabular-nums">
          Page {page} of {pageCount}
        </span>
        {page < pageCount ? (
          <Link href={href(page + 1)} className={link} rel="next">
            Older →
          </Link>
        ) : (
          <span className={disabled}>Older →</span>
        )}
      </div>
    </nav>
  );
}
