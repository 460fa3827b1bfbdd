/**
 * GET /v1/sessions/:id: a session of the key's project as an OTLP/JSON export request. POST it
 * to /v1/traces with another project's key to import it there.
 */
import { exportFileName, MAX_EXPORT_SPANS, sessionToOtlp, type StoredSpan } from '@guardtrace/db/export';
import type { FastifyPluginAsync } from 'fastify';
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

export const sessionsRoute: FastifyPluginAsync<Deps> = async (app, { admit, limits, pool }) => {
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
