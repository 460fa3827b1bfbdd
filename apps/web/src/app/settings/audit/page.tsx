import { allows, listAudit } from '@guardtrace/db';
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { PageTitle, Shell } from '@/components/shell';
import { formatDateTime } from '@/lib/format';
import { first, type RawSearchParams } from '@/lib/search-params';
import { selectProject } from '@/server/context';
import { db } from '@/server/db';
import { describeAudit } from './describe';

export const metadata: Metadata = { title: 'Audit log' };

const TH = 'whitespace-nowrap px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-500';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Who changed keys, sampling, retention, members and the project's name; owners and members read it. */
export default async function AuditPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const sp = await searchParams;
  const selection = await selectProject(sp);
  const current = selection.current;
  // A viewer is told nothing about the log, as if it did not exist.
  if (current && !allows(current.role, 'readAudit')) notFound();
  const before = first(sp.before);
  const entries = current ? await listAudit(db(), current.id, { before: before && UUID.test(before) ? before : undefined }) : [];
  return (
    <Shell selection={selection} section="settings">
      <PageTitle title="Audit log" subtitle={`Project ${current?.name ?? ''}: changes to keys, sampling, retention, members and the project, newest first.`} />
      <table className="min-w-full divide-y divide-slate-200 rounded-lg bg-white text-sm shadow-sm" data-testid="audit-log">
        <thead>
          <tr>
            <th className={TH}>When</th>
            <th className={TH}>Who</th>
            <th className={TH}>What</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {entries.map((e) => (
            <tr key={e.id} data-testid="audit-entry" data-action={e.action}>
              <td className="whitespace-nowrap px-3 py-2.5">{formatDateTime(e.at.toISOString())}</td>
              <td className="px-3 py-2.5">{e.actorEmail ?? 'system'}</td>
              <td className="px-3 py-2.5">{describeAudit(e)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {entries.length === 0 ? <p className="mt-4 text-sm text-slate-500">Nothing recorded yet.</p> : null}
      {entries.length === 100 && current ? (
        <Link href={`/settings/audit?project=${current.id}&before=${entries.at(-1)?.id}`} className="mt-4 inline-block text-sm text-indigo-700 hover:underline">
          Older →
        </Link>
      ) : null}
    </Shell>
  );
}
