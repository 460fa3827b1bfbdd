/**
 * POST /v1/traces: an OTLP/HTTP export (protobuf or JSON). Its spans are decoded, validated,
 * redacted and turned into rows one at a time (the protobuf decoder reads straight from the
 * bytes; JSON releases each parsed span once read), so neither a decoded tree nor the spans
 * outlive their rows; the answer waits for their commit and names the spans it rejected.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth.ts';
import { CollectorError } from '../errors.ts';
import { ARENA_BYTES_PER_BODY_BYTE } from '../in-flight.ts';
import { Normalizer } from '../normalize.ts';
import { RedactionScope } from '../redact.ts';
import { contentTypeOf, encodeResponse, requestSpans } from '../otlp-decode.ts';
import { rejectionMessage } from '../span-rules.ts';
import { Rejections } from '../span.ts';
import type { AppContext, Parsed } from '../http/context.ts';

type Deps = Pick<AppContext, 'admit' | 'memory' | 'metrics' | 'redactor' | 'writer'>;

export const tracesRoute: FastifyPluginAsync<Deps> = async (app, deps) => {
  const { admit, memory, metrics, redactor, writer } = deps;

  const ingest = async (req: FastifyRequest, projectId: string, parsed: Parsed) => {
    // Five: the response names the first five rejected spans.
    const rejected = new Rejections(5);
    let stored = 0;
    // The spans of one request share what recurs in them (resources, ids, names).
    const scope = new RedactionScope();
    const spans = requestSpans(parsed.body, parsed.encoding, new Normalizer(), rejected);
    const written = writer.submit(projectId, spans, {
      each: (span) => {
        redactor.span(span, scope);
        stored++;
      },
      arenaBytes: parsed.body.length * ARENA_BYTES_PER_BODY_BYTE,
      // The rows, and their copy in the COPY buffers of the transaction.
      onRowBytes: (bytes) => memory.use(req.gt.held, 2 * bytes),
    });
    try {
      await written;
    } finally {
      metrics.spansReceived.inc(stored + rejected.count);
    }
    return { stored, rejected: rejected.count, message: rejectionMessage(rejected.first, rejected.count) };
  };

  app.post('/v1/traces', { onRequest: admit }, async (req: FastifyRequest, reply: FastifyReply) => {
    const parsed = req.body as Parsed | undefined;
    if (!parsed || !Buffer.isBuffer(parsed.body)) {
      throw new CollectorError(415, 'unsupported Content-Type: send application/x-protobuf or application/json');
    }
    const principal = req.gt.principal as Principal;
    const { stored, rejected, message } = await ingest(req, principal.projectId, parsed);
    metrics.spansStored.inc(stored);
    metrics.spansRejected.inc(rejected);
    if (rejected > 0) req.log.info({ rejected, message }, 'partial success');
    return reply.type(contentTypeOf(parsed.encoding)).send(encodeResponse(parsed.encoding, rejected, message));
  });
};
