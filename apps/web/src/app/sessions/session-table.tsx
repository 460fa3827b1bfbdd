import Link from 'next/link';
import { ErrorsInsideBadge, OutcomeBadge } from '@/components/badges';
import { CursorPagination } from '@/components/pagination';
import { lagText } from '@/components/replica-lag';
import { formatCost, formatCostShort } from '@/lib/cost';
import { formatDateTime, formatDuration, formatInt, formatWeight } from '@/lib/format';
import { hrefWith } from '@/lib/search-params';
import { isFiltered, type ParsedSessionQuery } from '@/lib/session-query';
import { defaultDirection, type SessionSort, type SortDirection } from '@/lib/session-sort';
import { db, heavyRead, replicaLagNotice } from '@/server/db';
import { priceBookOf } from '@/server/queries/costs';
import { listSessions, projectHasHeldSessions, projectHasSessions, type SessionRowDto } from '@/server/queries/sessions';
import { ClassBar } from './class-bar';
import { EmptyState } from './empty-state';
import { RowKeys } from './row-keys';

const TH = 'whitespace-nowrap px-3 py-2.5 text-xs font-semibold uppercase tracking-wide text-slate-500';
const NUM = 'whitespace-nowrap px-3 py-3 text-right tabular-nums';

const COLUMNS: { sort: SessionSort; label: string; numeric?: boolean }[] = [
  { sort: 'session', label: 'Session' },
  { sort: 'agent', label: 'Agent' },
  { sort: 'user', label: 'User' },
  { sort: 'started', label: 'Started' },
  { sort: 'duration', label: 'Duration', numeric: true },
  { sort: 'tool_calls', label: 'Tool calls', numeric: true },
  { sort: 'attempts', label: 'Attempts', numeric: true },
  { sort: 'retry_rate', label: 'Retry rate', numeric: true },
];

/**
 * A count as this session's share of all sessions: scaled by its sampling weight. Scaled, it is an
 * estimate: marked "≈", with the count as recorded (the replay's figure) and the weight in its title.
 */
function Scaled({ n, weight, testId }: { n: number; weight: number; testId?: string }) {
  if (weight === 1) return <span data-testid={testId}>{formatInt(n)}</span>;
  return (
    <span data-testid={testId} title={`${formatInt(n)} recorded × sampling weight ${formatWeight(weight)} (an estimate of the sessions it stands for)`}>
      ≈{formatInt(Math.round(n * weight))}
    </span>
  );
}
const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 0 });

interface Props {
  project: string;
  q: string;
  query: ParsedSessionQuery;
  sort: SessionSort;
  dir: SortDirection;
  after?: string;
  before?: string;
  collectorUrl: string;
}

export async function SessionTable({ project, q, query, sort, dir, after, before, collectorUrl }: Props) {
  // Prices are set in Settings: read from the primary, so a change shows at once (read-your-writes).
  const book = await priceBookOf(db(), project);
  // An unfiltered first page the replica has nothing for may lack only what it has not replicated
  // yet (a new project's first sessions): the primary is asked then.
  const first = !after && !before && !isFiltered(query);
  const list = await heavyRead((d) => listSessions(d, project, { filters: query.filters, terms: query.terms, sort, dir, after, before }, book), {
    orPrimaryWhen: (l) => first && l.rows.length === 0,
  });
  const keep = { project, q: q || undefined, sort: sort === 'started' ? undefined : sort, dir: dir === defaultDirection(sort) ? undefined : dir };
  const page = (over: Record<string, string | undefined>) => hrefWith('/sessions', keep, over);

  if (list.rows.length === 0 && !after && !before) {
    // A replica behind the collector's first sessions is not "no sessions yet": the primary decides.
    if (!isFiltered(query) && !(await heavyRead((d) => projectHasSessions(d, project), { orPrimaryWhen: (has) => !has }))) return <EmptyState project={project} collectorUrl={collectorUrl} />;
    const sampling = query.filters.sampling ?? 'kept';
    const held = sampling === 'kept' && (await heavyRead((d) => projectHasHeldSessions(d, project)));
    // Read from a replica behind the collector: say so, not that nothing matches (a new project's
    // first sessions are on the primary only, and no filter was set).
    const lag = await replicaLagNotice();
    return (
      <div data-testid="sessions-none" className="rounded-lg border border-dashed border-slate-300 bg-white px-6 py-16 text-center text-sm text-slate-600">
        {lag === null
          ? 'No sessions match this query.'
          : isFiltered(query)
            ? `No sessions match this query in the data as of ${lagText(lag.lagMs)} ago (read replica lagging).`
            : `None of this project's sessions has reached the read replica yet (it is ${lagText(lag.lagMs)} behind): they show here once it catches up.`}
        {held ? (
          <p className="mt-2">
            Sessions waiting for a sampling decision are not listed:{' '}
            <Link href={page({ q: `${q} sampling:pending`.trim() })} data-testid="show-pending" className="font-mono text-indigo-700 hover:underline">
              sampling:pending
            </Link>{' '}
            shows them.
          </p>
        ) : null}
      </div>
    );
  }

  const sortHeader = (c: { sort: SessionSort; label: string; numeric?: boolean }) => {
    const active = c.sort === sort;
    const nextDir: SortDirection = active ? (dir === 'asc' ? 'desc' : 'asc') : defaultDirection(c.sort);
    const href = hrefWith('/sessions', { project, q: q || undefined }, { sort: c.sort, dir: nextDir });
    return (
      <th
        key={c.sort}
        scope="col"
        aria-sort={active ? (dir === 'asc' ? 'ascending' : 'descending') : 'none'}
        className={`${TH} ${c.numeric ? 'text-right' : 'text-left'}`}
      >
        <Link href={href} data-testid={`sort-${c.sort}`} className={`inline-flex items-center gap-1 hover:text-slate-800 ${active ? 'text-slate-900' : ''}`}>
          {c.label}
          <span aria-hidden className={active ? '' : 'invisible'}>
            {active && dir === 'asc' ? '▲' : '▼'}
          </span>
        </Link>
      </th>
    );
  };

  return (
    <>
      {list.cursorError ? (
        <p role="alert" className="mb-3 rounded-md border border-amber-200 bg-amber-50 px-4 py-2 text-sm text-amber-900">
          {list.cursorError}
        </p>
      ) : null}
      <RowKeys>
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
          <table className="min-w-full divide-y divide-slate-200 text-sm" data-testid="sessions-table">
            <thead className="bg-slate-50">
              <tr>
                {COLUMNS.map(sortHeader)}
                <th scope="col" className={`${TH} text-left`}>
                  Failures
                </th>
                {sortHeader({ sort: 'tokens', label: 'Tokens', numeric: true })}
                {sortHeader({ sort: 'status', label: 'Status' })}
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {list.rows.map((s) => (
                <SessionRow key={s.id} s={s} project={project} />
              ))}
            </tbody>
          </table>
        </div>
      </RowKeys>
      {list.rows.length === 0 ? <p className="mt-4 text-sm text-slate-600">No more sessions on this side of the list.</p> : null}
      <CursorPagination
        total={list.total}
        capped={list.totalCapped}
        shown={list.rows.length}
        prevHref={list.prev ? page({ before: list.prev }) : null}
        nextHref={list.next ? page({ after: list.next }) : null}
        firstHref={page({})}
      />
    </>
  );
}

function SessionRow({ s, project }: { s: SessionRowDto; project: string }) {
  // Held at weight 0 (listed only with sampling:pending): it stands for no session yet, so its
  // counts are shown as recorded rather than scaled to nothing.
  const held = s.samplingWeight === 0;
  const w = held ? 1 : s.samplingWeight;
  return (
    <tr
      data-testid="session-row"
      data-session-id={s.id}
      className="relative cursor-pointer align-top hover:bg-slate-50 focus-within:bg-indigo-50 data-[selected]:bg-indigo-50"
    >
      <td className="px-3 py-3">
        {/* The link stretches over the whole row (after:inset-0): a click anywhere on it opens the session.
            A long id shows its first three lines; the whole id is the link's text and its title. */}
        <Link
          href={hrefWith(`/sessions/${encodeURIComponent(s.id)}`, { project })}
          title={s.id}
          className="line-clamp-3 max-w-64 break-all font-mono text-[13px] font-medium text-indigo-700 after:absolute after:inset-0 hover:underline focus:outline-none"
        >
          {s.id}
        </Link>
        {held ? (
          <span
            data-testid="sampling-pending"
            className="mt-1 inline-block rounded bg-amber-50 px-1.5 py-0.5 text-[11px] text-amber-800"
            title="Sampling pending: every process would drop this session, so it is held at weight 0 and deleted when the collector's decision wait ends, unless a failure arrives first. Counts as recorded."
          >
            sampling pending
          </span>
        ) : w !== 1 ? (
          <span
            data-testid="sampled-weight"
            className="mt-1 inline-block rounded bg-slate-100 px-1.5 py-0.5 text-[11px] text-slate-600"
            title={`Sampled: this session stands for ${formatWeight(w)} sessions, and its counts are scaled by ${formatWeight(w)} (estimates; the replay shows them as recorded).`}
          >
            ×{formatWeight(w)} sampled
          </span>
        ) : null}
      </td>
      <td className="px-3 py-3">
        {/* Clamped like the id: a name the collector shortened (256 bytes and its marker) is whole in the title. */}
        <div data-testid="session-row-agent" title={s.agentName ?? undefined} className="line-clamp-3 max-w-40 break-all font-medium text-slate-800">
          {s.agentName ?? '—'}
        </div>
        {s.serviceName ? <div className="max-w-40 break-all text-xs text-slate-500">{s.serviceName}</div> : null}
      </td>
      <td className="px-3 py-3">
        <div data-testid="session-row-user" title={s.userId ?? undefined} className="line-clamp-3 max-w-32 break-all font-mono text-[13px] text-slate-700">
          {s.userId ?? '—'}
        </div>
      </td>
      <td className="whitespace-nowrap px-3 py-3 text-slate-600">{formatDateTime(s.startedAt)}</td>
      <td className={`${NUM} text-slate-600`}>{formatDuration(s.durationMs)}</td>
      <td className={NUM}>
        <Scaled n={s.toolCallCount} weight={w} testId="session-row-tool-calls" />
      </td>
      <td className={NUM}>
        <Scaled n={s.attemptCount} weight={w} testId="session-row-attempts" />
        {s.failedAttemptCount ? (
          <div className="text-xs font-medium text-red-700">
            <Scaled n={s.failedAttemptCount} weight={w} /> failed
          </div>
        ) : null}
      </td>
      <td className={`${NUM} ${s.retryRate ? 'font-medium text-amber-700' : 'text-slate-500'}`}>{percent.format(s.retryRate)}</td>
      <td className="px-3 py-3">
        <ClassBar counts={s.classCounts} weight={w} />
      </td>
      <td className={NUM}>
        <Scaled n={s.tokens} weight={w} testId="session-row-tokens" />
        {s.repairTokens ? (
          <div className="text-xs text-amber-700">
            <Scaled n={s.repairTokens} weight={w} /> repair
          </div>
        ) : null}
        {/* Only what the stored model calls price: a row's totals alone (an import) name no model. */}
        {s.cost.pricedTokens > 0 || s.cost.unknownModels.length > 0 ? (
          <div className="text-xs text-slate-500" data-testid="session-row-cost" title={formatCost({ ...s.cost, usd: s.cost.usd * w })}>
            {formatCostShort({ ...s.cost, usd: s.cost.usd * w })}
          </div>
        ) : null}
      </td>
      <td className="px-3 py-3">
        <OutcomeBadge outcome={s.outcome} />
        {(s.failedAttemptCount || s.errorSpanCount) && s.outcome !== 'failed' ? (
          <div className="mt-1">
            <ErrorsInsideBadge failedAttempts={s.failedAttemptCount} errorSpans={s.errorSpanCount} />
          </div>
        ) : null}
      </td>
    </tr>
  );
}
