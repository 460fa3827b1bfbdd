import { db } from '@/server/db';
import { getSessionDetail } from '@/server/queries/session';
import { SessionHeader } from './header';
import { type InitialSelection, Replay } from './replay';

/** Loads the whole session once and hands it to the in-browser debugger. */
export async function SessionView({ project, id, initial }: { project: string; id: string; initial: InitialSelection }) {
  const detail = await getSessionDetail(db(), project, id);
  if (!detail) return null;
  return (
    <>
      <SessionHeader s={detail.session} />
      <Replay detail={detail} project={project} basePath={`/sessions/${encodeURIComponent(id)}`} initial={initial} />
    </>
  );
}
