/**
 * Error shaping: every refusal and failure, whatever threw it, answered as the one
 * CollectorError it maps to (errors.ts), as a google.rpc.Status in the request's encoding with
 * Retry-After when it has one; and unknown routes answered 404 saying what is served.
 */
import type { FastifyInstance } from 'fastify';
import { discardBody } from '../body.ts';
import { RpcCode, toCollectorError } from '../errors.ts';
import type { Limits } from '../limits.ts';
import { contentTypeOf, encodeStatus, encodingOf } from '../otlp-decode.ts';

export function registerErrorShaping(app: FastifyInstance, ctx: { limits: Limits }): void {
  const { limits } = ctx;
  app.setErrorHandler(async (err, req, reply) => {
    const e = toCollectorError(err);
    if (e.status >= 500 && e.status !== 503) req.log.error({ err }, 'request failed');
    else req.log.info({ status: e.status, reason: e.message }, 'request refused');
    // Refused before its body was read (401, 413 by Content-Length, 429, 503): the rest of the body
    // is read and dropped first, within bounds, so the client sees this answer rather than a reset.
    // A stalled body (408) is not waited for again.
    if (e.status !== 408 && !(await discardBody(req.raw, limits.maxDiscardBytes, limits.bodyTimeoutMs || 30_000))) {
      reply.header('connection', 'close');
    }
    const encoding = encodingOf(req.headers['content-type']) ?? 'json';
    if (e.retryAfter !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(e.retryAfter))));
    // The rest of a timed-out body may still come: the connection is not reused.
    if (e.status === 408) reply.header('connection', 'close');
    return reply.status(e.status).type(contentTypeOf(encoding)).send(encodeStatus(encoding, e.rpcCode, e.message));
  });

  // OTLP exporters pointed at OTEL_EXPORTER_OTLP_ENDPOINT send every signal here: say why
  // metrics are refused, in a google.rpc.Status of the request's encoding.
  app.setNotFoundHandler(async (req, reply) => {
    const path = (req.url.split('?')[0] ?? '').slice(0, 100);
    const message =
      path === '/v1/metrics'
        ? `the Guardtrace collector receives traces and logs only: ${path} is not served. Point traces and logs here with ` +
          'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and OTEL_EXPORTER_OTLP_LOGS_ENDPOINT (http://<collector>/v1/traces, /v1/logs) ' +
          'rather than OTEL_EXPORTER_OTLP_ENDPOINT, or turn the metrics exporter off'
        : `no route ${req.method} ${path}: the collector serves POST /v1/traces, POST /v1/logs, GET /v1/sampling, GET /v1/sessions/{id}, GET and POST /v1/datasets, GET /v1/datasets/{id}, POST /v1/datasets/{id}/runs, /healthz, /readyz and /metrics`;
    const encoding = encodingOf(req.headers['content-type']) ?? 'json';
    return reply.status(404).type(contentTypeOf(encoding)).send(encodeStatus(encoding, RpcCode.UNIMPLEMENTED, message));
  });
}
