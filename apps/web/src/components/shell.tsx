import Link from 'next/link';
import type { ReactNode } from 'react';
import { hrefWith } from '@/lib/search-params';
import { AccountMenu } from './account-menu';
import { Menu } from './menu';
import type { ProjectDto, ProjectSelection } from '@/server/queries/projects';

/** `projects` and `account` are reached from the account menu (and the project picker), not the top bar. */
type Section = 'sessions' | 'analytics' | 'datasets' | 'settings' | 'projects' | 'account';

const NAV: { section: Section; label: string; href: string }[] = [
  { section: 'sessions', label: 'Sessions', href: '/sessions' },
  { section: 'analytics', label: 'Analytics', href: '/analytics' },
  { section: 'datasets', label: 'Datasets', href: '/datasets' },
  { section: 'settings', label: 'Settings', href: '/settings' },
];

function ProjectPicker({ projects, current, path }: { projects: ProjectDto[]; current: ProjectDto | null; path: string }) {
  return (
    <Menu
      testId="project-picker"
      summary={
        <summary className="flex cursor-pointer list-none items-center gap-2 rounded-md border border-slate-700 px-2.5 py-1 text-sm text-slate-200 hover:border-slate-500">
          <span className="hidden text-slate-300 sm:inline">Project</span>
          <span className="max-w-40 truncate font-medium text-white">{current?.name ?? 'none'}</span>
          <span className="text-slate-400 transition group-open:rotate-180" aria-hidden>
            ▾
          </span>
        </summary>
      }
    >
      <ul className="absolute right-0 z-20 mt-1 max-h-80 w-72 overflow-auto rounded-md border border-slate-200 bg-white py-1 text-sm text-slate-800 shadow-lg">
        {projects.map((p) => (
          <li key={p.id}>
            <Link
              href={hrefWith(path, { project: p.id })}
              className={`block px-3 py-2 hover:bg-slate-50 ${p.id === current?.id ? 'font-semibold text-indigo-700' : ''}`}
            >
              {p.name}
              <span className="block font-mono text-[11px] text-slate-400">{p.id}</span>
            </Link>
          </li>
        ))}
        <li className="border-t border-slate-100">
          <Link href="/projects" className="block px-3 py-2 text-indigo-700 hover:bg-slate-50">
            All projects…
          </Link>
        </li>
      </ul>
    </Menu>
  );
}

/** Top bar and page frame. Pages render it because only pages see `?project=`. */
export function Shell({
  selection,
  section,
  children,
}: {
  selection: ProjectSelection;
  section: Section;
  children: ReactNode;
}) {
  const project = selection.current?.id;
  return (
    <>
      <header className="sticky top-0 z-10 border-b border-slate-800 bg-slate-900">
        {/* Wraps on a narrow screen: the project picker and the account menu go to a second line
            instead of past the right edge. */}
        <div className="mx-auto flex min-h-14 max-w-7xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-2 sm:gap-x-8 sm:px-6">
          {/* No prefetch on the frame's links: each would render another page (analytics' queries
              included) on the server while this page's own data loads, on every page view. */}
          <Link href={hrefWith('/sessions', { project })} prefetch={false} className="flex items-center gap-2 text-white">
            <span className="grid size-7 place-items-center rounded-md bg-indigo-500 text-sm font-bold">G</span>
            <span className="hidden font-semibold tracking-tight sm:inline">Guardtrace</span>
          </Link>
          <nav className="flex gap-1 text-sm">
            {NAV.map((n) => (
              <Link
                key={n.section}
                href={hrefWith(n.href, { project })}
                prefetch={false}
                aria-current={n.section === section ? 'page' : undefined}
                className={`rounded-md px-3 py-1.5 font-medium ${
                  n.section === section ? 'bg-slate-800 text-white' : 'text-slate-300 hover:text-white'
                }`}
              >
                {n.label}
              </Link>
            ))}
          </nav>
          <div className="ml-auto flex items-center gap-2">
            <ProjectPicker projects={selection.projects} current={selection.current} path={`/${section}`} />
            <AccountMenu />
          </div>
        </div>
      </header>
      <main className="mx-auto max-w-7xl px-4 py-8 sm:px-6">
        {selection.current || section === 'projects' || section === 'account' ? children : <NoProject />}
      </main>
    </>
  );
}

function NoProject() {
  return (
    <div className="rounded-lg border border-dashed border-slate-300 bg-white px-6 py-16 text-center">
      <h1 className="text-lg font-semibold">No projects yet</h1>
      <p className="mx-auto mt-2 max-w-md text-sm text-slate-600">
        You are not a member of any project. <Link href="/projects" className="text-indigo-700 underline">Create one</Link>, or
        open an invitation link from a project owner.
      </p>
    </div>
  );
}

export function PageTitle({ title, subtitle, children }: { title: string; subtitle?: ReactNode; children?: ReactNode }) {
  return (
    <div className="mb-6 flex flex-wrap items-end justify-between gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
        {subtitle ? <p className="mt-1 text-sm text-slate-600">{subtitle}</p> : null}
      </div>
      {children}
    </div>
  );
}
