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
import { type Context, type Tracer, TraceFlags, context, diag, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { SDK_VERSION } from './runtime.ts';
import { TailSamplingProcessor, type TailSamplingOptions } from './tail-sampling.ts';

export { TailSamplingProcessor, type TailSamplingOptions } from './tail-sampling.ts';

export interface ExporterOptions {
  /** Collector base URL; spans go to `${endpoint}/v1/traces`. */
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
   * Longest a shutdown (and the flush on exit) waits for the collector (default 1 s). Spans
   * not sent by then are dropped, counted, and reported once through the OTel diag logger.
   */
  shutdownTimeoutMillis?: number;
}

/** An agent's exit must not wait out the exporter's ~8 s of retries against a collector that is down; 1 s sends a final batch to a live one. */
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 1000;
/** The code of the process warning for spans left unsent at shutdown (`process.on('warning')`). */
export const UNSENT_WARNING_CODE = 'GUARDTRACE_SPANS_UNSENT';
/** `ExportResultCode.SUCCESS` of `@opentelemetry/core` (a stable enum; core is not a dependency of ours). */
const EXPORT_SUCCESS = 0;

/**
 * Counts the spans the collector accepted. Once shutdown begins, exports go to a second
 * exporter whose timeout is the shutdown bound, so its retries stop within the bound and
 * leave no timers behind to hold the process open.
 */
class DeliveryExporter implements SpanExporter {
  sent = 0;
  #closing = false;
  #final: SpanExporter | undefined;
  constructor(
    private readonly live: SpanExporter,
    private readonly makeFinal: () => SpanExporter,
  ) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    if (this.#closing) this.#final ??= this.makeFinal();
    const target = this.#final ?? this.live;
    target.export(spans, (result) => {
      if (result.code === EXPORT_SUCCESS) this.sent += spans.length;
      done(result);
    });
  }

  closing(): void {
    this.#closing = true;
  }

  async shutdown(): Promise<void> {
    await Promise.all([this.live.shutdown(), this.#final?.shutdown()]);
  }

  forceFlush(): Promise<void> {
    return this.live.forceFlush?.() ?? Promise.resolve();
  }
}

/** Wraps the batch processor: counts the spans handed to it and bounds its shutdown. */
class BoundedShutdownProcessor implements SpanProcessor {
  #ended = 0;
  #stopped: Promise<void> | undefined;
  constructor(
    private readonly inner: SpanProcessor,
    private readonly exporter: DeliveryExporter,
    private readonly timeoutMs: number,
    private readonly endpoint: string,
  ) {}

  onStart(span: Span, parentContext: Context): void {
    this.inner.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    // the batch processor exports sampled spans only
    if (span.spanContext().traceFlags & TraceFlags.SAMPLED) this.#ended += 1;
    this.inner.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    this.#stopped ??= this.#shutdown();
    return this.#stopped;
  }

  async #shutdown(): Promise<void> {
    this.exporter.closing();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.timeoutMs);
    });
    const flushed = this.inner.shutdown().catch((err: unknown) => diag.warn('guardtrace: shutdown failed', err));
    try {
      await Promise.race([flushed, bound]);
    } finally {
      clearTimeout(timer);
    }
    const unsent = this.#ended - this.exporter.sent;
    if (unsent > 0) {
      const message = `guardtrace: ${unsent} ${unsent === 1 ? 'span' : 'spans'} could not be sent to ${this.endpoint} before shutdown (bound ${this.timeoutMs} ms; raise shutdownTimeoutMillis to wait longer)`;
      diag.warn(message);
      // Also a process warning: OpenTelemetry's diag logger is off unless the host set one, and
      // lost spans should not go unnoticed (Node prints it on stderr; `--no-warnings` hides it).
      globalThis.process?.emitWarning?.(message, { code: UNSENT_WARNING_CODE });
    }
  }
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
  const shutdownMs = opts.shutdownTimeoutMillis ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  const exporter = new DeliveryExporter(
    guardtraceExporter({ endpoint: opts.endpoint, apiKey: opts.apiKey, timeoutMillis: opts.timeoutMillis ?? opts.batch?.exportTimeoutMillis }),
    () => guardtraceExporter({ endpoint: opts.endpoint, apiKey: opts.apiKey, timeoutMillis: shutdownMs }),
  );
  // 8192 spans: the default 2048 dropped 0.17% of spans at full speed on this machine (DESIGN.md).
  const batch = new BatchSpanProcessor(exporter, { maxQueueSize: 8192, maxExportBatchSize: 512, scheduledDelayMillis: 1000, ...opts.batch });
  const bounded = new BoundedShutdownProcessor(batch, exporter, shutdownMs, opts.endpoint);
  // Across processes the collector decides (every part is forwarded, its weight on its root).
  return opts.sampling && !opts.sampling.crossProcess ? new TailSamplingProcessor(bounded, opts.sampling) : bounded;
}

/**
 * Per-session tail sampling in front of any exporter (a vendor's, the console's, an in-memory
 * one): a batch processor around `exporter` (tuned by `batch`) behind a `TailSamplingProcessor`,
 * which holds each session's spans until its root span ends and forwards them all, or drops
 * them all when the session was clean and not sampled (`guardtrace.sampling.weight` 0, decided
 * from `new Guardtrace({ sampling: { cleanSessionRate } })`). Spans outside any session pass at
 * once. To put sampling in front of a processor of your own, use `new TailSamplingProcessor(processor, opts)`.
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
  /** Flushes and stops the exporter, within `shutdownTimeoutMillis` (default 1 s). Safe to call twice. */
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
