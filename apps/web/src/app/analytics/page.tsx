import type { Metadata } from 'next';
import Link from 'next/link';
import { Suspense } from 'react';
import { PageTitle, Shell } from '@/components/shell';
import { ChartSkeleton, TableSkeleton } from '@/components/skeletons';
import { first, hrefWith, type RawSearchParams } from '@/lib/search-params';
import { selectProject } from '@/server/context';
import { ANALYTICS_RANGES, DEFAULT_RANGE } from '@/server/queries/analytics';
import { ChartPanel, ClassTablePanel, TotalsPanel } from './panels';

export const metadata: Metadata = { title: 'Analytics' };

export default async function AnalyticsPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const sp = await searchParams;
  const selection = await selectProject(sp);
  const project = selection.current?.id ?? '';
  const requested = Number(first(sp.range));
  const range = (ANALYTICS_RANGES as readonly number[]).includes(requested) ? requested : DEFAULT_RANGE;
  const key = `${project}:${range}`;
  return (
    <Shell selection={selection} section="analytics">
      <PageTitle title="Analytics" subtitle="Where the tokens went, per failure class. Token totals are scaled back up by sampling weight.">
        <div className="inline-flex divide-x divide-slate-300 rounded-md border border-slate-300 shadow-sm">
          {ANALYTICS_RANGES.map((r) => (
            <Link
              key={r}
              href={hrefWith('/analytics', { project, range: r === DEFAULT_RANGE ? undefined : r })}
              className={`px-3 py-1.5 text-sm font-medium first:rounded-l-md last:rounded-r-md ${
                r === range ? 'bg-slate-900 text-white' : 'bg-white text-slate-700 hover:bg-slate-50'
              }`}
            >
              {r} days
            </Link>
          ))}
        </div>
      </PageTitle>
      <Suspense key={`t:${key}`} fallback={<div className="mb-6 h-24 animate-pulse rounded-lg bg-slate-200/60" />}>
        <TotalsPanel project={project} range={range} />
      </Suspense>
      <div className="space-y-6">
        <Suspense key={`c:${key}`} fallback={<ChartSkeleton />}>
          <ChartPanel project={project} range={range} />
        </Suspense>
        <Suspense key={`k:${key}`} fallback={<TableSkeleton rows={5} />}>
          <ClassTablePanel project={project} range={range} />
        </Suspense>
      </div>
    </Shell>
  );
}
