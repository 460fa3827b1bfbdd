import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { Suspense } from 'react';
import { Shell } from '@/components/shell';
import { TimelineSkeleton } from '@/components/skeletons';
import { decodeParam, first, hrefWith, parsePositiveInt, type RawSearchParams } from '@/lib/search-params';
import { selectProject } from '@/server/context';
import { db } from '@/server/db';
import { sessionExists } from '@/server/queries/session';
import { SessionView } from './session-view';

type Props = { params: Promise<{ id: string }>; searchParams: Promise<RawSearchParams> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Session ${decodeParam((await params).id)}` };
}

export default async function SessionPage({ params, searchParams }: Props) {
  const [{ id: rawId }, sp] = await Promise.all([params, searchParams]);
  const id = decodeParam(rawId);
  // No session id holds NUL (Postgres refuses it in text): not found, not a database error.
  if (id.includes('\0')) notFound();
  const selection = await selectProject(sp);
  const project = selection.current?.id;
  if (project && !(await sessionExists(db(), project, id))) notFound();
  const int = (k: string) => (first(sp[k]) === undefined ? null : parsePositiveInt(sp, k, 1));
  const initial = { step: int('step'), attempt: int('attempt'), view: first(sp.view) === 'tree' ? 'tree' : 'steps', span: first(sp.span) ?? null } as const;
  return (
    <Shell selection={selection} section="sessions">
      <Link href={hrefWith('/sessions', { project })} className="mb-4 inline-block text-sm text-indigo-700 hover:underline">
        ← All sessions
      </Link>
      {project ? (
        <Suspense fallback={<TimelineSkeleton />}>
          <SessionView project={project} id={id} initial={initial} />
        </Suspense>
      ) : null}
    </Shell>
  );
}
