/**
 * The delivery of spans to the collector, counted: what was accepted, what the export queue
 * dropped because it was full while the collector fell behind, what failed to export, and
 * what was still unsent when shutdown gave up. Shutdown waits while the collector keeps
 * accepting spans and gives up only when it makes no progress for the shutdown bound.
 */
import { type Context, diag, TraceFlags } from '@opentelemetry/api';
import { BatchSpanProcessor, type ReadableSpan, type Span, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** How the spans handed to the exporter fared; `produced` = the sum of the other five. */
export interface DeliveryStats {
  /** Spans that reached the export pipeline (sampled ones; with tail sampling, the kept sessions'). */
  produced: number;
  /** Accepted by the collector. */
  exported: number;
  /** Dropped on arrival because the export queue held `maxQueueSize` spans (the collector fell behind). */
  droppedQueueFull: number;
  /** In exports that failed before shutdown: refused by the collector, or unreachable through the exporter's retries. */
  failed: number;
  /** Queued or being exported when shutdown gave up (no span accepted for the shutdown bound), or ended after shutdown. */
  unsentAtShutdown: number;
  /** Queued or being exported now (0 once shutdown is over). */
  pending: number;
}

/** The code of the process warning for spans lost by shutdown's end (`process.on('warning')`). */
export const UNSENT_WARNING_CODE = 'GUARDTRACE_SPANS_UNSENT';
/** The code of the process warning, emitted once, when the export queue first drops spans. */
export const DROPPED_WARNING_CODE = 'GUARDTRACE_SPANS_DROPPED';
/** The code of the process warning emitted when an export first fails for a cause (once per cause: a 401, a refused connection...). */
export const EXPORT_FAILED_WARNING_CODE = 'GUARDTRACE_EXPORT_FAILED';
/** The code of the process warning for a setup that cannot work (no API key). */
export const CONFIG_WARNING_CODE = 'GUARDTRACE_CONFIG';
/** `ExportResultCode.SUCCESS` of `@opentelemetry/core` (a stable enum; core is not a dependency of ours). */
const EXPORT_SUCCESS = 0;
const EXPORT_FAILED = 1;

/**
 * The OTLP exporter's answer when the collector pushed back (429/502/503/504) and its retries
 * ran out within its timeout, e.g. a Retry-After past the deadline: worth sending again. (A
 * network error or a request timeout comes back as that error, and counts as failed.)
 */
function isRetryable(error: Error | undefined): boolean {
  return error?.message === 'Export failed with retryable status';
}

/** Connection errors: the collector is not reachable at that address. */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Why an export failed, said for the person who set the SDK up: the HTTP status or connection
 * error the OTLP exporter reported, and what to check. `key` tells causes apart (one warning each).
 */
function describeExportFailure(error: unknown): { key: string; text: string } {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(error);
  if (typeof e.code === 'number') {
    const status = `HTTP ${e.code}${message && message !== String(e.code) ? ` ${message}` : ''}`;
    if (e.code === 401 || e.code === 403) {
      return { key: 'auth', text: `${status}: the collector did not accept the API key (missing, mistyped or revoked); pass apiKey, a project's key from the web app's Settings` };
    }
    if (e.code === 404) return { key: 'not_found', text: `${status}: nothing receives OTLP traces there; endpoint is the collector's base URL (e.g. http://localhost:4318), the SDK adds /v1/traces` };
    if (e.code === 413) return { key: 'too_large', text: `${status}: an export was over the collector's body limit; lower batch.maxExportBatchSize` };
    return { key: `http_${e.code}`, text: status };
  }
  if (typeof e.code === 'string' && CONNECT_CODES.has(e.code)) {
    return { key: `connect_${e.code}`, text: `could not connect (${message}): is the collector running at this address?` };
  }
  if (message === 'Export failed with retryable status') return { key: 'pushed_back', text: 'the collector kept pushing back (429/503) past the export timeout' };
  if (/timed? ?out/i.test(message)) return { key: 'timeout', text: `${message}: the collector did not answer within timeoutMillis` };
  return { key: 'other', text: message };
}

function warn(message: string, code: string): void {
  diag.warn(message);
  // Also a process warning: OpenTelemetry's diag logger is off unless the host set one, and
  // lost spans should not go unnoticed (Node prints it on stderr; `--no-warnings` hides it).
  globalThis.process?.emitWarning?.(message, { code });
}

/** Exports in flight at once during shutdown: a busy collector answers each in turn instead of timing them all out. */
const CLOSING_CONCURRENCY = 2;

type Done = Parameters<SpanExporter['export']>[1];

/**
 * Counts the spans handed to the exporter and how their exports ended. Once shutdown begins,
 * exports go to a second exporter whose timeout is the shutdown bound, so its retries stop
 * within the bound and leave no timers behind to hold the process open, and at most two at a
 * time, so each request's bound measures the collector's progress, not the queue in front of it.
 */
export class DeliveryExporter implements SpanExporter {
  handed = 0;
  sent = 0;
  failed = 0;
  /** Called after each export's result. */
  onSettle: (() => void) | undefined;
  /** Called with the error of each failed export (not one sent again during shutdown) and its span count. */
  onFailure: ((error: unknown, spans: number) => void) | undefined;
  #closing = false;
  #frozen = false;
  #final: SpanExporter | undefined;
  #inFlight = 0;
  readonly #waiting: [ReadableSpan[], Done][] = [];
  readonly #retrying = new Map<ReturnType<typeof setTimeout>, [ReadableSpan[], Done]>();
  /** `retryDelayMs`: how long a batch the collector pushed back waits during shutdown before it is sent again. */
  constructor(
    private readonly live: SpanExporter,
    private readonly makeFinal: () => SpanExporter,
    readonly retryDelayMs = 1000,
  ) {}

  export(spans: ReadableSpan[], done: Done): void {
    this.handed += spans.length;
    if (this.#closing) {
      this.#waiting.push([spans, done]);
      this.#next();
      return;
    }
    this.#send(this.live, spans, done);
  }

  #next(): void {
    while (this.#inFlight < CLOSING_CONCURRENCY && this.#waiting.length > 0) {
      const [spans, done] = this.#waiting.shift() as [ReadableSpan[], Done];
      this.#final ??= this.makeFinal();
      this.#send(this.#final, spans, done);
    }
  }

  #send(target: SpanExporter, spans: ReadableSpan[], done: Done): void {
    this.#inFlight += 1;
    target.export(spans, (result) => {
      this.#inFlight -= 1;
      if (this.#frozen) {
        // shutdown gave up: what still settles is not counted (its spans were reported unsent)
        done(result);
        return;
      }
      if (result.code !== EXPORT_SUCCESS && this.#closing && isRetryable(result.error)) {
        // the collector pushed back (503/429 + a Retry-After past this request's bound): during
        // shutdown the batch goes back in line, and shutdown waits while others get through
        const timer = setTimeout(() => {
          this.#retrying.delete(timer);
          this.#waiting.push([spans, done]);
          this.#next();
        }, this.retryDelayMs);
        timer.unref?.();
        this.#retrying.set(timer, [spans, done]);
        this.#next();
        return;
      }
      if (result.code === EXPORT_SUCCESS) this.sent += spans.length;
      else {
        this.failed += spans.length;
        this.onFailure?.(result.error, spans.length);
      }
      this.onSettle?.();
      done(result);
      if (this.#closing) this.#next();
    });
  }

  closing(): void {
    this.#closing = true;
  }

  /** Shutdown gave up: nothing more is counted, and exports not yet sent are not sent. */
  freeze(): void {
    this.#frozen = true;
    const left = this.#waiting.splice(0);
    for (const [timer, entry] of this.#retrying) {
      clearTimeout(timer);
      left.push(entry);
    }
    this.#retrying.clear();
    for (const [, done] of left) done({ code: EXPORT_FAILED, error: new Error('guardtrace: shutdown ended before this export was sent') });
  }

  async shutdown(): Promise<void> {
    await Promise.all([this.live.shutdown(), this.#final?.shutdown()]);
  }

  forceFlush(): Promise<void> {
    return this.live.forceFlush?.() ?? Promise.resolve();
  }
}

export interface DeliveryOptions {
  maxQueueSize: number;
  maxExportBatchSize: number;
  scheduledDelayMillis: number;
  exportTimeoutMillis?: number | undefined;
  /** Shutdown gives up once no span was accepted for this long. */
  stallTimeoutMs: number;
  endpoint: string;
  /** Where the spans go (`${endpoint}/v1/traces`), named when an export fails. */
  url: string;
}

/**
 * A batch processor with its queue counted: a span that would overflow the queue is dropped
 * here, counted and reported (the batch processor would drop it silently), and shutdown
 * waits while the collector makes progress.
 */
export class DeliveryProcessor implements SpanProcessor {
  readonly #batch: BatchSpanProcessor;
  readonly #exporter: DeliveryExporter;
  readonly #opts: DeliveryOptions;
  #accepted = 0;
  #dropped = 0;
  #afterShutdown = 0;
  #failedFrozen = 0;
  #unsent: number | undefined;
  /** The causes of failed exports already reported, and the last one (named in the report at shutdown). */
  readonly #causes = new Set<string>();
  #lastCause: string | undefined;
  #closing = false;
  #stopped: Promise<void> | undefined;

  constructor(exporter: DeliveryExporter, opts: DeliveryOptions) {
    this.#exporter = exporter;
    this.#opts = opts;
    // a wrong key, path or address fails every export: say so at the first one, not only at exit
    const url = opts.url;
    exporter.onFailure = (error, spans) => {
      const cause = describeExportFailure(error);
      this.#lastCause = cause.text;
      if (this.#causes.has(cause.key)) return;
      this.#causes.add(cause.key);
      warn(`guardtrace: an export of ${spans} ${spans === 1 ? 'span' : 'spans'} to ${url} failed: ${cause.text} (later failures of this kind are counted in stats().failed)`, EXPORT_FAILED_WARNING_CODE);
    };
    const { maxQueueSize, maxExportBatchSize, scheduledDelayMillis, exportTimeoutMillis } = opts;
    this.#batch = new BatchSpanProcessor(exporter, exportTimeoutMillis === undefined ? { maxQueueSize, maxExportBatchSize, scheduledDelayMillis } : { maxQueueSize, maxExportBatchSize, scheduledDelayMillis, exportTimeoutMillis });
  }

  /** Spans queued or in an export: never below the batch processor's own queue. */
  #pending(): number {
    return this.#accepted - this.#exporter.sent - this.#exporter.failed;
  }

  stats(): DeliveryStats {
    const e = this.#exporter;
    const over = this.#unsent !== undefined;
    const failed = over ? this.#failedFrozen : e.failed;
    return {
      produced: this.#accepted + this.#dropped + this.#afterShutdown,
      exported: e.sent,
      droppedQueueFull: this.#dropped,
      failed,
      unsentAtShutdown: over ? (this.#unsent ?? 0) : this.#afterShutdown,
      pending: over ? 0 : this.#pending(),
    };
  }

  onStart(span: Span, parentContext: Context): void {
    this.#batch.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    // the batch processor exports sampled spans only
    if (!(span.spanContext().traceFlags & TraceFlags.SAMPLED)) return;
    if (this.#closing) {
      this.#afterShutdown += 1;
      return;
    }
    // the queue is what was accepted and not yet handed to the exporter
    if (this.#accepted - this.#exporter.handed >= this.#opts.maxQueueSize) {
      if (this.#dropped === 0) {
        warn(`guardtrace: the export queue is full (maxQueueSize ${this.#opts.maxQueueSize}): spans are dropped while ${this.#opts.endpoint} falls behind; raise batch.maxQueueSize or sample clean sessions (counted in stats().droppedQueueFull)`, DROPPED_WARNING_CODE);
      }
      this.#dropped += 1;
      return;
    }
    this.#accepted += 1;
    this.#batch.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.#batch.forceFlush();
  }

  shutdown(): Promise<void> {
    this.#stopped ??= this.#shutdown();
    return this.#stopped;
  }

  async #shutdown(): Promise<void> {
    const e = this.#exporter;
    this.#closing = true;
    e.closing();
    // the batch processor hands every queued span to the exporter; its promise may settle
    // before those exports do (a batch past its exportTimeoutMillis), so the counts decide
    const flushed = this.#batch.shutdown().catch((err: unknown) => diag.warn('guardtrace: shutdown failed', err));
    const finished = new Promise<void>((resolve) => {
      const check = () => {
        if (this.#pending() === 0) resolve();
      };
      e.onSettle = check;
      void flushed.then(check);
      check();
    });
    // wait while the collector accepts spans; give up after a whole bound without progress
    for (;;) {
      const before = e.sent;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stalled = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), this.#opts.stallTimeoutMs);
      });
      const timedOut = await Promise.race([finished.then(() => false), stalled]);
      clearTimeout(timer);
      if (!timedOut || e.sent === before) break;
    }
    e.onSettle = undefined;
    e.freeze();
    this.#failedFrozen = e.failed;
    this.#unsent = this.#accepted - e.sent - e.failed + this.#afterShutdown;
    this.#report();
  }

  #report(): void {
    const s = this.stats();
    const lost = s.droppedQueueFull + s.failed + s.unsentAtShutdown;
    if (lost === 0) return;
    const parts: string[] = [];
    if (s.droppedQueueFull > 0) parts.push(`${s.droppedQueueFull} dropped from the export queue (queue full: maxQueueSize ${this.#opts.maxQueueSize}, while the collector fell behind; raise batch.maxQueueSize)`);
    if (s.failed > 0) parts.push(`${s.failed} failed to export (${this.#lastCause ?? "refused by the collector, or unreachable through the exporter's retries"})`);
    // spans that ended once shutdown had begun were never queued: the bound is not their cause
    const stalled = s.unsentAtShutdown - this.#afterShutdown;
    if (stalled > 0) parts.push(`${stalled} not sent before shutdown (no span accepted for ${this.#opts.stallTimeoutMs} ms; raise shutdownTimeoutMillis to wait longer)`);
    if (this.#afterShutdown > 0) parts.push(`${this.#afterShutdown} ended after shutdown began (end the session and await the framework's calls before shutdown())`);
    warn(`guardtrace: ${lost} of ${s.produced} ${s.produced === 1 ? 'span' : 'spans'} could not be sent to ${this.#opts.endpoint}: ${parts.join('; ')}`, UNSENT_WARNING_CODE);
  }
}
