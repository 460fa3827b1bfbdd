/**
 * The collector as a Fastify app: POST /v1/traces and POST /v1/logs (OTLP/HTTP, protobuf or
 * JSON; of logs, the GenAI events), GET
 * /v1/sampling, GET /v1/sessions/:id, the datasets API (routes/datasets.ts), POST
 * /v1/datasets/:id/runs, /healthz, /readyz, /metrics. buildApp() makes the shared
 * parts (http/context.ts) and composes the hooks (http/*) and one plugin per route (routes/*),
 * each given what it uses. app.close() stops taking requests, finishes the ones in flight,
 * drains the writer and closes the pool.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { KeyCache } from './auth.ts';
import { GenAiEventStore } from './genai-events.ts';
import { createAdmission } from './http/admission.ts';
import { registerBodyParsing } from './http/body-parsing.ts';
import type { AppContext } from './http/context.ts';
import { registerErrorShaping } from './http/errors.ts';
import { registerLifecycle } from './http/lifecycle.ts';
import { InFlightMemory, inFlightBounds } from './in-flight.ts';
import { DEFAULT_LIMITS, type Limits } from './limits.ts';
import { createMetrics } from './metrics.ts';
import { createPool } from './pg.ts';
import { RateLimiter } from './rate-limit.ts';
import { type RedactionOptions, Redactor } from './redact.ts';
import { datasetsRoute } from './routes/datasets.ts';
import { healthRoute } from './routes/health.ts';
import { logsRoute } from './routes/logs.ts';
import { metricsRoute } from './routes/metrics.ts';
import { readyRoute } from './routes/ready.ts';
import { runsRoute } from './routes/runs.ts';
import { samplingRoute } from './routes/sampling.ts';
import { sessionsRoute } from './routes/sessions.ts';
import { tracesRoute } from './routes/traces.ts';
import { startSweeps } from './sampling-sweep.ts';
import { Writer } from './writer.ts';

export interface AppOptions extends Partial<Limits> {
  databaseUrl: string;
  /** Fastify logger option: false (default in tests), true, or pino options. */
  logger?: boolean | object;
  redaction?: RedactionOptions;
}

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const limits: Limits = { ...DEFAULT_LIMITS, ...definedOnly(opts) };
  const app = Fastify({
    logger: opts.logger ?? false,
    // Compressed bytes on the wire; the inflated size is checked against the same cap in body.ts.
    bodyLimit: limits.maxBodyBytes,
    // Requests arriving while closing get our own 503 + Retry-After (http/lifecycle.ts).
    return503OnClosing: false,
    // A session id in a path (GET /v1/sessions/:id) up to the 1,024 bytes ingest keeps, percent-encoded
    // (3 characters a byte); Fastify's default of 100 answered 414 for ids it had stored.
    // (routerOptions: the top-level option prints a deprecation warning at every start.)
    routerOptions: { maxParamLength: 3 * 1024 },
  });
  const ctx = await createContext(app, opts.databaseUrl, limits, opts.redaction);
  // Sessions every process would drop, held at weight 0 until their decision wait is over.
  const stopSweeps = startSweeps(ctx.pool, limits.samplingDecisionWaitMs, ctx.log);
  app.addHook('onClose', async () => {
    await stopSweeps();
    await ctx.writer.drain();
    await ctx.keys.close();
    await ctx.pool.end().catch(() => {});
  });

  registerLifecycle(app, ctx);
  registerErrorShaping(app, ctx);
  registerBodyParsing(app, ctx);
  await app.register(tracesRoute, ctx);
  await app.register(logsRoute, ctx);
  await app.register(samplingRoute, ctx);
  await app.register(sessionsRoute, ctx);
  await app.register(datasetsRoute, ctx);
  await app.register(runsRoute, ctx);
  await app.register(healthRoute);
  await app.register(readyRoute, ctx);
  await app.register(metricsRoute, ctx);
  return app;
}

/** The parts every route and hook shares, made once per app. */
async function createContext(
  app: FastifyInstance,
  databaseUrl: string,
  limits: Limits,
  redaction: RedactionOptions | undefined,
): Promise<AppContext> {
  const metrics = createMetrics();
  const log = (msg: string, err?: unknown) => {
    const e = err as { message?: string; code?: string } | undefined;
    app.log.warn(e ? { error: e.message, code: e.code } : {}, msg);
  };
  // One connection per writer lane, plus key lookups, sampling and readiness checks.
  const pool = createPool(databaseUrl, { log, max: limits.writerConcurrency + 3 });
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
  await keys.listen(databaseUrl);
  const limiter = new RateLimiter({ ratePerSecond: limits.rateLimitPerSecond, burst: limits.rateLimitBurst });
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
  const memory = new InFlightMemory(inFlightBounds(limits), limits.retryAfterSeconds, (total) => metrics.inFlightBytes.set(total));
  const admit = createAdmission({ keys, limiter, memory });
  // 64 log exports waiting: each is one short INSERT; beyond that the database is behind.
  const events = new GenAiEventStore(pool, { maxWaiting: 64, retryAfterSeconds: limits.retryAfterSeconds, queryTimeoutMs: limits.dbTimeoutMs });
  return { databaseUrl, limits, log, metrics, pool, keys, limiter, redactor: new Redactor(redaction), writer, events, memory, admit };
}

function definedOnly(o: AppOptions): Partial<Limits> {
  const out: Partial<Limits> = {};
  for (const k of Object.keys(DEFAULT_LIMITS) as (keyof Limits)[]) {
    const v = o[k];
    if (typeof v === 'number') out[k] = v;
  }
  return out;
}
