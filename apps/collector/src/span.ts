/**
 * The collector's span model: one validated span as every later step (redaction, mapping to
 * derived rows, the writer) sees it, whether it came as protobuf or JSON.
 */

export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };
export type Attributes = Record<string, AttrValue>;

export interface SpanEvent {
  timeUnixNano: string;
  name: string;
  attributes: Attributes;
}
export interface SpanLink {
  traceId: string;
  spanId: string;
  attributes: Attributes;
}

export interface NormSpan {
  /** Start time as Postgres timestamptz text (set once by mapping.ts). */
  startTime?: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  statusCode: number;
  statusMessage: string | null;
  attributes: Attributes;
  events: SpanEvent[];
  links: SpanLink[];
  resource: Attributes;
  serviceName: string | null;
  scopeName: string | null;
  scopeVersion: string | null;
}

export interface Rejection {
  path: string;
  reason: string;
}

/**
 * A request's rejected spans: every one counted, the first `keep` kept with their place and
 * reason (a response names five). The place is built only for the ones kept, so a body of
 * millions of invalid spans costs a count, not a list.
 */
export class Rejections {
  count = 0;
  readonly first: Rejection[] = [];

  constructor(private readonly keep = Number.POSITIVE_INFINITY) {}

  /** `times` spans rejected at `path` (a function: only called when the rejection is kept). */
  add(path: string | (() => string), reason: string, times = 1): void {
    for (let i = 0; i < times && this.first.length < this.keep; i++) {
      this.first.push({ path: typeof path === 'string' ? path : path(), reason });
    }
    this.count += times;
  }
}

/**
 * What a request decoder yields: a valid span, or null now and then while it is rejecting many
 * spans in a row (a chance for the consumer to let other requests run).
 */
export type SpanOrPause = NormSpan | null;

/** Rejected spans between two pauses of a decoder (each costs ~1 µs: ~0.1 ms of work). */
export const REJECTIONS_PER_PAUSE = 128;
