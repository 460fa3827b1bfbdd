import type { Metadata } from 'next';
import Link from 'next/link';
import { PageTitle, Shell } from '@/components/shell';
import { formatDateTime } from '@/lib/format';
import type { RawSearchParams } from '@/lib/search-params';
import { selectProject } from '@/server/context';
import { CreateProjectForm, DeleteProjectForm, RenameProjectForm } from './forms';

export const metadata: Metadata = { title: 'Projects' };

export default async function ProjectsPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const selection = await selectProject(await searchParams);
  return (
    <Shell selection={selection} section="projects">
      <PageTitle title="Projects" subtitle="The projects you are a member of, and your role in each." />
      <section className="mb-6 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
        <h2 className="mb-3 text-sm font-semibold">New project</h2>
        <CreateProjectForm />
      </section>
      <ul className="space-y-4" data-testid="projects">
        {selection.projects.map((p) => (
          <li key={p.id} className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm" data-testid="project-row">
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <Link href={`/sessions?project=${p.id}`} className="font-medium text-indigo-700 hover:underline">
                {p.name}
              </Link>
              <span className="text-xs text-slate-500">
                <span className="rounded bg-slate-100 px-1.5 py-0.5 font-medium text-slate-700" data-testid="project-role">
                  {p.role}
                </span>{' '}
                · created {formatDateTime(p.createdAt)} · <span className="font-mono">{p.id}</span>
              </span>
            </div>
            {p.role === 'owner' ? (
              <div className="mt-4 flex flex-wrap gap-6">
                <RenameProjectForm project={p.id} name={p.name} />
                <DeleteProjectForm project={p.id} name={p.name} />
              </div>
            ) : null}
          </li>
        ))}
      </ul>
    </Shell>
  );
}
