/**
 * The replay's data, loaded by the browser once per page: `GET /sessions/{id}/replay?project=`
 * answers every step and escalation (ReplayStepsDto), `&part=tree` the span tree (ReplayTreeDto).
 * The page itself carries only the header, so it paints at once; the page preloads this answer.
 */
import { db } from '@/server/db';
import { getSessionDetail } from '@/server/queries/session';
import type { ReplayStepsDto, ReplayTreeDto } from '@/server/queries/session-types';
import { json, refuse, sessionScope } from '@/server/session-route';

export const dynamic = 'force-dynamic';

const PARTS = ['steps', 'tree'] as const;

export async function GET(request: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const part = new URL(request.url).searchParams.get('part') ?? 'steps';
  if (!(PARTS as readonly string[]).includes(part)) return refuse(`part: expected one of ${PARTS.join(', ')}, got ${JSON.stringify(part.slice(0, 64))}`);
  const scope = await sessionScope(request, ctx.params);
  if (scope instanceof Response) return scope;
  const detail = await getSessionDetail(db(), scope.projectId, scope.sessionId, { spanTree: part === 'tree' });
  if (!detail) return refuse(`no session ${scope.sessionId} in this project`, 404);
  if (part === 'tree') return json({ spanTree: detail.spanTree } satisfies ReplayTreeDto);
  return json({ steps: detail.steps, escalations: detail.escalations } satisfies ReplayStepsDto);
}
