import { listDatasets } from '@guardtrace/db/datasets';
import type { Metadata } from 'next';
import Link from 'next/link';
import { PageTitle, Shell } from '@/components/shell';
import type { RawSearchParams } from '@/lib/search-params';
import { selectProject } from '@/server/context';
import { db } from '@/server/db';
import { prismaQueryable } from '@/server/queries/datasets';

export const metadata: Metadata = { title: 'Datasets' };

const SOURCE: Record<string, string> = { query: 'query', session: 'session', step: 'step', import: 'import' };

/** The project's datasets (snapshots of recorded tool calls for guard regression replay), newest first. */
export default async function DatasetsPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const sp = await searchParams;
  const selection = await selectProject(sp);
  const project = selection.current?.id;
  const rows = project ? await listDatasets(prismaQueryable(db()), project) : [];
  return (
    <Shell selection={selection} section="datasets">
      <PageTitle
        title="Datasets"
        subtitle="Recorded tool calls saved from an explorer query, a session or a replay step: replay them through changed guards (guardtrace-replay)."
      />
      {rows.length === 0 ? (
        <p className="text-sm text-slate-600">No datasets yet: use “Save as dataset” on the sessions explorer, a session or a replay step.</p>
      ) : (
        <table className="w-full text-left text-sm" data-testid="datasets">
          <thead className="border-b border-slate-200 text-xs uppercase text-slate-600">
            <tr>
              <th className="py-2 pr-4">Name</th>
              <th className="py-2 pr-4">Calls</th>
              <th className="py-2 pr-4">From</th>
              <th className="py-2 pr-4">Created (UTC)</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <tr key={d.id} className="border-b border-slate-100">
                <td className="py-2 pr-4">
                  <Link href={`/datasets/${d.id}?project=${project}`} prefetch={false} className="font-medium text-indigo-700 hover:underline">
                    {d.name}
                  </Link>
                </td>
                <td className="py-2 pr-4 tabular-nums">
                  {d.itemCount.toLocaleString('en-US')}
                  {d.status === 'ready' ? '' : ` (${d.status})`}
                </td>
                <td className="max-w-md truncate py-2 pr-4 font-mono text-xs">
                  {SOURCE[d.sourceKind] ?? d.sourceKind}: {d.source}
                </td>
                <td className="py-2 pr-4 tabular-nums">{d.createdAt.slice(0, 16).replace('T', ' ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Shell>
  );
}
