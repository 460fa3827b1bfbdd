import { allows } from '@guardtrace/db';
import type { Metadata } from 'next';
import { headers } from 'next/headers';
import Link from 'next/link';
import { notFound, redirect } from 'next/navigation';
import { ReplicaLagNotice } from '@/components/replica-lag';
import { Shell } from '@/components/shell';
import { earlyFetchScript } from '@/lib/early-fetch';
import { replayDataUrl } from '@/lib/replay-urls';
import { decodeParam, first, hrefWith, parsePositiveInt, type RawSearchParams } from '@/lib/search-params';
import { selectProject } from '@/server/context';
import { db, heavyReadFrom } from '@/server/db';
import { nonceOfPolicy } from '@/server/http-security';
import { priceBookOf } from '@/server/queries/costs';
import { getSessionHeader } from '@/server/queries/session-header';
import { sessionOfTrace } from '@/server/queries/trace-session';
import { SaveDatasetForm } from '../../datasets/save-form';
import { SessionHeader } from './header';
import { Replay } from './replay';

type Props = { params: Promise<{ id: string }>; searchParams: Promise<RawSearchParams> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Session ${decodeParam((await params).id)}` };
}

/**
 * The replay page carries the session's header only: the steps (a 5,000-span session's are
 * megabytes) come from `/sessions/{id}/replay` as JSON, requested by an inline script of the
 * page's HTML (early-fetch.ts) so the request runs while the browser loads the page's scripts,
 * and the debugger steps in the browser.
 */
export default async function SessionPage({ params, searchParams }: Props) {
  const [{ id: rawId }, sp] = await Promise.all([params, searchParams]);
  const id = decodeParam(rawId);
  // No session id holds NUL (Postgres refuses it in text): not found, not a database error.
  if (id.includes('\0')) notFound();
  const selection = await selectProject(sp);
  const project = selection.current?.id;
  // From the read replica when there is one; not found there (a shared link opened as soon as the
  // collector wrote the session), from the primary. Prices from the primary (read-your-writes).
  const book = project ? await priceBookOf(db(), project) : null;
  const read = project && book ? await heavyReadFrom((d) => getSessionHeader(d, project, id, book), { orPrimaryWhen: (h) => h === null }) : null;
  const header = read?.value ?? null;
  if (project && !header) {
    // A session listed under its trace id until the span naming its conversation arrived: the
    // trace's spans moved to that session, and so does the link (the trace index says where).
    const moved = /^[0-9a-f]{32}$/.test(id) ? await sessionOfTrace(db(), project, id) : null;
    if (moved !== null && moved !== id) {
      const rest = Object.fromEntries(Object.entries(sp).flatMap(([k, v]) => (k === 'project' ? [] : [[k, first(v)]])));
      redirect(hrefWith(`/sessions/${encodeURIComponent(moved)}`, { project, ...rest }));
    }
    notFound();
  }
  const basePath = `/sessions/${encodeURIComponent(id)}`;
  const nonce = nonceOfPolicy((await headers()).get('content-security-policy'));
  const int = (k: string) => (first(sp[k]) === undefined ? null : parsePositiveInt(sp, k, 1));
  const initial = { step: int('step'), attempt: int('attempt'), view: first(sp.view) === 'tree' ? 'tree' : 'steps', span: first(sp.span) ?? null, call: first(sp.call) ?? null } as const;
  return (
    <Shell selection={selection} section="sessions">
      <Link href={hrefWith('/sessions', { project })} prefetch={false} className="mb-4 inline-block text-sm text-indigo-700 hover:underline">
        ← All sessions
      </Link>
      {project && header ? (
        <>
          {/* biome-ignore lint/security/noDangerouslySetInnerHtml: earlyFetchScript escapes the one value it embeds */}
          <script nonce={nonce} dangerouslySetInnerHTML={{ __html: earlyFetchScript(replayDataUrl(basePath, project)) }} />
          <ReplicaLagNotice choice={read?.choice} />
          <SessionHeader s={header} project={project} />
          {allows(selection.current?.role, 'manageDatasets') ? (
            <div className="mb-3 flex justify-end">
              <SaveDatasetForm project={project} kind="session" session={id} defaultName={`session ${id}`.slice(0, 200)} />
            </div>
          ) : null}
          <Replay key={id} project={project} sessionId={id} basePath={basePath} initial={initial} />
        </>
      ) : null}
    </Shell>
  );
}
