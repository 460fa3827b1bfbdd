import { allows } from '@guardtrace/db';
import { datasetItemsPage, getDataset } from '@guardtrace/db/datasets';
import type { DatasetItem } from '@guardtrace/semconv';
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { PageTitle, Shell } from '@/components/shell';
import { first, hrefWith, type RawSearchParams } from '@/lib/search-params';
import { selectProject } from '@/server/context';
import { db } from '@/server/db';
import { prismaQueryable } from '@/server/queries/datasets';
import { DeleteDatasetForm } from './delete-form';
import { RefreshWhileBuilding } from './refresh';
import { RunsSection } from './runs/runs-section';

export const metadata: Metadata = { title: 'Dataset' };

const PAGE_SIZE = 50;

/** A dataset: what it was made from, its progress while it is copied, and its items a page at a time (keyset on the ordinal), each linked to its replay step. */
export default async function DatasetPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<RawSearchParams> }) {
  const { id } = await params;
  const sp = await searchParams;
  const selection = await selectProject(sp);
  const project = selection.current?.id;
  if (!project) notFound();
  const q = prismaQueryable(db());
  const dataset = await getDataset(q, project, id);
  if (!dataset) notFound();
  const afterRaw = first(sp.after);
  const after = afterRaw && /^\d{1,9}$/.test(afterRaw) ? Number(afterRaw) : 0;
  const rows = await datasetItemsPage(q, dataset.id, after, PAGE_SIZE + 1);
  const page = rows.slice(0, PAGE_SIZE).map((r) => ({ ordinal: r.ordinal, item: JSON.parse(r.json) as DatasetItem }));
  const next = rows.length > PAGE_SIZE ? page[page.length - 1]?.ordinal : undefined;
  const building = dataset.status === 'building';
  return (
    <Shell selection={selection} section="datasets">
      <Link href={`/datasets?project=${project}`} prefetch={false} className="mb-4 inline-block text-sm text-indigo-700 hover:underline">
        ← All datasets
      </Link>
      <PageTitle title={dataset.name} subtitle={`From ${dataset.sourceKind}: ${dataset.source}`}>
        {allows(selection.current?.role, 'manageDatasets') ? <DeleteDatasetForm project={project} id={dataset.id} /> : null}
      </PageTitle>
      <RefreshWhileBuilding building={building} />
      <p role="status" aria-live="polite" className="mb-4 text-sm text-slate-700" data-testid="dataset-status">
        {building
          ? `Saving… ${dataset.itemCount.toLocaleString('en-US')} calls copied so far`
          : dataset.status === 'failed'
            ? `Saving failed after ${dataset.itemCount.toLocaleString('en-US')} calls`
            : dataset.status === 'interrupted'
              ? `Saving stopped after ${dataset.itemCount.toLocaleString('en-US')} calls and will not finish (the server stopped while saving): delete it and save it again`
              : `${dataset.itemCount.toLocaleString('en-US')} calls`}
      </p>
      <table className="w-full text-left text-sm" data-testid="dataset-items">
        <thead className="border-b border-slate-200 text-xs uppercase text-slate-600">
          <tr>
            <th className="py-2 pr-4">#</th>
            <th className="py-2 pr-4">Tool</th>
            <th className="py-2 pr-4">Outcome</th>
            <th className="py-2 pr-4">Attempts</th>
            <th className="py-2 pr-4">Session</th>
            <th className="py-2 pr-4">Step</th>
          </tr>
        </thead>
        <tbody>
          {page.map(({ ordinal, item }) => (
            <tr key={ordinal} className="border-b border-slate-100">
              <td className="py-1.5 pr-4 tabular-nums">{ordinal}</td>
              <td className="py-1.5 pr-4 font-mono text-xs">{item.tool}</td>
              <td className="py-1.5 pr-4">{[item.outcome, item.failureClass].filter(Boolean).join(' · ') || '—'}</td>
              <td className="py-1.5 pr-4 tabular-nums">{item.attempts.length}</td>
              <td className="max-w-xs truncate py-1.5 pr-4 font-mono text-xs">{item.sessionId}</td>
              <td className="py-1.5 pr-4">
                <Link href={item.stepPath} prefetch={false} className="text-indigo-700 hover:underline">
                  Open step
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <nav className="mt-4 flex gap-4 text-sm" aria-label="Pages">
        {after > 0 ? (
          <Link href={hrefWith(`/datasets/${dataset.id}`, { project })} prefetch={false} className="text-indigo-700 hover:underline">
            First page
          </Link>
        ) : null}
        {next !== undefined ? (
          <Link href={hrefWith(`/datasets/${dataset.id}`, { project }, { after: next })} prefetch={false} className="text-indigo-700 hover:underline">
            Next {PAGE_SIZE}
          </Link>
        ) : null}
      </nav>
      <RunsSection projectId={project} datasetId={dataset.id} />
    </Shell>
  );
}
