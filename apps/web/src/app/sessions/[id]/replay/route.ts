/**
 * The replay's data, loaded by the browser once per page: `GET /sessions/{id}/replay?project=`
 * answers every step and escalation (ReplayStepsDto), `&part=tree` the span tree (ReplayTreeDto).
 * The page itself carries only the header, so it paints at once; its HTML starts this request.
 *
 * The answer carries an ETag of the session's stored state (its row changes with every batch
 * the collector writes to it) and is revalidated on every use (`private, no-cache`): a browser
 * that opens the session again, unchanged, gets a 304 after one primary-key lookup instead of
 * the whole session rebuilt (hundreds of milliseconds at 5,000 spans). Another browser (a shared
 * link, a new tab) gets the answer kept for that version when one was built (replay-cache.ts).
 */
import { db, heavyRead, heavyReadFrom } from '@/server/db';
import { priceBookOf } from '@/server/queries/costs';
import { getSessionDetail } from '@/server/queries/session';
import type { ReplayStepsDto, ReplayTreeDto } from '@/server/queries/session-types';
import { ReplayCache } from '@/server/replay-cache';
import { refuse, sessionScope } from '@/server/session-route';
import { replayEtag, sessionVersion } from '@/server/session-version';

export const dynamic = 'force-dynamic';

const PARTS = ['steps', 'tree'] as const;
const cache = new ReplayCache();

export async function GET(request: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const part = new URL(request.url).searchParams.get('part') ?? 'steps';
  if (!(PARTS as readonly string[]).includes(part)) return refuse(`part: expected one of ${PARTS.join(', ')}, got ${JSON.stringify(part.slice(0, 64))}`);
  const scope = await sessionScope(request, ctx.params);
  if (scope instanceof Response) return scope;
  // Read before the build: a batch landing during it makes the next request rebuild, never the reverse.
  // On the read replica when there is one; a session it has not replayed yet (a link opened as soon
  // as the collector wrote it) is looked up on the primary, and built from there. Prices come from
  // the primary: they are set in Settings, and a change reprices the replay at once.
  const { value: version, choice } = await heavyReadFrom((d) => sessionVersion(d, scope.projectId, scope.sessionId, db()), {
    orPrimaryWhen: (v) => v === null,
  });
  if (!version) return refuse(`no session ${scope.sessionId} in this project`, 404);
  const etag = replayEtag(version, part);
  const headers = { etag, 'cache-control': 'private, no-cache' };
  if (ifNoneMatch(request, etag)) return new Response(null, { status: 304, headers });
  // Built once per version of the session, then sent as kept (replay-cache.ts).
  const body = await cache.get(`${scope.projectId}\0${scope.sessionId}\0${part}`, etag, async () => {
    const book = await priceBookOf(db(), scope.projectId);
    const detail = await heavyRead((d) => getSessionDetail(d, scope.projectId, scope.sessionId, { spanTree: part === 'tree', book }), { choice });
    if (!detail) return null;
    return JSON.stringify(part === 'tree' ? ({ spanTree: detail.spanTree } satisfies ReplayTreeDto) : ({ steps: detail.steps, escalations: detail.escalations } satisfies ReplayStepsDto));
  });
  if (body === null) return refuse(`no session ${scope.sessionId} in this project`, 404);
  return new Response(body, { headers: { ...headers, 'content-type': 'application/json' } });
}

/** Whether the request's If-None-Match lists `etag` (weak comparison, RFC 9110 13.1.2). */
function ifNoneMatch(request: Request, etag: string): boolean {
  const header = request.headers.get('if-none-match');
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((t) => t.trim() === '*' || opaque(t) === opaque(etag));
}
