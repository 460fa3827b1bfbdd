/**
 * A session's stored raw spans as one OTLP/JSON export request (ExportTraceServiceRequest, the
 * body `POST /v1/traces` takes): the download of the replay page and the collector's
 * `GET /v1/sessions/{id}`. Posting it to a collector with another project's key imports the
 * session there: the collector derives the same rows from it.
 *
 * Pure functions over rows read by the caller (the web app through Prisma, the collector
 * through pg), so both serve the same document.
 */

/** Most spans one export holds: a session's replay already stops at far fewer; beyond it, export from the database. */
export const MAX_EXPORT_SPANS = 100_000;

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** One stored span, as either reader returns it (nanoseconds as bigint or as text). */
export interface StoredSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: number;
  startTimeUnixNano: bigint | string;
  endTimeUnixNano: bigint | string;
  statusCode: number;
  statusMessage: string | null;
  serviceName: string | null;
  scopeName: string | null;
  scopeVersion: string | null;
  attributes: unknown;
  resource: unknown;
  events: unknown;
  links: unknown;
}

type AnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { arrayValue: { values: AnyValue[] } }
  | { kvlistValue: { values: KeyValue[] } }
  | Record<string, never>;
interface KeyValue {
  key: string;
  value: AnyValue;
}

/** An OTLP AnyValue of a stored attribute value (whole numbers as intValue, as OTLP/JSON writes int64: a string). */
function anyValue(v: Json): AnyValue {
  if (v === null) return {};
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(anyValue) } };
  return { kvlistValue: { values: keyValues(v) } };
}

function keyValues(attrs: unknown): KeyValue[] {
  if (attrs === null || typeof attrs !== 'object' || Array.isArray(attrs)) return [];
  return Object.entries(attrs as Record<string, Json>).map(([key, value]) => ({ key, value: anyValue(value) }));
}

const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? (v as Record<string, unknown>[]) : []);

function otlpSpan(s: StoredSpan): Record<string, unknown> {
  return {
    traceId: s.traceId,
    spanId: s.spanId,
    ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
    name: s.name,
    kind: s.kind,
    startTimeUnixNano: String(s.startTimeUnixNano),
    endTimeUnixNano: String(s.endTimeUnixNano),
    attributes: keyValues(s.attributes),
    events: list(s.events).map((e) => ({
      timeUnixNano: String(e.timeUnixNano ?? '0'),
      name: String(e.name ?? ''),
      attributes: keyValues(e.attributes),
    })),
    links: list(s.links).map((l) => ({ traceId: String(l.traceId ?? ''), spanId: String(l.spanId ?? ''), attributes: keyValues(l.attributes) })),
    status: { code: s.statusCode, ...(s.statusMessage ? { message: s.statusMessage } : {}) },
  };
}

/**
 * The OTLP/JSON request of `spans`: one resourceSpans per distinct resource, one scopeSpans per
 * scope within it, spans in the order given.
 */
export function sessionToOtlp(spans: readonly StoredSpan[]): { resourceSpans: Record<string, unknown>[] } {
  const resources = new Map<string, { resource: unknown; scopes: Map<string, { name: string | null; version: string | null; spans: unknown[] }> }>();
  for (const s of spans) {
    const rk = JSON.stringify(s.resource ?? {});
    let r = resources.get(rk);
    if (r === undefined) {
      r = { resource: s.resource, scopes: new Map() };
      resources.set(rk, r);
    }
    const sk = JSON.stringify([s.scopeName, s.scopeVersion]);
    let scope = r.scopes.get(sk);
    if (scope === undefined) {
      scope = { name: s.scopeName, version: s.scopeVersion, spans: [] };
      r.scopes.set(sk, scope);
    }
    scope.spans.push(otlpSpan(s));
  }
  return {
    resourceSpans: [...resources.values()].map((r) => ({
      resource: { attributes: keyValues(r.resource) },
      scopeSpans: [...r.scopes.values()].map((sc) => ({
        scope: { ...(sc.name !== null ? { name: sc.name } : {}), ...(sc.version !== null ? { version: sc.version } : {}) },
        spans: sc.spans,
      })),
    })),
  };
}

/** The file name of a session's export: its id made safe for a file system, cut to 100 characters. */
export function exportFileName(sessionId: string): string {
  return `guardtrace-session-${sessionId.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100)}.otlp.json`;
}

/** One stored GenAI event (genai_events: a log record of /v1/logs), as either reader returns it. */
export interface StoredGenAiEvent {
  traceId: string;
  spanId: string;
  eventName: string;
  timeUnixNano: bigint | string;
  body: unknown;
  attributes: unknown;
  scopeName: string | null;
}

/**
 * A session's GenAI events (the prompts and completions the OpenTelemetry GenAI instrumentations
 * send as log records) as one OTLP/JSON ExportLogsServiceRequest, the body `POST /v1/logs` takes:
 * with the session's spans document, it imports the session with its content. One scopeLogs per
 * instrumentation scope, records in the order given; the resource is not stored with them.
 */
export function genAiEventsToOtlp(events: readonly StoredGenAiEvent[]): { resourceLogs: Record<string, unknown>[] } {
  if (events.length === 0) return { resourceLogs: [] };
  const scopes = new Map<string | null, Record<string, unknown>[]>();
  for (const e of events) {
    let records = scopes.get(e.scopeName);
    if (records === undefined) {
      records = [];
      scopes.set(e.scopeName, records);
    }
    records.push({
      timeUnixNano: String(e.timeUnixNano),
      traceId: e.traceId,
      spanId: e.spanId,
      eventName: e.eventName,
      attributes: keyValues(e.attributes),
      ...(e.body === null || e.body === undefined ? {} : { body: anyValue(e.body as Json) }),
    });
  }
  return {
    resourceLogs: [
      {
        resource: { attributes: [] },
        scopeLogs: [...scopes].map(([name, logRecords]) => ({ scope: name !== null ? { name } : {}, logRecords })),
      },
    ],
  };
}

/** The file name of a session's GenAI events export (beside its spans' {@link exportFileName}). */
export function exportLogsFileName(sessionId: string): string {
  return exportFileName(sessionId).replace(/\.otlp\.json$/, '.logs.otlp.json');
}
