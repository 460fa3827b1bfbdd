/**
 * Request bodies on their way in: one without Content-Length is counted against the in-flight
 * bound chunk by chunk as it arrives; every body must arrive within bodyTimeoutMs (else 408,
 * and the connection is closed, so a stalled upload holds no memory or socket for long); and
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

export function registerBodyParsing(app: FastifyInstance, ctx: Pick<AppContext, 'limits' | 'memory'>): void {
  const { limits, memory } = ctx;

  // A body without Content-Length is counted chunk by chunk as it arrives.
  app.addHook('preParsing', async (req, _reply, payload) => {
    if (req.headers['content-length'] !== undefined) return payload;
    const out = new PassThrough();
    payload.on('data', (chunk: Buffer) => {
      try {
        memory.use(req.gt.held, chunk.length);
      } catch (err) {
        payload.unpipe(out);
        out.destroy(err as Error);
      }
    });
    payload.on('error', (err) => out.destroy(err));
    payload.pipe(out);
    return out;
  });

  // A body must arrive within bodyTimeoutMs of its headers' being read, or the request is
  // answered 408 and the connection closed: a stalled upload holds no memory or socket for long.
  app.addHook('preParsing', async (_req, reply, payload) => {
    if (limits.bodyTimeoutMs <= 0) return payload;
    const out = new PassThrough();
    const timer = setTimeout(() => {
      payload.unpipe(out);
      out.destroy(
        new CollectorError(
          408,
          `request body not received within ${limits.bodyTimeoutMs / 1000} s: the connection is too slow or stalled`,
        ),
      );
    }, limits.bodyTimeoutMs);
    const stop = () => clearTimeout(timer);
    payload.on('end', stop);
    payload.on('close', stop);
    reply.raw.on('close', stop);
    payload.on('error', (err) => {
      stop();
      out.destroy(err);
    });
    payload.pipe(out);
    return out;
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(TRACE_TYPES, { parseAs: 'buffer' }, async (req: FastifyRequest, raw: Buffer) => {
    const encoding = encodingOf(req.headers['content-type']) as Encoding;
    const held = req.gt.held;
    // The body as received is counted already (admit, or as it arrived). A compressed one is
    // counted again as it inflates, and joined (its size on the wire says nothing of its
    // memory): what it announces is set aside first. Then what decoding needs, before decoding.
    // (At most the body limit: beyond it, inflating stops with its own 413.)
    const inflated = gzipInflatedSize(raw, req.headers['content-encoding']);
    if (inflated !== undefined) {
      const n = Math.min(inflated, limits.maxBodyBytes);
      memory.expect(held, held.used + 2 * n + expectedCost(n, encoding));
    }
    const body = await decodeBody(raw, req.headers['content-encoding'], limits.maxBodyBytes, (bytes) => memory.use(held, bytes));
    memory.use(held, memoryCost(body, encoding));
    return { encoding, body } satisfies Parsed;
  });
}
