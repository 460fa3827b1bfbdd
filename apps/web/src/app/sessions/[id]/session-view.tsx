import { failureSignature, signatureKey } from '@/lib/call-failures';
import { db } from '@/server/db';
import { type SameFailureNav, sameFailureNav } from '@/server/queries/same-failure';
import { getSessionDetail } from '@/server/queries/session';
import type { SessionDetailDto } from '@/server/queries/session-types';
import { SessionHeader } from './header';
import { type InitialSelection, Replay } from './replay';

// A session repeats few distinct failures (tool × class × field); 50 queries bound a pathological one.
const MAX_SIGNATURES = 50;

/** "Same failure" navigation for each distinct failure of the session, loaded with the page so stepping never waits. */
async function sameFailures(project: string, detail: SessionDetailDto): Promise<Record<string, SameFailureNav>> {
  const sigs = new Map<string, NonNullable<ReturnType<typeof failureSignature>>>();
  for (const s of detail.steps) {
    const sig = s.kind === 'tool' ? failureSignature(s) : null;
    if (sig && sigs.size < MAX_SIGNATURES) sigs.set(signatureKey(sig), sig);
  }
  const navs = await Promise.all([...sigs].map(async ([k, sig]) => [k, await sameFailureNav(db(), project, detail.session.id, sig)] as const));
  return Object.fromEntries(navs.filter((e): e is [string, SameFailureNav] => e[1] !== null));
}

/** Loads the whole session once and hands it to the in-browser debugger. */
export async function SessionView({ project, id, initial }: { project: string; id: string; initial: InitialSelection }) {
  const detail = await getSessionDetail(db(), project, id);
  if (!detail) return null;
  const sameFailure = await sameFailures(project, detail);
  return (
    <>
      <SessionHeader s={detail.session} project={project} />
      <Replay detail={detail} project={project} basePath={`/sessions/${encodeURIComponent(id)}`} initial={initial} sameFailure={sameFailure} />
    </>
  );
}
