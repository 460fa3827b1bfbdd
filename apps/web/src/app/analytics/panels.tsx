import { DecisionChip, FailureClassBadge } from '@/components/badges';
import { classStyle } from '@/lib/failure-classes';
import { formatCompact, formatInt } from '@/lib/format';
import { db } from '@/server/db';
import { getClassSummary, getRepairTokensByDay, getTokenTotals } from '@/server/queries/analytics';
import { RepairChart } from './repair-chart';

const dayLabel = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', month: 'short', day: 'numeric' });

function Card({ title, subtitle, children }: { title: string; subtitle?: string; children: React.ReactNode }) {
  return (
    <section className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <h2 className="text-sm font-semibold text-slate-900">{title}</h2>
      {subtitle ? <p className="mt-0.5 text-xs text-slate-500">{subtitle}</p> : null}
      <div className="mt-4">{children}</div>
    </section>
  );
}

export async function TotalsPanel({ project, range }: { project: string; range: number }) {
  const t = await getTokenTotals(db(), project, range);
  const share = t.tokens ? (100 * t.repairTokens) / t.tokens : 0;
  const stats = [
    { label: 'Sessions (est.)', value: formatInt(t.estimatedSessions), hint: `${formatInt(t.storedSessions)} stored` },
    { label: 'Tokens (est.)', value: formatCompact(t.tokens), hint: 'input + output' },
    { label: 'Repair tokens (est.)', value: formatCompact(t.repairTokens), hint: 'turns that fixed a failed call' },
    { label: 'Repair share', value: `${share.toFixed(1)}%`, hint: 'of all tokens' },
  ];
  return (
    <dl className="mb-6 grid grid-cols-2 gap-3 lg:grid-cols-4" data-testid="analytics-totals">
      {stats.map((s) => (
        <div key={s.label} className="rounded-lg border border-slate-200 bg-white px-5 py-4 shadow-sm">
          <dt className="text-[11px] font-semibold uppercase tracking-wide text-slate-500">{s.label}</dt>
          <dd className="mt-1 text-2xl font-semibold tabular-nums">{s.value}</dd>
          <dd className="text-xs text-slate-500">{s.hint}</dd>
        </div>
      ))}
    </dl>
  );
}

export async function ChartPanel({ project, range }: { project: string; range: number }) {
  const days = await getRepairTokensByDay(db(), project, range);
  const classes = [...new Set(days.flatMap((d) => Object.keys(d.byClass)))].sort();
  const data = days.map((d) => ({ label: dayLabel.format(new Date(`${d.day}T00:00:00Z`)), day: d.day, ...d.byClass }));
  const series = classes.map((c) => ({ key: c, label: classStyle(c).label, color: classStyle(c).color }));
  return (
    <Card title="Repair tokens per day" subtitle="Tokens of model turns that repaired a failed tool call, by failure class (UTC days).">
      {classes.length ? (
        <RepairChart data={data} series={series} />
      ) : (
        <p className="py-16 text-center text-sm text-slate-500">No repair tokens in this range.</p>
      )}
    </Card>
  );
}

export async function ClassTablePanel({ project, range }: { project: string; range: number }) {
  const rows = await getClassSummary(db(), project, range);
  const TH = 'px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-500';
  return (
    <Card title="Failure classes" subtitle="Attempts that failed with each class and what the policy decided next. Exact counts: sessions with a failure are always kept by sampling.">
      {rows.length === 0 ? (
        <p className="py-8 text-center text-sm text-slate-500">No failed attempts in this range.</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="min-w-full divide-y divide-slate-200 text-sm" data-testid="class-table">
            <thead>
              <tr>
                <th className={TH}>Failure class</th>
                <th className={`${TH} text-right`}>Attempts</th>
                <th className={`${TH} text-right`}>Sessions</th>
                <th className={`${TH} text-right`}>Repair tokens</th>
                <th className={TH}>Decisions</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {rows.map((r) => (
                <tr key={r.failureClass} data-testid="class-row" data-class={r.failureClass}>
                  <td className="px-3 py-2.5">
                    <FailureClassBadge failureClass={r.failureClass} />
                  </td>
                  <td className="px-3 py-2.5 text-right tabular-nums">{formatInt(r.attempts)}</td>
                  <td className="px-3 py-2.5 text-right tabular-nums">{formatInt(r.sessions)}</td>
                  <td className="px-3 py-2.5 text-right font-medium tabular-nums text-amber-700">{formatInt(r.repairTokens)}</td>
                  <td className="px-3 py-2.5">
                    <div className="flex flex-wrap gap-1.5">
                      {Object.entries(r.decisions)
                        .sort((a, b) => b[1] - a[1])
                        .map(([d, n]) => (
                          <span key={d} className="inline-flex items-center gap-1">
                            <DecisionChip decision={d} />
                            <span className="text-xs tabular-nums text-slate-500">×{n}</span>
                          </span>
                        ))}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
