import Link from 'next/link';
import { hrefWith } from '@/lib/search-params';
import { SESSION_QUERY_KEYS, SESSION_QUERY_MAX, type SessionQueryError } from '@/lib/session-query';
import type { SessionSort, SortDirection } from '@/lib/session-sort';

const EXAMPLE = 'class:invalid_arguments tool:read_file attempts:>2 user:u_17';

/** The query-language search box; a plain GET form, so every filtered view is a shareable URL. */
export function QueryBar({
  project,
  q,
  sort,
  dir,
  errors,
}: {
  project: string;
  q: string;
  sort: SessionSort;
  dir: SortDirection;
  errors: SessionQueryError[];
}) {
  return (
    <div className="mb-4" data-testid="session-filters">
      <form action="/sessions" className="flex flex-wrap items-center gap-2">
        <input type="hidden" name="project" value={project} />
        {sort !== 'started' || dir !== 'desc' ? (
          <>
            <input type="hidden" name="sort" value={sort} />
            <input type="hidden" name="dir" value={dir} />
          </>
        ) : null}
        <label htmlFor="session-search" className="sr-only">
          Search sessions
        </label>
        <input
          id="session-search"
          name="q"
          type="search"
          defaultValue={q}
          maxLength={SESSION_QUERY_MAX}
          placeholder={`${EXAMPLE} or free text`}
          data-testid="session-search"
          aria-describedby="session-query-help"
          aria-invalid={errors.length > 0}
          spellCheck={false}
          autoComplete="off"
          className="min-w-0 flex-1 rounded-md border border-slate-300 bg-white px-3 py-1.5 font-mono text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500 aria-[invalid=true]:border-red-400"
        />
        <button
          type="submit"
          className="rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white shadow-sm hover:bg-slate-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:ring-offset-1"
        >
          Search
        </button>
        {q ? (
          <Link href={hrefWith('/sessions', { project })} className="text-sm text-indigo-700 hover:underline">
            Clear
          </Link>
        ) : null}
      </form>
      <p id="session-query-help" className="mt-1.5 text-xs text-slate-500">
        Filters: {SESSION_QUERY_KEYS.map((k) => `${k}:`).join(' ')} (attempts, tokens, started, failed, unfixed and repaired take &gt;,
        &gt;=, &lt;, &lt;=; started, failed, unfixed and repaired are UTC days, YYYY-MM-DD, or minutes, YYYY-MM-DDTHH:MMZ: the
        session&rsquo;s start, a failed attempt&rsquo;s time, the time a rejection&rsquo;s next call failed too, the time of a model turn
        that repaired a failure (unfixed:any, repaired:any: whenever); decision and budget take several, comma-separated; class, tool,
        decision, budget, failed and unfixed together mean one failed attempt, with repaired the one that turn repaired); other words
        match session ids, agents, users, tool names, arguments and feedback. Quote values with spaces or colons. ↑/↓ select a
        session, Enter opens it.
      </p>
      {errors.length ? (
        <div role="alert" data-testid="query-errors" className="mt-3 rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
          <p className="font-medium">This query cannot run:</p>
          <ul className="mt-1 list-disc space-y-0.5 pl-5">
            {errors.map((e) => (
              <li key={`${e.at}:${e.token}`} data-testid="query-error">
                {e.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
