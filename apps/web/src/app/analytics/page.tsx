import type { Metadata } from 'next';
import Link from 'next/link';
import { Suspense } from 'react';
import { ReplicaLagNotice } from '@/components/replica-lag';
import { PageTitle, Shell } from '@/components/shell';
import { ChartSkeleton, TableSkeleton } from '@/components/skeletons';
import { first, hrefWith, type RawSearchParams } from '@/lib/search-params';
import { selectProject } from '@/server/context';
import { ANALYTICS_RANGES, DEFAULT_RANGE, parseAnalyticsWindow } from '@/server/queries/analytics';
import { RepairCostPanel } from './cost-panels';
import { ClassSharePanel, ExhaustionPanel, RejectionPanel, ToolClassPanel } from './failure-panels';
import { ChartPanel, CostHistogramPanel, TotalsPanel } from './panels';
import { RepairSplitPanel } from './repair-split-panel';
import { RetentionNotice } from './retention-notice';

export const metadata: Metadata = { title: 'Analytics' };

export default async function AnalyticsPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const sp = await searchParams;
  const selection = await selectProject(sp);
  const project = selection.current?.id ?? '';
  const choice = parseAnalyticsWindow({ range: first(sp.range), from: first(sp.from), to: first(sp.to) });
  const { window } = choice;
  const key = `${project}:${window.from}:${window.to}`;
  const panel = { project, window };
  return (
    <Shell selection={selection} section="analytics">
      <PageTitle title="Analytics" subtitle="Where the tokens went, per tool and failure class. Token totals are scaled back up by sampling weight.">
        <nav aria-label="Time range" className="flex flex-wrap items-center gap-3">
          <div className="inline-flex divide-x divide-slate-300 rounded-md border border-slate-300 shadow-sm">
            {ANALYTICS_RANGES.map((r) => (
              <Link
                key={r}
                href={hrefWith('/analytics', { project, range: r === DEFAULT_RANGE ? undefined : r })}
                aria-current={r === choice.range ? 'page' : undefined}
                className={`px-3 py-1.5 text-sm font-medium first:rounded-l-md last:rounded-r-md ${
                  r === choice.range ? 'bg-slate-900 text-white' : 'bg-white text-slate-700 hover:bg-slate-50'
                }`}
              >
                {r} days
              </Link>
            ))}
          </div>
          <form action="/analytics" className="flex items-center gap-1.5 text-sm" aria-label="Custom time range">
            {project ? <input type="hidden" name="project" value={project} /> : null}
            <label className="sr-only" htmlFor="range-from">From (UTC date)</label>
            <input id="range-from" type="date" name="from" defaultValue={window.from} required className="rounded border border-slate-300 px-2 py-1" />
            <span aria-hidden="true">–</span>
            <label className="sr-only" htmlFor="range-to">To (UTC date)</label>
            <input id="range-to" type="date" name="to" defaultValue={window.to} required className="rounded border border-slate-300 px-2 py-1" />
            <button type="submit" className="rounded-md border border-slate-300 bg-white px-3 py-1.5 font-medium text-slate-700 hover:bg-slate-50">
              Apply
            </button>
          </form>
        </nav>
      </PageTitle>
      {choice.error ? (
        <p role="alert" className="mb-4 rounded-md border border-amber-300 bg-amber-50 px-4 py-2 text-sm text-amber-900" data-testid="range-error">
          Showing the last {DEFAULT_RANGE} days instead: {choice.error}.
        </p>
      ) : null}
      <Suspense fallback={null}>
        <ReplicaLagNotice />
      </Suspense>
      <p className="mb-4 text-xs text-slate-500" data-testid="analytics-window">
        {window.from} to {window.to} (UTC)
      </p>
      <Suspense key={`rt:${key}`} fallback={null}>
        <RetentionNotice project={project} window={window} />
      </Suspense>
      <Suspense key={`t:${key}`} fallback={<div className="mb-6 h-24 animate-pulse rounded-lg bg-slate-200/60" />}>
        <TotalsPanel {...panel} />
      </Suspense>
      <div className="space-y-6">
        <Suspense key={`tc:${key}`} fallback={<TableSkeleton rows={5} />}>
          <ToolClassPanel {...panel} />
        </Suspense>
        <div className="grid gap-6 xl:grid-cols-2">
          <Suspense key={`cs:${key}`} fallback={<TableSkeleton rows={5} />}>
            <ClassSharePanel {...panel} />
          </Suspense>
          <Suspense key={`h:${key}`} fallback={<TableSkeleton rows={5} />}>
            <CostHistogramPanel {...panel} />
          </Suspense>
        </div>
        <Suspense key={`$:${key}`} fallback={<TableSkeleton rows={5} />}>
          <RepairCostPanel {...panel} />
        </Suspense>
        <Suspense key={`r:${key}`} fallback={<TableSkeleton rows={5} />}>
          <RejectionPanel {...panel} />
        </Suspense>
        <Suspense key={`rs:${key}`} fallback={<TableSkeleton rows={5} />}>
          <RepairSplitPanel {...panel} />
        </Suspense>
        <Suspense key={`e:${key}`} fallback={<TableSkeleton rows={5} />}>
          <ExhaustionPanel {...panel} />
        </Suspense>
        <Suspense key={`c:${key}`} fallback={<ChartSkeleton />}>
          <ChartPanel {...panel} />
        </Suspense>
      </div>
    </Shell>
  );
}
