/**
 * One payload of the replay on demand: `GET /sessions/{id}/payload?project=&trace=&span=&kind=[&full=1]`.
 * Scoped like the page: the account's project from `?project=` (else its oldest), the session id, the span.
 * The value is cut to PAYLOAD_CHARS unless `full=1`.
 */
import { decodeParam, parseProjectParam } from '@/lib/search-params';
import { currentAccount } from '@/server/accounts';
import { db } from '@/server/db';
import { resolveProject } from '@/server/queries/projects';
import { getPayload, PAYLOAD_KINDS, type PayloadKind } from '@/server/queries/session-payload';

export const dynamic = 'force-dynamic';

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

function bad(message: string, status = 400): Response {
  return Response.json({ error: message }, { status, headers: { 'cache-control': 'no-store' } });
}

export async function GET(request: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const id = decodeParam((await ctx.params).id);
  const url = new URL(request.url);
  const sp = Object.fromEntries(url.searchParams);
  const kind = url.searchParams.get('kind') ?? '';
  const trace = url.searchParams.get('trace') ?? '';
  const span = url.searchParams.get('span') ?? '';
  if (!(PAYLOAD_KINDS as readonly string[]).includes(kind)) {
    return bad(`kind: expected one of ${PAYLOAD_KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
  }
  if (!TRACE_ID.test(trace)) return bad(`trace: expected 32 lowercase hex characters, got ${JSON.stringify(trace.slice(0, 64))}`);
  if (!SPAN_ID.test(span)) return bad(`span: expected 16 lowercase hex characters, got ${JSON.stringify(span.slice(0, 64))}`);
  if (url.searchParams.has('project') && !parseProjectParam(sp)) return bad('project: expected a project uuid');
  if (id.includes('\0')) return bad('session id: must not contain NUL', 404);
  // Only the signed-in account's projects (src/proxy.ts only saw a cookie).
  const account = await currentAccount();
  if (!account) return bad('Sign in first.', 401);
  const selection = await resolveProject(db(), account.id, parseProjectParam(sp));
  if (!selection.current) return bad('project: no such project', 404);
  const payload = await getPayload(db(), selection.current.id, id, {
    kind: kind as PayloadKind,
    traceId: trace,
    spanId: span,
    full: url.searchParams.get('full') === '1',
  });
  if (!payload) return bad(`no ${kind} recorded for span ${span} of session ${id} in this project`, 404);
  return Response.json(payload, { headers: { 'cache-control': 'no-store' } });
}
