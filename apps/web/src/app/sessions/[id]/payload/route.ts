/**
 * One payload of the replay on demand: `GET /sessions/{id}/payload?project=&trace=&span=&kind=[&full=1]`.
 * Scoped like the page: the account's project from `?project=` (else its oldest), the session id, the span.
 * The value is cut to PAYLOAD_CHARS unless `full=1`.
 */
import { heavyRead } from '@/server/db';
import { getPayload, PAYLOAD_KINDS, type PayloadKind } from '@/server/queries/session-payload';
import { json, refuse, sessionScope } from '@/server/session-route';

export const dynamic = 'force-dynamic';

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

export async function GET(request: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const q = new URL(request.url).searchParams;
  const kind = q.get('kind') ?? '';
  const trace = q.get('trace') ?? '';
  const span = q.get('span') ?? '';
  if (!(PAYLOAD_KINDS as readonly string[]).includes(kind)) {
    return refuse(`kind: expected one of ${PAYLOAD_KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
  }
  if (!TRACE_ID.test(trace)) return refuse(`trace: expected 32 lowercase hex characters, got ${JSON.stringify(trace.slice(0, 64))}`);
  if (!SPAN_ID.test(span)) return refuse(`span: expected 16 lowercase hex characters, got ${JSON.stringify(span.slice(0, 64))}`);
  const scope = await sessionScope(request, ctx.params);
  if (scope instanceof Response) return scope;
  const wanted = { kind: kind as PayloadKind, traceId: trace, spanId: span, full: q.get('full') === '1' };
  // Not on a lagging read replica yet: the primary may have it.
  const payload = await heavyRead((d) => getPayload(d, scope.projectId, scope.sessionId, wanted), { orPrimaryWhen: (p) => !p });
  if (!payload) return refuse(`no ${kind} recorded for span ${span} of session ${scope.sessionId} in this project`, 404);
  return json(payload);
}
