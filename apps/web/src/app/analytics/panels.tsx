import Link from 'next/link';
import { explorerHref } from '@/lib/explorer-link';
import { classStyle } from '@/lib/failure-classes';
import { formatCompact, formatInt } from '@/lib/format';
import { heavyRead } from '@/server/db';
import { type DayWindow, getRepairTokensByDay } from '@/server/queries/analytics';
import { Bar, Card, Empty, NUM, TD, TH } from './card';
import { RepairChart } from './repair-chart';
import { sessionCosts } from './session-costs';

// A link inside a figure: underlined lightly, so the figure still reads first.
const QUIET_LINK = 'underline decoration-slate-300 underline-offset-2 hover:decoration-slate-700';

const dayLabel = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', month: 'short', day: 'numeric' });

interface PanelProps {
  project: string;
  window: DayWindow;
}

export async function TotalsPanel({ project, window }: PanelProps) {
  const t = await sessionCosts(project, window);
  const share = t.tokens ? (100 * t.repairTokens) / t.tokens : 0;
  const stored = (
    <Link
      href={explorerHref(project, { days: window })}
      className={QUIET_LINK}
      data-testid="stored-sessions-link"
      title="Sessions stored and kept by sampling, as the explorer lists them; sessions held for a sampling decision (weight 0) are not counted"
    >
      {formatInt(t.storedSessions)} stored and kept
    </Link>
  );
  const stats = [
    { label: 'Sessions (est.)', value: formatInt(t.estimatedSessions), hint: stored },
    { label: 'Tokens (est.)', value: formatCompact(t.tokens), hint: 'input + output of the sessions started in the range' },
    { label: 'Repair tokens (est.)', value: formatCompact(t.repairTokens), hint: 'their model turns answering a failed call' },
    { label: 'Repair share', value: `${share.toFixed(1)}%`, hint: 'of their tokens' },
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

/** Each day's bar segments in the explorer: sessions with an attempt of that class, started that day. */
function explorerDayHrefs(project: string, days: { day: string }[], classes: string[]): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const { day } of days) {
    out[day] = Object.fromEntries(classes.map((c) => [c, explorerHref(project, { failureClass: c, failedDays: { from: day, to: day } })]));
  }
  return out;
}

export async function ChartPanel({ project, window }: PanelProps) {
  const days = await heavyRead((d) => getRepairTokensByDay(d, project, window));
  const classes = [...new Set(days.flatMap((d) => Object.keys(d.byClass)))].sort();
  const data = days.map((d) => ({ label: dayLabel.format(new Date(`${d.day}T00:00:00Z`)), day: d.day, ...d.byClass }));
  const series = classes.map((c) => ({ key: c, label: classStyle(c).label, color: classStyle(c).color }));
  const withTokens = days.filter((d) => Object.keys(d.byClass).length > 0);
  return (
    <Card id="repair-days" title="Repair tokens per day" subtitle="Tokens of model turns that repaired a failed tool call, by failure class (UTC days).">
      {classes.length ? (
        <>
          <RepairChart data={data} series={series} hrefs={explorerDayHrefs(project, days, classes)} />
          <details className="mt-3 text-sm">
            <summary className="cursor-pointer text-xs font-medium text-slate-600">Show as a table</summary>
            <table className="mt-2 min-w-full divide-y divide-slate-200" data-testid="repair-days-table">
              <caption className="sr-only">Repair tokens per day and failure class</caption>
              <thead>
                <tr>
                  <th scope="col" className={TH}>Day (UTC)</th>
                  {series.map((s) => (
                    <th key={s.key} scope="col" className={`${TH} text-right`}>{s.label}</th>
                  ))}
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {withTokens.map((d) => (
                  <tr key={d.day}>
                    <th scope="row" className={`${TD} text-left font-normal`}>{d.day}</th>
                    {classes.map((c) => (
                      <td key={c} className={NUM}>
                        {d.byClass[c] ? (
                          <Link
                            href={explorerHref(project, { failureClass: c, failedDays: { from: d.day, to: d.day } })}
                            className={QUIET_LINK}
                            data-testid="repair-day-link"
                          >
                            {formatInt(d.byClass[c])}
                          </Link>
                        ) : (
                          '0'
                        )}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        </>
      ) : (
        <Empty>No repair tokens in this range.</Empty>
      )}
    </Card>
  );
}

const bucketLabel = (min: number, max: number | null) =>
  max === null ? `${formatCompact(min)} or more` : `${formatCompact(min)} – ${formatCompact(max)}`;

/** Cost per session: sessions (scaled by sampling weight) per token bucket, as a table of bars. */
export async function CostHistogramPanel({ project, window }: PanelProps) {
  const t = await sessionCosts(project, window);
  // From the first to the last non-empty bucket: the empty tails carry no information.
  const firstUsed = t.histogram.findIndex((b) => b.sessions > 0);
  const lastUsed = t.histogram.findLastIndex((b) => b.sessions > 0);
  const buckets = firstUsed < 0 ? [] : t.histogram.slice(firstUsed, lastUsed + 1);
  const max = Math.max(0, ...buckets.map((b) => b.sessions));
  return (
    <Card id="cost-histogram" title="Cost per session" subtitle="Sessions started in the range, by their tokens (input + output), scaled back up by sampling weight.">
      {buckets.length === 0 ? (
        <Empty>No sessions in this range.</Empty>
      ) : (
        <table className="min-w-full text-sm">
          <caption className="sr-only">Number of sessions per range of tokens per session</caption>
          <thead>
            <tr>
              <th scope="col" className={TH}>Tokens per session</th>
              <th scope="col" className={`${TH} text-right`}>Sessions (est.)</th>
              <th scope="col" className={`${TH} w-1/2`}><span className="sr-only">Relative size</span></th>
            </tr>
          </thead>
          <tbody>
            {buckets.map((b) => (
              <tr key={b.min} data-testid="cost-bucket" data-min={b.min}>
                <th scope="row" className={`${TD} py-1.5 text-left font-normal tabular-nums`}>
                  {b.sessions > 0 ? (
                    <Link
                      href={explorerHref(project, { tokens: { min: b.min, max: b.max }, days: window })}
                      className={QUIET_LINK}
                      data-testid="cost-bucket-link"
                    >
                      {bucketLabel(b.min, b.max)}
                    </Link>
                  ) : (
                    bucketLabel(b.min, b.max)
                  )}
                </th>
                <td className={`${NUM} py-1.5`}>{formatInt(b.sessions)}</td>
                <td className={`${TD} py-1.5`}>
                  <Bar value={b.sessions} max={max} color="#475569" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}
