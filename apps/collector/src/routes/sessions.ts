/**
 * GET /v1/sessions/:id: a session of the key's project as an OTLP/JSON export request. POST it
 * to /v1/traces with another project's key to import it there. GET /v1/sessions/:id/logs: the
 * GenAI events of its spans (prompts and completions sent to /v1/logs) as an OTLP/JSON logs
 * export request, to POST to /v1/logs beside it.
 */
import {
  exportFileName,
  exportLogsFileName,
  genAiEventsToOtlp,
  MAX_EXPORT_SPANS,
  type StoredGenAiEvent,
  type StoredSpan,
  sessionToOtlp,
} from '@guardtrace/db/export';
import type { FastifyPluginAsync } from 'fastify';
import type pg from 'pg';
import type { Principal } from '../auth.ts';
import { CollectorError } from '../errors.ts';
import type { AppContext } from '../http/context.ts';
import { isUnavailable, timedQuery } from '../pg.ts';

type Deps = Pick<AppContext, 'admit' | 'limits' | 'pool'>;

const SESSION_SPANS = `SELECT trace_id AS "traceId", span_id AS "spanId", parent_span_id AS "parentSpanId", name, kind,
   start_time_unix_nano::text AS "startTimeUnixNano", end_time_unix_nano::text AS "endTimeUnixNano",
   status_code AS "statusCode", status_message AS "statusMessage", service_name AS "serviceName",
   scope_name AS "scopeName", scope_version AS "scopeVersion", attributes, resource, events, links
 FROM spans WHERE project_id = $1 AND session_id = $2
 ORDER BY start_time, trace_id, span_id LIMIT $3`;

// The events of the session's spans, by the genai_events key's prefix (one probe a span), in time
// and then arrival order (the prompt's messages share a time when one export carried them).
const SESSION_EVENTS = `SELECT e.trace_id AS "traceId", e.span_id AS "spanId", e.event_name AS "eventName",
   e.time_unix_nano::text AS "timeUnixNano", e.body, e.attributes, e.scope_name AS "scopeName"
 FROM spans s JOIN genai_events e ON e.project_id = s.project_id AND e.trace_id = s.trace_id AND e.span_id = s.span_id
 WHERE s.project_id = $1 AND s.session_id = $2
 ORDER BY e.time_unix_nano, e.seq LIMIT $3`;
const SESSION_STORED = 'SELECT 1 FROM spans WHERE project_id = $1 AND session_id = $2 LIMIT 1';
const NOT_FOUND = 'no session with this id in the project of this API key';

export const sessionsRoute: FastifyPluginAsync<Deps> = async (app, { admit, limits, pool }) => {
  const read = async <T extends object>(sql: string, params: unknown[]): Promise<T[]> => {
    try {
      return (await pool.query<T & pg.QueryResultRow>(timedQuery(sql, params, limits.dbTimeoutMs))).rows;
    } catch (err) {
      if (isUnavailable(err)) throw CollectorError.unavailable('database unavailable', limits.retryAfterSeconds, err);
      throw err;
    }
  };

  app.get<{ Params: { id: string } }>('/v1/sessions/:id/logs', { onRequest: admit }, async (req, reply) => {
    const principal = req.gt.principal as Principal;
    const id = req.params.id;
    if (id.includes('\0')) throw new CollectorError(404, NOT_FOUND);
    const rows = await read<StoredGenAiEvent>(SESSION_EVENTS, [principal.projectId, id, MAX_EXPORT_SPANS + 1]);
    if (rows.length === 0 && (await read(SESSION_STORED, [principal.projectId, id])).length === 0) throw new CollectorError(404, NOT_FOUND);
    if (rows.length > MAX_EXPORT_SPANS) {
      throw new CollectorError(413, `the session has more than ${MAX_EXPORT_SPANS} GenAI events: too many to export in one document`);
    }
    return reply
      .type('application/json')
      .header('content-disposition', `attachment; filename="${exportLogsFileName(id)}"`)
      .send(JSON.stringify(genAiEventsToOtlp(rows)));
  });

  app.get<{ Params: { id: string } }>('/v1/sessions/:id', { onRequest: admit }, async (req, reply) => {
    const principal = req.gt.principal as Principal;
    const id = req.params.id;
    // Postgres text holds no NUL: no session has one.
    if (id.includes('\0')) throw new CollectorError(404, 'no session with this id in the project of this API key');
    let rows: StoredSpan[];
    try {
      ({ rows } = await pool.query<StoredSpan>(
        timedQuery(SESSION_SPANS, [principal.projectId, id, MAX_EXPORT_SPANS + 1], limits.dbTimeoutMs),
      ));
    } catch (err) {
      if (isUnavailable(err)) throw CollectorError.unavailable('database unavailable', limits.retryAfterSeconds, err);
      throw err;
    }
    if (rows.length === 0) throw new CollectorError(404, 'no session with this id in the project of this API key');
    if (rows.length > MAX_EXPORT_SPANS) {
      throw new CollectorError(413, `the session has more than ${MAX_EXPORT_SPANS} spans: too many to export in one document`);
    }
    return reply
      .type('application/json')
      .header('content-disposition', `attachment; filename="${exportFileName(id)}"`)
      .send(JSON.stringify(sessionToOtlp(rows)));
  });
};
