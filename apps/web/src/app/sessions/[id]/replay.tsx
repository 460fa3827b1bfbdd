'use client';

import { TimelineSkeleton } from '@/components/skeletons';
import { replayDataUrl } from '@/lib/replay-urls';
import type { ReplayStepsDto } from '@/server/queries/session-types';
import { Debugger, type InitialSelection } from './debugger';
import { useJson } from './use-json';

export type { InitialSelection } from './debugger';

/**
 * The replay of one session: loads its steps once (the page's HTML requested them) and hands them to
 * the debugger, which steps in the browser from then on.
 */
export function Replay({ project, sessionId, basePath, initial }: { project: string; sessionId: string; basePath: string; initial: InitialSelection }) {
  const data = useJson<ReplayStepsDto>(replayDataUrl(basePath, project));
  if (data.state === 'loading') return <TimelineSkeleton />;
  if (data.state === 'error') {
    return (
      <p role="alert" data-testid="replay-error" className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
        Could not load the session’s steps: {data.message}
      </p>
    );
  }
  return <Debugger data={data.value} project={project} sessionId={sessionId} basePath={basePath} initial={initial} />;
}
