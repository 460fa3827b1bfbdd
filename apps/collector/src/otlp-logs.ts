/**
 * OTLP ExportLogsServiceRequest (protobuf or JSON) -> the GenAI events it holds. The OpenTelemetry
 * GenAI instrumentations put a model call's prompt and completion in log records ("events"):
 * `gen_ai.system.message`, `gen_ai.user.message`, `gen_ai.assistant.message`,
 * `gen_ai.tool.message`, `gen_ai.choice`, semconv 1.37's
 * `gen_ai.client.inference.operation.details`, each with the trace and span ids of its model call.
 *
 * A record is kept when its event name (the LogRecord's `event_name` field, else its `event.name`
 * attribute) starts with `gen_ai.` and it carries a trace id and a span id; any other record is
 * rejected with its place and why, as is a malformed one, and never its neighbours. The protobuf
 * is read with the span decoder's reader and the common.proto readers (otlp-proto-common.ts), JSON with the span
 * normalizer's value rules (normalize.ts): both hold a record to the same limits as a span.
 */
import { createHash } from 'node:crypto';
import { MODEL_DETAILS_LOG_EVENT } from '@guardtrace/semconv';
import { CollectorError } from './errors.ts';
import { isObj, list, Normalizer } from './normalize.ts';
import type { Encoding } from './otlp-decode.ts';
import { readAnyValue, readId, readKeyValue, readResource, readScope } from './otlp-proto-common.ts';
import { I64, LEN, Reader, tag, WireError } from './proto-reader.ts';
import type { Attributes, AttrValue, Rejections } from './span.ts';
import { checkNs, SpanError } from './span-rules.ts';

/** One GenAI event as the collector stores it (genai_events). */
export interface GenAiEvent {
  traceId: string;
  spanId: string;
  eventName: string;
  /** The record's time, else its observed time (nanoseconds since the epoch). */
  timeNs: bigint;
  body: AttrValue;
  attributes: Attributes;
  scopeName: string | null;
  /** SHA-256 hex of the record as received and its occurrence among identical ones (the storage key). */
  recordKey: string;
}

/** The prefix of the event names the collector keeps. */
const GENAI_EVENT_PREFIX = 'gen_ai.';
const EVENT_NAME_ATTRIBUTE = 'event.name';

/** A decoded record before the GenAI checks. */
interface RawRecord {
  traceId: string | null;
  spanId: string | null;
  eventName: string;
  timeNs: bigint;
  observedNs: bigint;
  body: AttrValue;
  attributes: Attributes;
  scopeName: string | null;
}

/**
 * The GenAI events of a request; the records not kept go to `rejected` with their place
 * (`resourceLogs[i].scopeLogs[j].logRecords[k]`) and reason. Throws a 400 CollectorError when the
 * body is not an ExportLogsServiceRequest at all.
 */
export function requestGenAiEvents(body: Buffer, encoding: Encoding, rejected: Rejections): GenAiEvent[] {
  const keep = new Keeper(rejected);
  if (encoding === 'protobuf') decodeProtobufLogs(body, new Normalizer(), keep);
  else new LogNormalizer().records(decodeJsonLogs(body), keep);
  return keep.events;
}

/** Applies the GenAI rules to each decoded record and gives each kept one its key. */
class Keeper {
  readonly events: GenAiEvent[] = [];
  /** Identical records of one span in this request: the n-th gets occurrence n (a retry repeats them alike). */
  private readonly seen = new Map<string, number>();

  constructor(readonly rejected: Rejections) {}

  record(path: string, r: RawRecord): void {
    if (!r.eventName.startsWith(GENAI_EVENT_PREFIX)) {
      const name = r.eventName ? `event name ${JSON.stringify(r.eventName.slice(0, 64))}` : 'no event name';
      this.rejected.add(
        path,
        `not a GenAI event (${name}): the collector keeps log records whose event_name or event.name attribute starts with "${GENAI_EVENT_PREFIX}"`,
      );
      return;
    }
    if (!r.traceId || !r.spanId) {
      this.rejected.add(path, `${r.traceId ? 'spanId' : 'traceId'} is missing: a GenAI event must carry the trace and span ids of its model call's span`);
      return;
    }
    const timeNs = r.timeNs > 0n ? r.timeNs : r.observedNs;
    const digest = createHash('sha256')
      .update(`${timeNs}\u0000${r.eventName}\u0000${JSON.stringify(r.body)}\u0000${JSON.stringify(r.attributes)}`)
      .digest('hex');
    const seenKey = `${r.traceId}/${r.spanId}/${digest}`;
    const occurrence = this.seen.get(seenKey) ?? 0;
    this.seen.set(seenKey, occurrence + 1);
    const recordKey = occurrence === 0 ? digest : createHash('sha256').update(`${digest}#${occurrence}`).digest('hex');
    this.events.push({
      traceId: r.traceId,
      spanId: r.spanId,
      eventName: r.eventName,
      timeNs,
      body: r.body,
      attributes: r.eventName === MODEL_DETAILS_LOG_EVENT.name ? withParsedMessages(r.attributes) : r.attributes,
      scopeName: r.scopeName,
      recordKey,
    });
  }

  reject(path: string, err: unknown, times = 1): void {
    if (!(err instanceof SpanError || err instanceof RangeError)) throw err;
    this.rejected.add(path, err.message, times);
  }
}

const DETAILS_MESSAGE_KEYS = [MODEL_DETAILS_LOG_EVENT.input, MODEL_DETAILS_LOG_EVENT.output, MODEL_DETAILS_LOG_EVENT.instructions] as const;

/**
 * An operation-details event's messages and system instructions as arrays, when they came as
 * JSON text (an SDK that writes structured attributes as strings): the replay puts the
 * instructions before the messages only when both are arrays (else the instructions were lost).
 * The record's key is taken from what was sent, so a retry still matches it.
 */
function withParsedMessages(attributes: Attributes): Attributes {
  let out: Attributes | null = null;
  for (const k of DETAILS_MESSAGE_KEYS) {
    const v = attributes[k];
    if (typeof v !== 'string' || !v.trimStart().startsWith('[')) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch {
      continue;
    }
    if (!Array.isArray(parsed)) continue;
    out ??= { ...attributes };
    out[k] = parsed;
  }
  return out ?? attributes;
}

/** The event name: the LogRecord's field, else its `event.name` attribute. */
function eventNameOf(field: string, attributes: Attributes): string {
  if (field) return field;
  const attr = attributes[EVENT_NAME_ATTRIBUTE];
  return typeof attr === 'string' ? attr : '';
}

// ---- protobuf -------------------------------------------------------------------------------

const F1_LEN = tag(1, LEN);
const F2_LEN = tag(2, LEN);
const F5_LEN = tag(5, LEN);
const F6_LEN = tag(6, LEN);
const F9_LEN = tag(9, LEN);
const F10_LEN = tag(10, LEN);
const F12_LEN = tag(12, LEN);
const F1_I64 = tag(1, I64);
const F11_I64 = tag(11, I64);

/**
 * ExportLogsServiceRequest { repeated ResourceLogs resource_logs = 1 }; ResourceLogs { Resource
 * resource = 1; repeated ScopeLogs scope_logs = 2 }; ScopeLogs { InstrumentationScope scope = 1;
 * repeated LogRecord log_records = 2 }. Fields may come in any order: a resource's and a scope's
 * own message is read before their records.
 */
function decodeProtobufLogs(body: Buffer, n: Normalizer, keep: Keeper): void {
  const r = new Reader(body);
  const end = body.length;
  let ri = 0;
  try {
    while (r.pos < end) {
      const t = r.tag(end);
      if (t !== F1_LEN) {
        r.skip(t, end);
        continue;
      }
      const rlEnd = r.len(end);
      const rlStart = r.pos;
      const rpath = `resourceLogs[${ri++}]`;
      let resourceError: unknown = null;
      let attributeCount = 0;
      while (r.pos < rlEnd) {
        const ft = r.tag(rlEnd);
        if (ft !== F1_LEN || resourceError) {
          r.skip(ft, rlEnd);
          continue;
        }
        const e = r.len(rlEnd);
        try {
          attributeCount = readResource(r, e, n, {}, attributeCount);
        } catch (err) {
          if (!(err instanceof SpanError)) throw err;
          resourceError = err;
        }
        r.pos = e;
      }
      let si = 0;
      r.pos = rlStart;
      while (r.pos < rlEnd) {
        const ft = r.tag(rlEnd);
        if (ft !== F2_LEN) {
          r.skip(ft, rlEnd);
          continue;
        }
        const slEnd = r.len(rlEnd);
        const slStart = r.pos;
        const spath = `${rpath}.scopeLogs[${si++}]`;
        let scopeName: string | null = null;
        let scopeVersion: string | null = null;
        while (r.pos < slEnd) {
          const st = r.tag(slEnd);
          if (st === F1_LEN) {
            const e = r.len(slEnd);
            [scopeName, scopeVersion] = readScope(r, e, n, scopeName, scopeVersion);
            r.pos = e;
          } else r.skip(st, slEnd);
        }
        let i = 0;
        r.pos = slStart;
        while (r.pos < slEnd) {
          const st = r.tag(slEnd);
          if (st !== F2_LEN) {
            r.skip(st, slEnd);
            continue;
          }
          const recEnd = r.len(slEnd);
          const path = `${spath}.logRecords[${i++}]`;
          if (resourceError) keep.reject(path, new SpanError(`resource: ${(resourceError as Error).message}`));
          else {
            try {
              keep.record(path, readLogRecord(r, recEnd, n, scopeName));
            } catch (err) {
              keep.reject(path, err);
            }
          }
          r.pos = recEnd;
        }
        r.pos = slEnd;
      }
      r.pos = rlEnd;
    }
  } catch (err) {
    if (err instanceof WireError) throw CollectorError.badRequest(`undecodable protobuf ExportLogsServiceRequest: ${err.message}`);
    throw err;
  }
}

/**
 * LogRecord { fixed64 time_unix_nano = 1; fixed64 observed_time_unix_nano = 11; AnyValue body = 5;
 * repeated KeyValue attributes = 6; bytes trace_id = 9; bytes span_id = 10; string event_name = 12 }
 * (severity, flags and dropped counts are not kept).
 */
function readLogRecord(r: Reader, end: number, n: Normalizer, scopeName: string | null): RawRecord {
  const max = n.limits.maxItemsPerSpan;
  let traceId: string | null = null;
  let spanId: string | null = null;
  let timeNs = 0n;
  let observedNs = 0n;
  let eventName = '';
  let body: AttrValue = null;
  const attributes: Attributes = {};
  let attributeCount = 0;
  while (r.pos < end) {
    const t = r.tag(end);
    switch (t) {
      case F1_I64:
        timeNs = checkNs(r.fixed64(end), 'timeUnixNano');
        break;
      case F11_I64:
        observedNs = checkNs(r.fixed64(end), 'observedTimeUnixNano');
        break;
      case F5_LEN: {
        const e = r.len(end);
        try {
          body = readAnyValue(r, e, n, 0);
        } catch (err) {
          if (!(err instanceof SpanError)) throw err;
          throw new SpanError(`body${err.message}`);
        }
        r.pos = e;
        break;
      }
      case F6_LEN:
        if (++attributeCount > max) throw new SpanError(`attributes has more than ${max} entries`);
        readKeyValue(r, r.len(end), n, attributes, 'attributes', 0);
        break;
      case F9_LEN:
        traceId = readId(r, end, 16, 'traceId');
        break;
      case F10_LEN:
        spanId = readId(r, end, 8, 'spanId');
        break;
      case F12_LEN:
        eventName = n.clean(r.string(end));
        break;
      default:
        r.skip(t, end);
    }
  }
  return { traceId, spanId, eventName: eventNameOf(eventName, attributes), timeNs, observedNs, body, attributes, scopeName };
}

// ---- JSON -----------------------------------------------------------------------------------

/** Parse an OTLP/JSON ExportLogsServiceRequest; 400 when the text is not JSON or not an object with a resourceLogs array. */
function decodeJsonLogs(body: Buffer): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw CollectorError.badRequest(`invalid JSON: ${(err as Error).message}`);
  }
  if (!isObj(parsed)) throw CollectorError.badRequest('invalid ExportLogsServiceRequest: the JSON body must be an object');
  if (parsed.resourceLogs != null && !Array.isArray(parsed.resourceLogs)) {
    throw CollectorError.badRequest('invalid ExportLogsServiceRequest: resourceLogs must be an array');
  }
  return parsed;
}

/** The span normalizer's value rules (ids, int64s, AnyValues, limits), walking resourceLogs. */
class LogNormalizer extends Normalizer {
  records(request: Record<string, unknown>, keep: Keeper): void {
    const resourceLogs = list(request.resourceLogs, 'resourceLogs');
    for (let ri = 0; ri < resourceLogs.length; ri++) {
      const rl = resourceLogs[ri];
      const rpath = `resourceLogs[${ri}]`;
      let scopeLogs: unknown[];
      try {
        if (!isObj(rl)) throw new SpanError('must be an object');
        if (rl.resource != null) {
          if (!isObj(rl.resource)) throw new SpanError('resource must be an object');
          this.attributes(rl.resource.attributes, 'resource.attributes');
        }
        scopeLogs = list(rl.scopeLogs, 'scopeLogs');
      } catch (err) {
        keep.reject(rpath, err, Math.max(countRecords(rl), 1));
        continue;
      }
      for (let si = 0; si < scopeLogs.length; si++) {
        const sl = scopeLogs[si];
        const spath = `${rpath}.scopeLogs[${si}]`;
        let scopeName: string | null = null;
        let records: unknown[];
        try {
          if (!isObj(sl)) throw new SpanError('must be an object');
          if (sl.scope != null) {
            if (!isObj(sl.scope)) throw new SpanError('scope must be an object');
            scopeName = this.optString(sl.scope.name, 'scope.name') || null;
          }
          records = list(sl.logRecords, 'logRecords');
        } catch (err) {
          keep.reject(spath, err, Math.max(countRecords({ scopeLogs: [sl] }), 1));
          continue;
        }
        for (let i = 0; i < records.length; i++) {
          const path = `${spath}.logRecords[${i}]`;
          try {
            keep.record(path, this.logRecord(records[i], scopeName));
          } catch (err) {
            keep.reject(path, err);
          }
        }
      }
    }
  }

  private logRecord(v: unknown, scopeName: string | null): RawRecord {
    if (!isObj(v)) throw new SpanError('log record must be an object');
    const attributes = this.attributes(v.attributes, 'attributes');
    let body: AttrValue = null;
    try {
      body = this.anyValue(v.body, '', 0);
    } catch (err) {
      if (!(err instanceof SpanError)) throw err;
      throw new SpanError(`body${err.message}`);
    }
    return {
      traceId: this.id(v.traceId, 16, 'traceId'),
      spanId: this.id(v.spanId, 8, 'spanId'),
      eventName: eventNameOf(this.optString(v.eventName, 'eventName'), attributes),
      timeNs: this.int64(v.timeUnixNano, 'timeUnixNano'),
      observedNs: this.int64(v.observedTimeUnixNano, 'observedTimeUnixNano'),
      body,
      attributes,
      scopeName,
    };
  }
}

/** How many log records a resource (or `{ scopeLogs: [one] }`) holds, when countable. */
function countRecords(node: unknown): number {
  let n = 0;
  const scopes = isObj(node) && Array.isArray(node.scopeLogs) ? node.scopeLogs : [];
  for (const sl of scopes) if (isObj(sl) && Array.isArray(sl.logRecords)) n += sl.logRecords.length;
  return n;
}
