/**
 * OTLP/JSON spans (the protobuf JSON mapping the collector decodes, as OpenTelemetry JS's JSON
 * exporter writes it) and a builder that lays one session's spans out in time.
 */

type AttrValue = string | number | boolean | readonly string[] | undefined;
export type Attrs = Record<string, AttrValue>;

interface KeyValue {
  key: string;
  value: Record<string, unknown>;
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: KeyValue[];
  events?: { timeUnixNano: string; name: string; attributes: KeyValue[] }[];
  status: { code: number; message?: string };
}

/** Spans that share a resource and an instrumentation scope: one `resourceSpans` entry. */
export interface SpanGroup {
  resource: Attrs;
  scope: { name: string; version: string };
  spans: OtlpSpan[];
}

const SPAN_KIND_INTERNAL = 1;
const STATUS_UNSET = 0;
const STATUS_ERROR = 2;

function anyValue(v: Exclude<AttrValue, undefined>): Record<string, unknown> {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: v } : { doubleValue: v };
  return { arrayValue: { values: v.map((s) => ({ stringValue: s })) } };
}

/** Attributes as OTLP key-values; undefined ones are left out, as the OTel SDK does. */
function keyValues(attrs: Attrs): KeyValue[] {
  const out: KeyValue[] = [];
  for (const [key, v] of Object.entries(attrs)) if (v !== undefined) out.push({ key, value: anyValue(v) });
  return out;
}

const MS = 1_000_000n;

/** One trace's spans: ids numbered in order, times in milliseconds from the session's start. */
export class TraceBuilder {
  readonly spans: OtlpSpan[] = [];
  #next = 1;

  constructor(
    readonly traceId: string,
    private readonly startNs: bigint,
  ) {}

  /** A new span id, unique in this trace (for a span whose id is needed before it is added). */
  id(): string {
    return (this.#next++).toString(16).padStart(16, '0');
  }

  add(opts: {
    id?: string;
    name: string;
    parent: string | null;
    atMs: number;
    durMs: number;
    attrs: Attrs;
    kind?: number;
    error?: string;
    events?: { atMs: number; name: string; attrs: Attrs }[];
  }): string {
    const spanId = opts.id ?? this.id();
    const ns = (ms: number) => (this.startNs + BigInt(Math.round(ms * 1000)) * 1000n).toString();
    const span: OtlpSpan = {
      traceId: this.traceId,
      spanId,
      name: opts.name,
      kind: opts.kind ?? SPAN_KIND_INTERNAL,
      startTimeUnixNano: ns(opts.atMs),
      endTimeUnixNano: ns(opts.atMs + opts.durMs),
      attributes: keyValues(opts.attrs),
      status: opts.error === undefined ? { code: STATUS_UNSET } : { code: STATUS_ERROR, message: opts.error },
    };
    if (opts.parent) span.parentSpanId = opts.parent;
    if (opts.events?.length) {
      span.events = opts.events.map((e) => ({ timeUnixNano: ns(e.atMs), name: e.name, attributes: keyValues(e.attrs) }));
    }
    this.spans.push(span);
    return spanId;
  }
}

export const msToNs = (ms: number): bigint => BigInt(Math.round(ms)) * MS;

/** One OTLP/JSON export request body of these groups. */
export function exportRequest(groups: readonly SpanGroup[]): string {
  return JSON.stringify({
    resourceSpans: groups.map((g) => ({
      resource: { attributes: keyValues(g.resource) },
      scopeSpans: [{ scope: g.scope, spans: g.spans }],
    })),
  });
}
