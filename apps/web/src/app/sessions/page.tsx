import type { Metadata } from 'next';
import { Suspense } from 'react';
import { PageTitle, Shell } from '@/components/shell';
import { TableSkeleton } from '@/components/skeletons';
import {
  parseFailureClass,
  parseOutcome,
  parsePositiveInt,
  parseSearch,
  type RawSearchParams,
} from '@/lib/search-params';
import { selectProject } from '@/server/context';
import { SessionFilters } from './filters';
import { SessionTable } from './session-table';

export const metadata: Metadata = { title: 'Sessions' };

export default async function SessionsPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const sp = await searchParams;
  const selection = await selectProject(sp);
  const project = selection.current?.id ?? '';
  const outcome = parseOutcome(sp);
  const failureClass = parseFailureClass(sp);
  const page = parsePositiveInt(sp, 'page', 1);
  const q = parseSearch(sp);
  return (
    <Shell selection={selection} section="sessions">
      <PageTitle title="Sessions" subtitle="Agent sessions of this project, newest first." />
      <SessionFilters key={q ?? ''} params={{ project, outcome, class: failureClass, q }} />
      <Suspense key={`${project}:${outcome}:${failureClass}:${q}:${page}`} fallback={<TableSkeleton />}>
        <SessionTable project={project} outcome={outcome} failureClass={failureClass} search={q} page={page} />
      </Suspense>
    </Shell>
  );
}
