/**
 * Request bodies on their way in: each is counted against the in-flight bounds chunk by chunk
 * as it arrives (whatever its Content-Length says); each must arrive within bodyTimeoutMs (else
 * 408, and the connection is closed, so a stalled upload holds no socket for long); and
 * OTLP bodies (protobuf or JSON, maybe compressed) are parsed into a `Parsed` with what they
 * hold in memory counted before each step that allocates.
 */
import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { decodeBody } from '../body.ts';
import { CollectorError } from '../errors.ts';
import { expectedCost, gzipInflatedSize } from '../in-flight.ts';
import { type Encoding, encodingOf, memoryCost } from '../otlp-decode.ts';
import type { AppContext, Parsed } from './context.ts';

const TRACE_TYPES = ['application/x-protobuf', 'application/protobuf', 'application/json'];

const plain = (contentEncoding: string | undefined) => {
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  return enc === '' || enc === 'identity';
};

export function registerBodyParsing(app: FastifyInstance, ctx: Pick<AppContext, 'limits' | 'memory'>): void {
  const { limits, memory } = ctx;

  // Every body is counted against the in-flight bounds chunk by chunk as it arrives (what its
  // Content-Length declares was only checked at admission). And it must arrive within
  // bodyTimeoutMs of its headers' being read, or the request is answered 408 and the connection
  // closed: a stalled upload holds no socket for long, and only what it sent.
  app.addHook('preParsing', async (req, reply, payload) => {
    const out = new PassThrough();
    const onData = (chunk: Buffer) => {
      try {
        memory.use(req.gt.held, chunk.length);
      } catch (err) {
        fail(err as Error);
      }
    };
    // Refused: what is left of the body is read and dropped (http/errors.ts), and not counted.
    const fail = (err: Error) => {
      stop();
      payload.off('data', onData);
      payload.unpipe(out);
      out.destroy(err);
    };
    const timer =
      limits.bodyTimeoutMs > 0
        ? setTimeout(
            () =>
              fail(
                new CollectorError(
                  408,
                  `request body not received within ${limits.bodyTimeoutMs / 1000} s: the connection is too slow or stalled`,
                ),
              ),
            limits.bodyTimeoutMs,
          )
        : undefined;
    function stop() {
      clearTimeout(timer);
    }
    payload.on('data', onData);
    payload.on('end', stop);
    payload.on('close', stop);
    reply.raw.on('close', stop);
    payload.on('error', fail);
    payload.pipe(out);
    return out;
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(TRACE_TYPES, { parseAs: 'buffer' }, async (req: FastifyRequest, raw: Buffer) => {
    const encoding = encodingOf(req.headers['content-type']) as Encoding;
    const held = req.gt.held;
    // The body as received is counted already (as it arrived). A compressed one is counted
    // again as it inflates, and joined (its size on the wire says nothing of its memory): what
    // it announces is set aside first. What decoding needs is set aside before decoding.
    // (At most the body limit: beyond it, inflating stops with its own 413.)
    const inflated = gzipInflatedSize(raw, req.headers['content-encoding']);
    if (inflated !== undefined) {
      const n = Math.min(inflated, limits.maxBodyBytes);
      memory.expect(held, held.used + 2 * n + expectedCost(n, encoding));
    } else if (plain(req.headers['content-encoding'])) {
      memory.expect(held, held.used + expectedCost(raw.length, encoding));
    }
    const body = await decodeBody(raw, req.headers['content-encoding'], limits.maxBodyBytes, (bytes) => memory.use(held, bytes));
    memory.use(held, memoryCost(body, encoding));
    return { encoding, body } satisfies Parsed;
  });
}
