import type { FailureClass, SessionOutcome } from '@guardtrace/semconv';
import Link from 'next/link';
import { FailureClassBadge, OutcomeBadge } from '@/components/badges';
import { Pagination } from '@/components/pagination';
import { formatCompact, formatDateTime, formatDuration, formatInt } from '@/lib/format';
import { hrefWith } from '@/lib/search-params';
import { db } from '@/server/db';
import { listSessions } from '@/server/queries/sessions';

const TH = 'whitespace-nowrap px-4 py-2.5 text-xs font-semibold uppercase tracking-wide text-slate-500';
const NUM = 'px-4 py-3 text-right tabular-nums';

export async function SessionTable({
  project,
  outcome,
  failureClass,
  search,
  page,
}: {
  project: string;
  outcome?: SessionOutcome;
  failureClass?: FailureClass;
  search?: string;
  page: number;
}) {
  const list = await listSessions(db(), project, { outcome, failureClass, search, page });
  const keep = { project, outcome, class: failureClass, q: search };
  if (list.total === 0) {
    return (
      <div className="rounded-lg border border-dashed border-slate-300 bg-white px-6 py-16 text-center text-sm text-slate-600">
        {outcome || failureClass || search ? 'No sessions match these filters.' : 'No sessions yet: send traces to the collector.'}
      </div>
    );
  }
  return (
    <>
      <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
        <table className="min-w-full divide-y divide-slate-200 text-sm" data-testid="sessions-table">
          <thead className="bg-slate-50">
            <tr>
              <th className={`${TH} text-left`}>Session</th>
              <th className={`${TH} text-left`}>Agent</th>
              <th className={`${TH} text-left`}>Started</th>
              <th className={`${TH} text-right`}>Duration</th>
              <th className={`${TH} text-left`}>Outcome</th>
              <th className={`${TH} text-right`}>Tool calls</th>
              <th className={`${TH} text-right`}>Failed attempts</th>
              <th className={`${TH} text-right`}>Tokens</th>
              <th className={`${TH} text-right`}>Repair tokens</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {list.rows.map((s) => (
              <tr key={s.id} data-testid="session-row" data-session-id={s.id} className="relative cursor-pointer align-top hover:bg-slate-50">
                <td className="px-4 py-3">
                  {/* The link stretches over the whole row (after:inset-0): a click anywhere on it opens the session. */}
                  <Link
                    href={hrefWith(`/sessions/${encodeURIComponent(s.id)}`, { project })}
                    className="font-mono text-[13px] font-medium text-indigo-700 after:absolute after:inset-0 hover:underline"
                  >
                    {s.id}
                  </Link>
                  {s.failureClasses.length ? (
                    <div className="mt-1.5 flex flex-wrap gap-1">
                      {s.failureClasses.map((c) => (
                        <FailureClassBadge key={c} failureClass={c} />
                      ))}
                    </div>
                  ) : null}
                </td>
                <td className="px-4 py-3">
                  <div className="font-medium text-slate-800">{s.agentName ?? '—'}</div>
                  {s.serviceName ? <div className="text-xs text-slate-500">{s.serviceName}</div> : null}
                </td>
                <td className="whitespace-nowrap px-4 py-3 text-slate-600">{formatDateTime(s.startedAt)}</td>
                <td className={`${NUM} whitespace-nowrap text-slate-600`}>{formatDuration(s.durationMs)}</td>
                <td className="px-4 py-3">
                  <OutcomeBadge outcome={s.outcome} />
                </td>
                <td className={NUM}>{formatInt(s.toolCallCount)}</td>
                <td className={`${NUM} ${s.failedAttemptCount ? 'font-medium text-red-700' : 'text-slate-400'}`}>
                  {formatInt(s.failedAttemptCount)}
                </td>
                <td className={NUM} title={formatInt(s.tokens)}>
                  {formatCompact(s.tokens)}
                </td>
                <td
                  className={`${NUM} ${s.repairTokens ? 'font-medium text-amber-700' : 'text-slate-400'}`}
                  title={formatInt(s.repairTokens)}
                >
                  {formatCompact(s.repairTokens)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pagination
        page={list.page}
        pageCount={list.pageCount}
        total={list.total}
        pageSize={list.pageSize}
        href={(p) => hrefWith('/sessions', keep, { page: p === 1 ? undefined : p })}
      />
    </>
  );
}
