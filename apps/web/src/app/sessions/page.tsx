import { allows } from '@guardtrace/db';
import type { Metadata } from 'next';
import { Suspense } from 'react';
import { ReplicaLagNotice } from '@/components/replica-lag';
import { PageTitle, Shell } from '@/components/shell';
import { TableSkeleton } from '@/components/skeletons';
import { publicCollectorUrl } from '@/env';
import { first, type RawSearchParams } from '@/lib/search-params';
import { parseSessionQuery } from '@/lib/session-query';
import { parseSort } from '@/lib/session-sort';
import { selectProject } from '@/server/context';
import { SaveDatasetForm } from '../datasets/save-form';
import { QueryBar } from './filters';
import { SessionTable } from './session-table';

export const metadata: Metadata = { title: 'Sessions' };

export default async function SessionsPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const sp = await searchParams;
  const selection = await selectProject(sp);
  const project = selection.current?.id ?? '';
  const q = first(sp.q) ?? '';
  const query = parseSessionQuery(q);
  const { sort, dir } = parseSort(sp);
  const after = first(sp.after);
  const before = after ? undefined : first(sp.before);
  return (
    <Shell selection={selection} section="sessions">
      <PageTitle title="Sessions" subtitle="Agent sessions of this project. Sort by any column; filter with the query below." />
      <Suspense fallback={null}>
        <ReplicaLagNotice />
      </Suspense>
      <QueryBar key={q} project={project} q={q} sort={sort} dir={dir} errors={query.errors} />
      {project && !query.errors.length && allows(selection.current?.role, 'manageDatasets') ? (
        <div className="mb-3 flex justify-end">
          <SaveDatasetForm project={project} kind="query" query={q} defaultName={(q || 'all sessions').slice(0, 200)} />
        </div>
      ) : null}
      {query.errors.length ? null : (
        <Suspense key={`${project}:${q}:${sort}:${dir}:${after}:${before}`} fallback={<TableSkeleton />}>
          <SessionTable
            project={project}
            q={q}
            query={query}
            sort={sort}
            dir={dir}
            after={after}
            before={before}
            collectorUrl={publicCollectorUrl()}
          />
        </Suspense>
      )}
    </Shell>
  );
}
