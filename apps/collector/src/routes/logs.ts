/**
 * POST /v1/logs: an OTLP/HTTP logs export (protobuf or JSON, gzip too), through the same
 * admission (key, rate limit, in-flight bounds per collector, project and key), body parsing and
 * limits (http/body-parsing.ts) and error shaping as /v1/traces. Its GenAI events (otlp-logs.ts) are redacted as spans are and
 * stored (genai-events.ts); the answer names the records not kept (not GenAI events, no span
 * context, malformed) in an OTLP partial success.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { CollectorError } from '../errors.ts';
import type { GenAiEventStore } from '../genai-events.ts';
import type { AppContext, Parsed } from '../http/context.ts';
import { ARENA_BYTES_PER_BODY_BYTE } from '../in-flight.ts';
import { contentTypeOf, encodeResponse } from '../otlp-decode.ts';
import { requestGenAiEvents } from '../otlp-logs.ts';
import { RedactionScope } from '../redact.ts';
import { Rejections } from '../span.ts';
import { rejectionMessage } from '../span-rules.ts';

type Deps = Pick<AppContext, 'admit' | 'memory' | 'metrics' | 'redactor'> & { events: GenAiEventStore };

export const logsRoute: FastifyPluginAsync<Deps> = async (app, deps) => {
  const { admit, memory, metrics, redactor, events } = deps;

  app.post('/v1/logs', { onRequest: admit }, async (req: FastifyRequest, reply: FastifyReply) => {
    const parsed = req.body as Parsed | undefined;
    if (!parsed || !Buffer.isBuffer(parsed.body)) {
      throw new CollectorError(415, 'unsupported Content-Type: send application/x-protobuf or application/json');
    }
    const projectId = req.gt.principal?.projectId as string;
    // Five: the response names the first five records not kept.
    const rejected = new Rejections(5);
    // The decoded records and their JSON text for the INSERT, against the in-flight bounds as the
    // spans' rows are (http/body-parsing.ts counted the body itself).
    memory.use(req.gt.held, 2 * ARENA_BYTES_PER_BODY_BYTE * parsed.body.length);
    const kept = requestGenAiEvents(parsed.body, parsed.encoding, rejected);
    const scope = new RedactionScope();
    for (const e of kept) {
      redactor.attributes(e.attributes, scope);
      const holder = { body: e.body };
      redactor.attributes(holder, scope);
      e.body = holder.body;
    }
    await events.write(projectId, kept);
    metrics.logRecordsStored.inc(kept.length);
    metrics.logRecordsRejected.inc(rejected.count);
    const message = rejectionMessage(rejected.first, rejected.count, 5, 'log record(s)');
    if (rejected.count > 0) req.log.info({ rejected: rejected.count, message }, 'partial success');
    return reply.type(contentTypeOf(parsed.encoding)).send(encodeResponse(parsed.encoding, rejected.count, message, 'rejectedLogRecords'));
  });
};
