/**
 * Bounded shutdown. On SIGTERM the collector stops accepting (the listening socket closes; a
 * request that still arrives on an open connection gets 503 + Retry-After with
 * `Connection: close`, see app.ts), finishes what it was doing — requests being read, queued
 * spans committed and acknowledged — and exits. A flood can make that take long: slow bodies
 * are read up to the body timeout, refused bodies are drained, queued batches commit one by one
 * (one collector was still draining 57 s after SIGTERM). So the drain has a limit: when it
 * passes, every request not yet answered is answered 503 + Retry-After, and the process exits.
 * Nothing is acknowledged before its spans are committed, so a request cut at the limit is
 * retried by its client; if its spans committed after all, ingest is idempotent and the retry
 * stores nothing twice. Nothing acknowledged is lost.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { RpcCode } from './errors.ts';
import { contentTypeOf, encodeStatus, encodingOf } from './otlp-decode.ts';

export interface DrainOptions {
  /** How long the drain may take before unanswered requests are answered 503. */
  limitMs: number;
  retryAfterSeconds: number;
  /** How long the 503s of a cut drain may take to be written before the process exits anyway. */
  flushMs?: number;
}

export interface DrainResult {
  /** false: the limit passed first. */
  drained: boolean;
  /** Requests answered 503 at the limit. */
  cut: number;
}

/**
 * Tracks every request from its arrival (at the HTTP server, before any hook of the app can
 * refuse or hold it) to its response, and returns the drain: `app.close()` within the limit.
 * Call before the app listens.
 */
export function boundedDrain(app: FastifyInstance, opts: DrainOptions): () => Promise<DrainResult> {
  const open = new Map<ServerResponse, string | undefined>();
  app.server.on('request', (req, res: ServerResponse) => {
    open.set(res, req.headers['content-type']);
    res.once('close', () => open.delete(res));
  });
  return async () => {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), opts.limitMs);
    });
    // A close that fails (a pool that will not end) before the limit ends the drain: the caller
    // logs it. One that fails after the limit is moot (the process exits), not unhandled.
    const closed = app.close().then(() => true as const);
    closed.catch(() => {});
    const drained = await Promise.race([closed, limit]).finally(() => clearTimeout(timer));
    if (drained) return { drained: true, cut: 0 };
    const written: Promise<unknown>[] = [];
    let cut = 0;
    for (const [res, contentType] of open) {
      if (res.headersSent || res.writableEnded) continue;
      cut += 1;
      const encoding = encodingOf(contentType) ?? 'json';
      written.push(new Promise((resolve) => res.once('close', resolve)));
      res.writeHead(503, {
        'content-type': contentTypeOf(encoding),
        'retry-after': String(opts.retryAfterSeconds),
        connection: 'close',
      });
      res.end(encodeStatus(encoding, RpcCode.UNAVAILABLE, 'collector is shutting down: not stored, retry'));
    }
    let flushTimer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(written),
      new Promise((resolve) => {
        flushTimer = setTimeout(resolve, opts.flushMs ?? 1_000);
      }),
    ]).finally(() => clearTimeout(flushTimer));
    return { drained: false, cut };
  };
}
