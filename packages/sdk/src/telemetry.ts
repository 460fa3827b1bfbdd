import {
  type Attributes,
  type AttributeValue,
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  context,
  diag,
  trace,
} from '@opentelemetry/api';

export type Attrs = Record<string, AttributeValue | undefined | null>;

const INVALID_SPAN_ID = '0000000000000000';
const NOOP_SPAN: Span = trace.wrapSpanContext({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 });

function clean(attrs: Attrs): Attributes {
  let dirty = false;
  for (const k in attrs) {
    const v = attrs[k];
    if (v === undefined || v === null) {
      dirty = true;
      break;
    }
  }
  if (!dirty) return attrs as Attributes;
  const out: Attributes = {};
  for (const k in attrs) {
    const v = attrs[k];
    if (v !== undefined && v !== null) out[k] = v;
  }
  return out;
}

/**
 * Span helpers that never throw into the agent: every call into the tracer is guarded and
 * failures go to the OTel diagnostic logger. With tracing off, spans are non-recording.
 */
export class Telemetry {
  readonly enabled: boolean;
  readonly #tracer: Tracer | undefined;
  readonly #version: string;

  constructor(tracer: Tracer | undefined, enabled: boolean, version: string) {
    this.enabled = enabled;
    this.#tracer = tracer;
    this.#version = version;
  }

  #getTracer(): Tracer {
    return this.#tracer ?? trace.getTracer('@guardtrace/sdk', this.#version);
  }

  start(name: string, attrs: Attrs, parent?: Span | Context, startTime?: number, kind: SpanKind = SpanKind.INTERNAL): Span {
    if (!this.enabled) return NOOP_SPAN;
    try {
      const ctx = parent === undefined ? context.active() : isSpan(parent) ? trace.setSpan(context.active(), parent) : parent;
      const opts: { kind: SpanKind; attributes: Attributes; startTime?: number } = { kind, attributes: clean(attrs) };
      if (startTime !== undefined) opts.startTime = startTime;
      return this.#getTracer().startSpan(name, opts, ctx);
    } catch (err) {
      diag.warn('guardtrace: could not start span', err);
      return NOOP_SPAN;
    }
  }

  set(span: Span, attrs: Attrs): void {
    try {
      span.setAttributes(clean(attrs));
    } catch (err) {
      diag.warn('guardtrace: could not set attributes', err);
    }
  }

  end(span: Span, opts: { error?: string; endTime?: number } = {}): void {
    try {
      if (opts.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: opts.error });
      span.end(opts.endTime);
    } catch (err) {
      diag.warn('guardtrace: could not end span', err);
    }
  }

  event(span: Span, name: string, attrs: Attrs): void {
    try {
      span.addEvent(name, clean(attrs));
    } catch (err) {
      diag.warn('guardtrace: could not add an event', err);
    }
  }

  rename(span: Span, name: string): void {
    try {
      span.updateName(name);
    } catch (err) {
      diag.warn('guardtrace: could not rename span', err);
    }
  }

  spanId(span: Span): string {
    try {
      const id = span.spanContext().spanId;
      return id === INVALID_SPAN_ID ? '' : id;
    } catch {
      return '';
    }
  }

  /** Runs `fn` with `span` as the active span, so a tool's own instrumentation nests under the attempt. */
  withSpan<T>(span: Span, fn: () => T): T {
    let ctx: Context;
    try {
      ctx = trace.setSpan(context.active(), span);
    } catch {
      return fn();
    }
    return context.with(ctx, fn);
  }
}

function isSpan(v: Span | Context): v is Span {
  return typeof (v as Span).spanContext === 'function';
}
