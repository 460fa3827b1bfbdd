/**
 * `@guardtrace/sdk/setup`: the only module that imports the OpenTelemetry SDK packages.
 *
 * - Hosts that already configure OpenTelemetry (a `NodeSDK`, their own provider) add
 *   Guardtrace as one span processor (`guardtraceSpanProcessor`) or exporter
 *   (`guardtraceExporter`) and keep their provider; `new Guardtrace()` then uses the global
 *   tracer.
 * - Hosts that do not: `setupGuardtrace` makes a provider with that processor, registers it
 *   and an AsyncLocalStorage context manager, and flushes on exit.
 */
import { context, diag, type Tracer, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { CONFIG_WARNING_CODE, DeliveryExporter, DeliveryProcessor, type DeliveryStats } from './delivery.ts';
import { SDK_VERSION } from './runtime.ts';
import { type TailSamplingOptions, TailSamplingProcessor } from './tail-sampling.ts';

export { CONFIG_WARNING_CODE, type DeliveryStats, DROPPED_WARNING_CODE, EXPORT_FAILED_WARNING_CODE, UNSENT_WARNING_CODE } from './delivery.ts';
export { type TailSamplingOptions, TailSamplingProcessor } from './tail-sampling.ts';

export interface ExporterOptions {
  /** Collector base URL; spans go to `${endpoint}/v1/traces` (an endpoint that ends in `/v1/traces` is used as it is). */
  endpoint: string;
  /** Project API key, sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Per-export request timeout (default 10 s). */
  timeoutMillis?: number;
}

/** Batch processor tuning (the OpenTelemetry `BatchSpanProcessor`'s options). */
export interface BatchOptions {
  maxQueueSize?: number;
  maxExportBatchSize?: number;
  scheduledDelayMillis?: number;
  exportTimeoutMillis?: number;
}

export interface SpanProcessorOptions extends ExporterOptions {
  /** Batch processor tuning. */
  batch?: BatchOptions;
  /** Per-session tail sampling of clean sessions (default: keep everything); `crossProcess` when sessions span processes. */
  sampling?: TailSamplingOptions;
  /**
   * How long a shutdown (and the flush on exit) waits for the collector to make progress
   * (default 1 s): it waits as long as the collector keeps accepting spans, and gives up once
   * none was accepted for this long. Spans not sent by then are counted (`stats()`) and
   * reported once, apart from those the full export queue dropped earlier.
   */
  shutdownTimeoutMillis?: number;
}

/** A setup that cannot work as meant: the diagnostic logger (off unless the host set one) and a process warning. */
function configWarning(message: string): void {
  diag.warn(message);
  globalThis.process?.emitWarning?.(message, { code: CONFIG_WARNING_CODE });
}

/** An agent's exit must not wait out the exporter's ~8 s of retries against a collector that is down; 1 s sends a final batch to a live one. */
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 1000;

/** `${endpoint}/v1/traces`; an endpoint that is the traces URL already (OTLP's `..._TRACES_ENDPOINT` form) stays as it is. */
function tracesUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, '');
  return base.endsWith('/v1/traces') ? base : `${base}/v1/traces`;
}

/**
 * OTLP/HTTP protobuf exporter to a Guardtrace collector, for hosts that build their own span
 * processors: `new BatchSpanProcessor(guardtraceExporter({ endpoint, apiKey }))`.
 */
export function guardtraceExporter(opts: ExporterOptions): SpanExporter {
  return new OTLPTraceExporter({
    url: tracesUrl(opts.endpoint),
    headers: { Authorization: `Bearer ${opts.apiKey}` },
    timeoutMillis: opts.timeoutMillis ?? 10_000,
  });
}

/**
 * One span processor that sends spans to a Guardtrace collector: a batch processor around
 * `guardtraceExporter`, with tail sampling when `sampling` is given. Add it to the provider
 * you already have:
 *
 * ```ts
 * const sdk = new NodeSDK({ serviceName: 'my-agent', spanProcessors: [guardtraceSpanProcessor({ endpoint, apiKey })] });
 * sdk.start();
 * const gt = new Guardtrace(); // the global tracer provider, i.e. the NodeSDK's
 * ```
 */
export function guardtraceSpanProcessor(opts: SpanProcessorOptions): GuardtraceSpanProcessor {
  const shutdownMs = opts.shutdownTimeoutMillis ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  if (typeof opts.apiKey !== 'string' || opts.apiKey.trim() === '') {
    // `apiKey: process.env.GUARDTRACE_API_KEY!` with the variable unset: every export would be refused
    configWarning(
      `guardtrace: no apiKey given (${opts.apiKey === '' ? 'an empty string' : String(opts.apiKey)}): the collector at ${opts.endpoint} will refuse every span; pass a project's API key (web app: Settings), e.g. from GUARDTRACE_API_KEY`,
    );
  }
  const exporter = new DeliveryExporter(
    guardtraceExporter({ endpoint: opts.endpoint, apiKey: opts.apiKey, timeoutMillis: opts.timeoutMillis ?? opts.batch?.exportTimeoutMillis }),
    () => guardtraceExporter({ endpoint: opts.endpoint, apiKey: opts.apiKey, timeoutMillis: shutdownMs }),
    // a batch the collector pushed back during shutdown goes again after 1 s (a Retry-After's usual ask), sooner under a short bound
    Math.min(1000, shutdownMs / 2),
  );
  // 8192 spans: the default 2048 dropped 0.17% of spans at full speed on this machine (DESIGN.md).
  const delivery = new DeliveryProcessor(exporter, {
    maxQueueSize: 8192, maxExportBatchSize: 512, scheduledDelayMillis: 1000, ...opts.batch,
    stallTimeoutMs: shutdownMs, endpoint: opts.endpoint, url: tracesUrl(opts.endpoint),
  });
  // Across processes the collector decides (every part is forwarded, its weight on its root).
  if (!opts.sampling || opts.sampling.crossProcess) return delivery;
  return Object.assign(new TailSamplingProcessor(delivery, opts.sampling), { stats: () => delivery.stats() });
}

/** The processor of `guardtraceSpanProcessor`, with its delivery counts. */
export interface GuardtraceSpanProcessor extends SpanProcessor {
  /** What became of the spans handed to the exporter: exported, dropped (queue full), failed, unsent at shutdown, pending. */
  stats(): DeliveryStats;
}

/**
 * Per-session tail sampling in front of any exporter (a vendor's, the console's, an in-memory
 * one): a batch processor around `exporter` (tuned by `batch`) behind a `TailSamplingProcessor`,
 * which holds each session's spans until its root span ends and forwards them all, or drops
 * them all when the session was clean and not sampled (`guardtrace.sampling.weight` 0, decided
 * from `new Guardtrace({ sampling: { cleanSessionRate } })`). Spans outside any session follow
 * the sessions of their trace (sent once its local roots end, unless every session of it was
 * dropped). To put sampling in front of a processor of your own, use `new TailSamplingProcessor(processor, opts)`.
 *
 * ```ts
 * const provider = new NodeTracerProvider({ spanProcessors: [tailSamplingProcessor(new OTLPTraceExporter({ url }))] });
 * const gt = new Guardtrace({ tracer: provider.getTracer('agent'), sampling: { cleanSessionRate: 0.1 } });
 * ```
 */
export function tailSamplingProcessor(exporter: SpanExporter, opts: TailSamplingOptions & { batch?: BatchOptions } = {}): SpanProcessor {
  const { batch, ...sampling } = opts;
  return new TailSamplingProcessor(new BatchSpanProcessor(exporter, batch), sampling);
}

export interface SetupOptions extends SpanProcessorOptions {
  serviceName: string;
  serviceVersion?: string;
  /**
   * Register the provider as the global tracer provider and an AsyncLocalStorage context
   * manager (default true), so spans a tool makes itself (HTTP, DB instrumentations) nest
   * under the attempt that ran it.
   */
  register?: boolean;
  /** Flush on `beforeExit` (default true), bounded by `shutdownTimeoutMillis`. Signals (SIGTERM) still need an explicit `shutdown()`. */
  flushOnExit?: boolean;
}

export interface GuardtraceTelemetry {
  tracer: Tracer;
  provider: BasicTracerProvider;
  /** Exports what is buffered now. */
  forceFlush(): Promise<void>;
  /** Flushes and stops the exporter; waits while the collector makes progress, gives up after `shutdownTimeoutMillis` (default 1 s) without. Safe to call twice. */
  shutdown(): Promise<void>;
  /** What became of the spans handed to the exporter (a snapshot). */
  stats(): DeliveryStats;
}

export function setupGuardtrace(opts: SetupOptions): GuardtraceTelemetry {
  const processor = guardtraceSpanProcessor(opts);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': opts.serviceName,
      'service.version': opts.serviceVersion ?? '0.0.0',
      'telemetry.sdk.name': '@guardtrace/sdk',
      'telemetry.sdk.version': SDK_VERSION,
    }),
    spanProcessors: [processor],
  });
  if (opts.register !== false) {
    if (!trace.setGlobalTracerProvider(provider)) {
      // a host that runs OpenTelemetry already (NodeSDK, Sentry...) or a second setupGuardtrace:
      // `new Guardtrace()` and the framework's spans would use that provider and never reach us
      configWarning(
        `guardtrace: a global tracer provider is registered already (your OpenTelemetry setup, or an earlier setupGuardtrace): only spans of the tracer setupGuardtrace returns reach ${opts.endpoint} (new Guardtrace({ tracer: otel.tracer })); \`new Guardtrace()\` and your frameworks' spans go to the registered provider. With a provider of your own, add guardtraceSpanProcessor({ endpoint, apiKey }) to it instead of calling setupGuardtrace`,
      );
    }
    if (!context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())) diag.warn('guardtrace: a context manager was already registered');
  }
  let stopped: Promise<void> | undefined;
  const onExit = (): void => {
    void shutdown();
  };
  const shutdown = (): Promise<void> => {
    stopped ??= provider.shutdown().catch((err: unknown) => diag.warn('guardtrace: shutdown failed', err));
    process.off('beforeExit', onExit);
    return stopped;
  };
  if (opts.flushOnExit !== false) process.once('beforeExit', onExit);
  return {
    tracer: provider.getTracer('@guardtrace/sdk', SDK_VERSION),
    provider,
    forceFlush: () => provider.forceFlush().catch((err: unknown) => diag.warn('guardtrace: flush failed', err)),
    shutdown,
    stats: () => processor.stats(),
  };
}
