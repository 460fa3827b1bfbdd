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

const MASK64 = (1n << 64n) - 1n;

/** SplitMix64's finaliser: a bijection of 64-bit values that scatters consecutive inputs. */
function mix64(x: bigint): bigint {
  let z = x & MASK64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

/**
 * One trace's spans: ids drawn from the trace id, times in milliseconds from the session's start.
 * Span ids look random and differ between traces, as an OpenTelemetry SDK's do: numbered
 * 1, 2, 3… in every trace, each id was shared by thousands of seeded sessions, so a lookup by span
 * id (the rollup's, the replay's) read far more rows than it would on real data. The same trace id
 * gives the same ids, so a re-run stores nothing new.
 */
export class TraceBuilder {
  readonly spans: OtlpSpan[] = [];
  #next = 1n;
  readonly #base: bigint;

  constructor(
    readonly traceId: string,
    private readonly startNs: bigint,
  ) {
    const t = BigInt(`0x${traceId.padStart(32, '0')}`);
    // Mixed again after folding: trace ids of one run differ in a few low bits only.
    this.#base = mix64(mix64(t >> 64n) ^ (t & MASK64));
  }

  /** A new span id, unique in this trace (for a span whose id is needed before it is added). */
  id(): string {
    for (;;) {
      // mix64 is a bijection, so distinct counters give distinct ids within the trace.
      const v = mix64(this.#base ^ this.#next++);
      if (v !== 0n) return v.toString(16).padStart(16, '0');
    }
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
