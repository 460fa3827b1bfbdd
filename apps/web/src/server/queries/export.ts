import 'server-only';
import type { PrismaClient } from '@guardtrace/db';
import { genAiEventsToOtlp, MAX_EXPORT_SPANS, type StoredGenAiEvent, sessionToOtlp } from '@guardtrace/db/export';

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

export type SessionEventsExport = { ok: true; document: ReturnType<typeof genAiEventsToOtlp> } | { ok: false; reason: 'not-found' | 'too-large' };

/**
 * The GenAI events (/v1/logs) of a session's spans as an OTLP/JSON logs export request, the same
 * document the collector's `GET /v1/sessions/{id}/logs` serves: in time, then arrival order.
 */
export async function exportSessionEvents(db: PrismaClient, projectId: string, sessionId: string): Promise<SessionEventsExport> {
  const [events, stored] = await Promise.all([
    db.$queryRaw<StoredGenAiEvent[]>`
      SELECT e.trace_id AS "traceId", e.span_id AS "spanId", e.event_name AS "eventName",
        e.time_unix_nano::text AS "timeUnixNano", e.body, e.attributes, e.scope_name AS "scopeName"
      FROM spans s JOIN genai_events e ON e.project_id = s.project_id AND e.trace_id = s.trace_id AND e.span_id = s.span_id
      WHERE s.project_id = ${projectId}::uuid AND s.session_id = ${sessionId}
      ORDER BY e.time_unix_nano, e.seq LIMIT ${MAX_EXPORT_SPANS + 1}`,
    db.span.findFirst({ where: { projectId, sessionId }, select: { spanId: true } }),
  ]);
  if (stored === null) return { ok: false, reason: 'not-found' };
  if (events.length > MAX_EXPORT_SPANS) return { ok: false, reason: 'too-large' };
  return { ok: true, document: genAiEventsToOtlp(events) };
}
