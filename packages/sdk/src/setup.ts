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
import { type Tracer, context, diag, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { SDK_VERSION } from './runtime.ts';
import { TailSamplingProcessor, type TailSamplingOptions } from './tail-sampling.ts';

export type { TailSamplingOptions } from './tail-sampling.ts';

export interface ExporterOptions {
  /** Collector base URL; spans go to `${endpoint}/v1/traces`. */
  endpoint: string;
  /** Project API key, sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Per-export request timeout (default 10 s). */
  timeoutMillis?: number;
}

export interface SpanProcessorOptions extends ExporterOptions {
  /** Batch processor tuning. */
  batch?: { maxQueueSize?: number; maxExportBatchSize?: number; scheduledDelayMillis?: number; exportTimeoutMillis?: number };
  /** Per-session tail sampling of clean sessions (default: keep everything). */
  sampling?: TailSamplingOptions;
}

/**
 * OTLP/HTTP protobuf exporter to a Guardtrace collector, for hosts that build their own span
 * processors: `new BatchSpanProcessor(guardtraceExporter({ endpoint, apiKey }))`.
 */
export function guardtraceExporter(opts: ExporterOptions): SpanExporter {
  return new OTLPTraceExporter({
    url: `${opts.endpoint.replace(/\/+$/, '')}/v1/traces`,
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
export function guardtraceSpanProcessor(opts: SpanProcessorOptions): SpanProcessor {
  const exporter = guardtraceExporter({ endpoint: opts.endpoint, apiKey: opts.apiKey, timeoutMillis: opts.timeoutMillis ?? opts.batch?.exportTimeoutMillis });
  // 8192 spans: the default 2048 dropped 0.17% of spans at full speed on this machine (DESIGN.md).
  const batch = new BatchSpanProcessor(exporter, { maxQueueSize: 8192, maxExportBatchSize: 512, scheduledDelayMillis: 1000, ...opts.batch });
  return opts.sampling ? new TailSamplingProcessor(batch, opts.sampling) : batch;
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
  /** Flush on `beforeExit` (default true). Signals (SIGTERM) still need an explicit `shutdown()`. */
  flushOnExit?: boolean;
}

export interface GuardtraceTelemetry {
  tracer: Tracer;
  provider: BasicTracerProvider;
  /** Exports what is buffered now. */
  forceFlush(): Promise<void>;
  /** Flushes and stops the exporter. Safe to call twice. */
  shutdown(): Promise<void>;
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
    if (!trace.setGlobalTracerProvider(provider)) diag.warn('guardtrace: a global tracer provider was already registered; use the returned tracer');
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
  };
}
