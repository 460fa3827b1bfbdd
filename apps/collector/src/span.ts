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
