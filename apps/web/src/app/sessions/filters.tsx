import { FAILURE_CLASSES, SESSION_OUTCOMES } from '@guardtrace/semconv';
import Link from 'next/link';
import { Menu } from '@/components/menu';
import { classStyle } from '@/lib/failure-classes';
import { hrefWith } from '@/lib/search-params';

export interface ListParams {
  project: string;
  outcome?: string;
  class?: string;
  q?: string;
}

/** Filters are links: every filtered view is a shareable URL, and paging restarts at 1. */
export function SessionFilters({ params }: { params: ListParams }) {
  const keep = { project: params.project, outcome: params.outcome, class: params.class, q: params.q };
  const seg = (active: boolean) =>
    `px-3 py-1.5 text-sm font-medium first:rounded-l-md last:rounded-r-md ${
      active ? 'bg-slate-900 text-white' : 'bg-white text-slate-700 hover:bg-slate-50'
    }`;
  return (
    <div className="mb-4 flex flex-wrap items-center gap-3" data-testid="session-filters">
      <div className="inline-flex divide-x divide-slate-300 rounded-md border border-slate-300 shadow-sm">
        <Link href={hrefWith('/sessions', keep, { outcome: undefined })} className={seg(!params.outcome)}>
          All outcomes
        </Link>
        {SESSION_OUTCOMES.map((o) => (
          <Link
            key={o}
            href={hrefWith('/sessions', keep, { outcome: o })}
            className={seg(params.outcome === o)}
            data-testid={`filter-outcome-${o}`}
          >
            {o}
          </Link>
        ))}
      </div>
      <Menu
        testId="filter-class-menu"
        summary={
          <summary className="flex cursor-pointer list-none items-center gap-2 rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-700 shadow-sm hover:bg-slate-50">
            {params.class ? (
              <>
                <span className="size-2 rounded-full" style={{ background: classStyle(params.class).color }} aria-hidden />
                {classStyle(params.class).label}
              </>
            ) : (
              'Any failure class'
            )}
            <span className="text-slate-400 transition group-open:rotate-180" aria-hidden>
              ▾
            </span>
          </summary>
        }
      >
        <ul className="absolute z-20 mt-1 w-64 rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg">
          <li>
            <Link href={hrefWith('/sessions', keep, { class: undefined })} className="block px-3 py-1.5 hover:bg-slate-50">
              Any failure class
            </Link>
          </li>
          {FAILURE_CLASSES.map((c) => (
            <li key={c}>
              <Link
                href={hrefWith('/sessions', keep, { class: c })}
                className={`flex items-center gap-2 px-3 py-1.5 hover:bg-slate-50 ${params.class === c ? 'font-semibold' : ''}`}
                data-testid={`filter-class-${c}`}
              >
                <span className="size-2 rounded-full" style={{ background: classStyle(c).color }} aria-hidden />
                {classStyle(c).label}
              </Link>
            </li>
          ))}
        </ul>
      </Menu>
      <form action="/sessions" className="ml-auto flex items-center gap-2">
        <input type="hidden" name="project" value={params.project} />
        {params.outcome ? <input type="hidden" name="outcome" value={params.outcome} /> : null}
        {params.class ? <input type="hidden" name="class" value={params.class} /> : null}
        <label htmlFor="session-search" className="sr-only">
          Search sessions
        </label>
        <input
          id="session-search"
          name="q"
          type="search"
          defaultValue={params.q}
          placeholder="Session id or agent"
          data-testid="session-search"
          className="w-56 rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500"
        />
      </form>
      {params.outcome || params.class || params.q ? (
        <Link href={hrefWith('/sessions', { project: params.project })} className="text-sm text-indigo-700 hover:underline">
          Clear filters
        </Link>
      ) : null}
    </div>
  );
}
