import 'server-only';
import type { PrismaClient } from '@guardtrace/db';
import { MAX_EXPORT_SPANS, sessionToOtlp } from '@guardtrace/db/export';

export type SessionExport = { ok: true; document: ReturnType<typeof sessionToOtlp> } | { ok: false; reason: 'not-found' | 'too-large' };

/**
 * A session of the project as an OTLP/JSON export request, the same document the collector's
 * `GET /v1/sessions/{id}` serves: its raw spans in start order, grouped by resource and scope.
 */
export async function exportSession(db: PrismaClient, projectId: string, sessionId: string): Promise<SessionExport> {
  const spans = await db.span.findMany({
    where: { projectId, sessionId },
    orderBy: [{ startTime: 'asc' }, { traceId: 'asc' }, { spanId: 'asc' }],
    take: MAX_EXPORT_SPANS + 1,
    select: {
      traceId: true,
      spanId: true,
      parentSpanId: true,
      name: true,
      kind: true,
      startTimeUnixNano: true,
      endTimeUnixNano: true,
      statusCode: true,
      statusMessage: true,
      serviceName: true,
      scopeName: true,
      scopeVersion: true,
      attributes: true,
      resource: true,
      events: true,
      links: true,
    },
  });
  if (spans.length === 0) return { ok: false, reason: 'not-found' };
  if (spans.length > MAX_EXPORT_SPANS) return { ok: false, reason: 'too-large' };
  return { ok: true, document: sessionToOtlp(spans) };
}
