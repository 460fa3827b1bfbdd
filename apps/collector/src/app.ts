/**
 * The collector as a Fastify app: POST /v1/traces (OTLP/HTTP, protobuf or JSON), GET
 * /v1/sampling, /healthz, /readyz, /metrics. buildApp() wires the pieces; app.close() stops
 * taking requests, finishes the ones in flight, drains the writer and closes the pool.
 */
import { exportFileName, MAX_EXPORT_SPANS, sessionToOtlp, type StoredSpan } from '@guardtrace/db/export';
import { pendingMigrations } from '@guardtrace/db/server';
import { PassThrough } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { decodeBody, discardBody } from './body.ts';
import { KeyCache, keyFromHeaders, type Principal } from './auth.ts';
import { CollectorError, RpcCode, toCollectorError } from './errors.ts';
import { DEFAULT_LIMITS, type Limits } from './limits.ts';
import { createMetrics } from './metrics.ts';
import { Normalizer } from './normalize.ts';
import { rejectionMessage } from './span-rules.ts';
import { contentTypeOf, type Encoding, encodeResponse, encodeStatus, encodingOf, memoryCost, requestSpans } from './otlp-decode.ts';
import { createPool, isUnavailable, timedQuery, withTimeout } from './pg.ts';
import { expectedCost, gzipInflatedSize, type Held, InFlightMemory, ARENA_BYTES_PER_BODY_BYTE } from './in-flight.ts';
import { RateLimiter } from './rate-limit.ts';
import { Rejections } from './span.ts';
import { type RedactionOptions, Redactor } from './redact.ts';
import { sweepHeldSessions } from './sampling-sweep.ts';
import { Writer } from './writer.ts';

export interface AppOptions extends Partial<Limits> {
  databaseUrl: string;
  /** Fastify logger option: false (default in tests), true, or pino options. */
  logger?: boolean | object;
  redaction?: RedactionOptions;
}

interface RequestState {
  principal?: Principal;
  /** Its share of the in-flight memory bound (in-flight.ts). */
  held: Held;
}

declare module 'fastify' {
  interface FastifyRequest {
    gt: RequestState;
  }
}

interface Parsed {
  encoding: Encoding;
  body: Buffer;
}

const TRACE_TYPES = ['application/x-protobuf', 'application/protobuf', 'application/json'];

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const limits: Limits = { ...DEFAULT_LIMITS, ...definedOnly(opts) };
  const app = Fastify({
    logger: opts.logger ?? false,
    // Compressed bytes on the wire; the inflated size is checked against the same cap in body.ts.
    bodyLimit: limits.maxBodyBytes,
    // Requests arriving while closing get our own 503 + Retry-After (onRequest below).
    return503OnClosing: false,
  });
  const metrics = createMetrics();
  const log = (msg: string, err?: unknown) => {
    const e = err as { message?: string; code?: string } | undefined;
    app.log.warn(e ? { error: e.message, code: e.code } : {}, msg);
  };
  // One connection per writer lane, plus key lookups, sampling and readiness checks.
  const pool = createPool(opts.databaseUrl, { log, max: limits.writerConcurrency + 3 });
  const keys = new KeyCache(pool, {
    ttlMs: limits.keyCacheTtlMs,
    // 5 s: a key created in the UI starts working almost at once, while a flood of bad keys is still cached.
    negativeTtlMs: 5_000,
    // 10,000 keys: far above any real fleet's active keys, small in memory.
    maxEntries: 10_000,
    retryAfterSeconds: limits.retryAfterSeconds,
    queryTimeoutMs: limits.dbTimeoutMs,
  });
  // Revocations from the web app reach this collector's key cache as they commit.
  await keys.listen(opts.databaseUrl);
  const limiter = new RateLimiter({ ratePerSecond: limits.rateLimitPerSecond, burst: limits.rateLimitBurst });
  const redactor = new Redactor(opts.redaction);
  const writer = new Writer(pool, {
    maxBatchSpans: limits.maxBatchSpans,
    maxQueueSpans: limits.maxQueueSpans,
    concurrency: limits.writerConcurrency,
    retryAfterSeconds: limits.retryAfterSeconds,
    commitTimeoutMs: limits.dbTimeoutMs,
    onBatch: (n, s) => {
      metrics.batchSize.observe(n);
      metrics.batchSeconds.observe(s);
    },
    onQueueDepth: (n) => metrics.queueDepth.set(n),
    log,
  });
  const memory = new InFlightMemory(limits.maxInFlightBytes, limits.retryAfterSeconds, (total) => metrics.inFlightBytes.set(total));
  const release = (req: FastifyRequest) => memory.release(req.gt.held);

  // While closing: new requests are refused with 503 + Retry-After, and in-flight ones are
  // answered with `Connection: close` (a kept-alive socket would hold close() open).
  let closing = false;
  app.decorateRequest('gt', null as unknown as RequestState);
  app.addHook('onRequest', async (req) => {
    req.gt = { held: { reserved: 0, used: 0 } };
    if (closing) throw CollectorError.unavailable('collector is shutting down', limits.retryAfterSeconds);
  });
  app.addHook('onResponse', async (req, reply) => {
    release(req);
    metrics.requests.observe(
      { route: req.routeOptions.url ?? 'unknown', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    if (reply.statusCode === 429 || reply.statusCode === 503) {
      metrics.overloaded.inc({ reason: reply.statusCode === 429 ? 'rate_limit' : 'unavailable' });
    }
  });
  app.addHook('onRequestAbort', async (req) => release(req));
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_req, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  // Sessions every process would drop, held at weight 0 until their decision wait is over.
  let sweeping: Promise<unknown> | undefined;
  const sweep =
    limits.samplingDecisionWaitMs > 0
      ? setInterval(
          () => {
            sweeping ??= sweepHeldSessions(pool, { decisionWaitMs: limits.samplingDecisionWaitMs })
              .catch((err: unknown) => log('sampling sweep failed', err))
              .finally(() => {
                sweeping = undefined;
              });
          },
          // Every 30 s (or half the wait when shorter): a session is deleted at most that long after its wait.
          Math.max(1_000, Math.min(30_000, limits.samplingDecisionWaitMs / 2)),
        )
      : undefined;
  sweep?.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    await sweeping;
    await writer.drain();
    await keys.close();
    await pool.end().catch(() => {});
  });

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

  /** Auth, rate limit and the memory bound, all before the body is read. */
  const admit = async (req: FastifyRequest) => {
    const principal = await keys.authenticate(keyFromHeaders(req.headers));
    const wait = limiter.take(principal.keyHash);
    if (wait > 0) throw CollectorError.tooMany('rate limit exceeded for this API key', wait);
    req.gt.principal = principal;
    // The body is held from the moment it arrives: counted (or refused) before it is read,
    // with what its decoding will need when it is not compressed.
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > 0) {
      const encoding = encodingOf(req.headers['content-type']);
      const enc = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
      const plain = encoding !== undefined && (enc === '' || enc === 'identity');
      memory.expect(req.gt.held, plain ? declared + expectedCost(declared, encoding) : declared);
      memory.use(req.gt.held, declared);
    }
  };

  /**
   * Decode, validate, redact and build the rows of a request's spans, one span at a time (the
   * protobuf decoder reads straight from the bytes; JSON releases each parsed span once read),
   * so neither a decoded tree nor the spans outlive their rows; then wait for the commit.
   */
  const ingest = async (req: FastifyRequest, projectId: string, parsed: Parsed) => {
    // Five: the response names the first five rejected spans.
    const rejected = new Rejections(5);
    let stored = 0;
    const seen = new WeakSet<object>();
    const spans = requestSpans(parsed.body, parsed.encoding, new Normalizer(), rejected);
    const written = writer.submit(projectId, spans, {
      each: (span) => {
        redactor.span(span, seen);
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

  app.get('/v1/sampling', { onRequest: admit }, async (req) => {
    const principal = req.gt.principal as Principal;
    try {
      const { rows } = await pool.query<{ rate: number }>(
        timedQuery('SELECT clean_sample_rate AS rate FROM projects WHERE id = $1', [principal.projectId], limits.dbTimeoutMs),
      );
      return { cleanSampleRate: rows[0]?.rate ?? 1 };
    } catch (err) {
      if (isUnavailable(err)) throw CollectorError.unavailable('database unavailable', limits.retryAfterSeconds, err);
      throw err;
    }
  });

  // A session of the key's project as an OTLP/JSON export request: POST it to /v1/traces with
  // another project's key to import it there.
  app.get<{ Params: { id: string } }>('/v1/sessions/:id', { onRequest: admit }, async (req, reply) => {
    const principal = req.gt.principal as Principal;
    const id = req.params.id;
    // Postgres text holds no NUL: no session has one.
    if (id.includes('\0')) throw new CollectorError(404, 'no session with this id in the project of this API key');
    let rows: StoredSpan[];
    try {
      ({ rows } = await pool.query<StoredSpan>(
        timedQuery(
          `SELECT trace_id AS "traceId", span_id AS "spanId", parent_span_id AS "parentSpanId", name, kind,
             start_time_unix_nano::text AS "startTimeUnixNano", end_time_unix_nano::text AS "endTimeUnixNano",
             status_code AS "statusCode", status_message AS "statusMessage", service_name AS "serviceName",
             scope_name AS "scopeName", scope_version AS "scopeVersion", attributes, resource, events, links
           FROM spans WHERE project_id = $1 AND session_id = $2
           ORDER BY start_time, trace_id, span_id LIMIT $3`,
          [principal.projectId, id, MAX_EXPORT_SPANS + 1],
          limits.dbTimeoutMs,
        ),
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

  // OTLP exporters pointed at OTEL_EXPORTER_OTLP_ENDPOINT send every signal here: say why
  // metrics and logs are refused, in a google.rpc.Status of the request's encoding.
  app.setNotFoundHandler(async (req, reply) => {
    const path = (req.url.split('?')[0] ?? '').slice(0, 100);
    const message =
      path === '/v1/metrics' || path === '/v1/logs'
        ? `the Guardtrace collector receives traces only: ${path} is not served. Point traces here with ` +
          'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (http://<collector>/v1/traces) rather than OTEL_EXPORTER_OTLP_ENDPOINT, ' +
          'or turn that signal\'s exporter off'
        : `no route ${req.method} ${path}: the collector serves POST /v1/traces, GET /v1/sampling, GET /v1/sessions/{id}, /healthz, /readyz and /metrics`;
    const encoding = encodingOf(req.headers['content-type']) ?? 'json';
    return reply.status(404).type(contentTypeOf(encoding)).send(encodeStatus(encoding, RpcCode.UNIMPLEMENTED, message));
  });

  app.get('/healthz', async () => ({ status: 'ok' }));

  let migrationsChecked = false;
  app.get('/readyz', async (_req, reply) => {
    try {
      await pool.query(timedQuery('SELECT 1', [], limits.dbTimeoutMs));
      if (!migrationsChecked) {
        const pending = await withTimeout(
          pendingMigrations(opts.databaseUrl),
          limits.dbTimeoutMs,
          () => new Error('migration check timed out'),
        );
        if (pending.length > 0) {
          return reply.status(503).send({ status: 'migrations pending', pending });
        }
        migrationsChecked = true; // applied migrations do not un-apply
      }
      return { status: 'ready', queuedSpans: writer.queuedSpans };
    } catch (err) {
      // The error's text stays in the log (it may name hosts, users and tables).
      log('readiness check failed', err);
      return reply
        .status(503)
        .header('retry-after', String(limits.retryAfterSeconds))
        .send({ status: 'database unreachable' });
    }
  });

  app.get('/metrics', async (_req, reply) => {
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  return app;
}

function definedOnly(o: AppOptions): Partial<Limits> {
  const out: Partial<Limits> = {};
  for (const k of Object.keys(DEFAULT_LIMITS) as (keyof Limits)[]) {
    const v = o[k];
    if (typeof v === 'number') out[k] = v;
  }
  return out;
}
