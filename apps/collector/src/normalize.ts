/**
 * Request tree -> validated, plain spans, by the rules of span-rules.ts. Every span is checked
 * on its own: a bad span is rejected with its path and reason and never drops its neighbours.
 * Ingest walks OTLP JSON here (hex ids, int64 as strings or numbers, enums as numbers or
 * names); protobufjs's message tree (bytes ids, Long int64s) goes through the same walker as
 * the reference the streaming protobuf decoder (otlp-proto.ts) is tested against.
 */

import { CollectorError } from './errors.ts';
import { type Attributes, type AttrValue, type NormSpan, REJECTIONS_PER_PAUSE, type Rejection, Rejections, type SpanOrPause } from './span.ts';
import { checkEnum, checkIdHex, checkIndexedText, checkNs, checkSamplingWeight, checkTimes, int64Value, SpanError, SpanRules, serviceNameOf } from './span-rules.ts';

interface LongLike {
  low: number;
  high: number;
  unsigned: boolean;
}

/** protobufjs Long -> bigint without Long.toString()'s division loop. */
function longToBigInt(v: LongLike): bigint {
  const n = (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
  return !v.unsigned && v.high < 0 ? n - 18_446_744_073_709_551_616n : n;
}

const SPAN_KINDS: Record<string, number> = Object.fromEntries(
  ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'].map((k, i) => [`SPAN_KIND_${k}`, i]),
);
const STATUS_CODES: Record<string, number> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };
const HEX32 = /^[0-9a-fA-F]{32}$/;
const HEX16 = /^[0-9a-fA-F]{16}$/;
type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

export function list(v: unknown, what: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new SpanError(`${what} must be an array`);
  return v;
}

/**
 * The envelope of an OTLP JSON request (everything above the spans' own fields) has the shape
 * the protobuf JSON mapping requires, or the request is undecodable (400, never retried):
 * an object where a message is (the request, each ResourceSpans, resource, each resource
 * attribute, each ScopeSpans, scope, each span) and an array where a repeated field is, null
 * counting as absent. Inside a span object, a field of the wrong type rejects that span alone.
 * The walk stops at each span, so it costs a check per span, not per field.
 */
export function checkEnvelope(request: unknown): void {
  message(request, 'the JSON body');
  const r = request as Obj;
  const resourceSpans = repeated(r.resourceSpans, 'resourceSpans');
  for (let ri = 0; ri < resourceSpans.length; ri++) {
    const rpath = `resourceSpans[${ri}]`;
    const rs = message(resourceSpans[ri], rpath);
    if (rs.resource != null) {
      const res = message(rs.resource, `${rpath}.resource`);
      const attrs = repeated(res.attributes, `${rpath}.resource.attributes`);
      for (let i = 0; i < attrs.length; i++) message(attrs[i], `${rpath}.resource.attributes[${i}]`);
    }
    const scopeField = rs.scopeSpans != null ? 'scopeSpans' : 'instrumentationLibrarySpans';
    const scopeSpans = repeated(rs[scopeField], `${rpath}.${scopeField}`);
    for (let si = 0; si < scopeSpans.length; si++) {
      const spath = `${rpath}.${scopeField}[${si}]`;
      const ss = message(scopeSpans[si], spath);
      const scopeKey = ss.scope != null ? 'scope' : 'instrumentationLibrary';
      if (ss[scopeKey] != null) message(ss[scopeKey], `${spath}.${scopeKey}`);
      const spans = repeated(ss.spans, `${spath}.spans`);
      for (let i = 0; i < spans.length; i++) message(spans[i], `${spath}.spans[${i}]`);
    }
  }
}

function message(v: unknown, path: string): Obj {
  if (isObj(v)) return v;
  throw CollectorError.badRequest(`invalid ExportTraceServiceRequest: ${path} must be an object, got ${jsonType(v)}`);
}

function repeated(v: unknown, path: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v;
  throw CollectorError.badRequest(`invalid ExportTraceServiceRequest: ${path} must be an array, got ${jsonType(v)}`);
}

const jsonType = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`);

/** The JSON walker (and the reference for the protobufjs tree in tests). */
export class Normalizer extends SpanRules {

  /** All spans of a decoded request, valid ones normalized and invalid ones explained. */
  normalize(request: unknown): { spans: NormSpan[]; rejected: Rejection[] } {
    checkEnvelope(request);
    const rejected = new Rejections();
    const spans: NormSpan[] = [];
    for (const span of this.spans(request, rejected)) if (span) spans.push(span);
    return { spans, rejected: rejected.first };
  }

  /**
   * The valid spans of a decoded request one at a time (invalid ones go to `rejected`). Each
   * span of the tree is released once it has been read, so a caller that handles the spans as
   * they come does not keep the whole tree and its normalized copy alive at once. Yields null
   * after every REJECTIONS_PER_PAUSE rejected spans.
   */
  *spans(request: unknown, rejected: Rejections): Generator<SpanOrPause> {
    let sincePause = 0;
    const resourceSpans = isObj(request) ? list(request.resourceSpans, 'resourceSpans') : [];
    for (let ri = 0; ri < resourceSpans.length; ri++) {
      const rs = resourceSpans[ri];
      const rpath = `resourceSpans[${ri}]`;
      let resource: Attributes;
      let scopeSpans: unknown[];
      try {
        if (!isObj(rs)) throw new SpanError('must be an object');
        const res = rs.resource;
        if (res !== undefined && res !== null && !isObj(res)) throw new SpanError('resource must be an object');
        resource = this.attributes(isObj(res) ? res.attributes : undefined, 'resource.attributes');
        scopeSpans = list(rs.scopeSpans ?? rs.instrumentationLibrarySpans, 'scopeSpans');
      } catch (err) {
        this.rejectAll(rs, rpath, err, rejected);
        continue;
      }
      const serviceName = serviceNameOf(resource);
      for (let si = 0; si < scopeSpans.length; si++) {
        const ss = scopeSpans[si];
        const spath = `${rpath}.scopeSpans[${si}]`;
        let scopeName: string | null = null;
        let scopeVersion: string | null = null;
        let spanList: unknown[];
        try {
          if (!isObj(ss)) throw new SpanError('must be an object');
          const scope = ss.scope ?? ss.instrumentationLibrary;
          if (scope !== undefined && scope !== null) {
            if (!isObj(scope)) throw new SpanError('scope must be an object');
            scopeName = this.optString(scope.name, 'scope.name') || null;
            scopeVersion = this.optString(scope.version, 'scope.version') || null;
          }
          spanList = list(ss.spans, 'spans');
        } catch (err) {
          this.rejectAll({ scopeSpans: [ss] }, spath, err, rejected);
          continue;
        }
        for (let i = 0; i < spanList.length; i++) {
          const sp = spanList[i];
          spanList[i] = undefined;
          let span: NormSpan;
          try {
            span = this.span(sp, resource, serviceName, scopeName, scopeVersion);
          } catch (err) {
            if (!(err instanceof SpanError || err instanceof RangeError)) throw err;
            rejected.add(() => `${spath}.spans[${i}]${this.idHint(sp)}`, err.message);
            if (++sincePause === REJECTIONS_PER_PAUSE) {
              sincePause = 0;
              yield null;
            }
            continue;
          }
          yield span;
        }
      }
    }
  }

  /** A whole resource or scope is unreadable: every span under it is rejected (counted when countable). */
  private rejectAll(node: unknown, path: string, err: unknown, rejected: Rejections): void {
    if (!(err instanceof SpanError || err instanceof RangeError)) throw err;
    let n = 0;
    const scopes = isObj(node) && Array.isArray(node.scopeSpans) ? node.scopeSpans : [];
    for (const ss of scopes) if (isObj(ss) && Array.isArray(ss.spans)) n += ss.spans.length;
    rejected.add(path, err.message, Math.max(n, 1));
  }

  private idHint(sp: unknown): string {
    if (!isObj(sp)) return '';
    try {
      const id = this.id(sp.spanId, 8, 'spanId');
      return id ? ` (spanId ${id})` : '';
    } catch {
      return '';
    }
  }

  private span(
    sp: unknown,
    resource: Attributes,
    serviceName: string | null,
    scopeName: string | null,
    scopeVersion: string | null,
  ): NormSpan {
    if (!isObj(sp)) throw new SpanError('span must be an object');
    const traceId = this.id(sp.traceId, 16, 'traceId');
    const spanId = this.id(sp.spanId, 8, 'spanId');
    if (!traceId) throw new SpanError('traceId is missing');
    if (!spanId) throw new SpanError('spanId is missing');
    const parentSpanId = this.id(sp.parentSpanId, 8, 'parentSpanId');
    const name = this.optString(sp.name, 'name');
    const startNs = this.int64(sp.startTimeUnixNano, 'startTimeUnixNano');
    const endNs = this.int64(sp.endTimeUnixNano, 'endTimeUnixNano');
    checkTimes(startNs, endNs);
    const kind = this.enumValue(sp.kind, SPAN_KINDS, 5, 'kind');
    let statusCode = 0;
    let statusMessage: string | null = null;
    if (sp.status !== undefined && sp.status !== null) {
      if (!isObj(sp.status)) throw new SpanError('status must be an object');
      statusCode = this.enumValue(sp.status.code, STATUS_CODES, 2, 'status.code');
      statusMessage = this.optString(sp.status.message, 'status.message') || null;
    }
    const events = list(sp.events, 'events');
    const links = list(sp.links, 'links');
    if (events.length > this.limits.maxItemsPerSpan) throw new SpanError(`more than ${this.limits.maxItemsPerSpan} events`);
    if (links.length > this.limits.maxItemsPerSpan) throw new SpanError(`more than ${this.limits.maxItemsPerSpan} links`);
    const attributes = this.attributes(sp.attributes, 'attributes');
    checkIndexedText(attributes, resource);
    checkSamplingWeight(attributes);
    return {
      traceId,
      spanId,
      parentSpanId,
      name,
      kind,
      startNs,
      endNs,
      statusCode,
      statusMessage,
      attributes,
      events: events.map((e, i) => {
        if (!isObj(e)) throw new SpanError(`events[${i}] must be an object`);
        return {
          timeUnixNano: this.int64(e.timeUnixNano, `events[${i}].timeUnixNano`).toString(),
          name: this.optString(e.name, `events[${i}].name`),
          attributes: this.attributes(e.attributes, `events[${i}].attributes`),
        };
      }),
      links: links.map((l, i) => {
        if (!isObj(l)) throw new SpanError(`links[${i}] must be an object`);
        return {
          traceId: this.id(l.traceId, 16, `links[${i}].traceId`) ?? '',
          spanId: this.id(l.spanId, 8, `links[${i}].spanId`) ?? '',
          attributes: this.attributes(l.attributes, `links[${i}].attributes`),
        };
      }),
      resource,
      serviceName,
      scopeName,
      scopeVersion,
    };
  }

  /** Lowercase hex id, or null when absent/empty. All-zero ids are invalid (OTLP spec). */
  protected id(v: unknown, bytes: 8 | 16, field: string): string | null {
    if (v === undefined || v === null) return null;
    let hex: string;
    if (v instanceof Uint8Array) {
      if (v.length === 0) return null;
      if (v.length !== bytes) throw new SpanError(`${field} must be ${bytes} bytes, got ${v.length}`);
      hex = Buffer.from(v.buffer, v.byteOffset, v.length).toString('hex');
    } else if (typeof v === 'string') {
      if (v === '') return null;
      if (!(bytes === 16 ? HEX32 : HEX16).test(v)) {
        // What came instead (its length, and its start: an id holds no secret), so the sender can see the mistake.
        throw new SpanError(`${field} must be ${bytes * 2} hex characters, got ${v.length}: ${JSON.stringify(v.slice(0, 40))}`);
      }
      hex = v.toLowerCase();
    } else {
      throw new SpanError(`${field} must be a hex string`);
    }
    return checkIdHex(hex, bytes, field);
  }

  protected int64(v: unknown, field: string): bigint {
    if (v === undefined || v === null) return 0n;
    let n: bigint;
    if (typeof v === 'number') {
      if (!Number.isInteger(v)) throw new SpanError(`${field} must be an integer`);
      n = BigInt(v);
    } else if (typeof v === 'string') {
      if (!/^-?\d+$/.test(v)) throw new SpanError(`${field} must be an integer`);
      // (A number of nanoseconds past int64, year 9999's say, is out of range, not "no integer".)
      if (v.length > 21) throw new SpanError(`${field} is out of range`);
      n = BigInt(v);
    } else if (typeof v === 'object' && typeof (v as { low?: unknown }).low === 'number') {
      n = longToBigInt(v as LongLike);
    } else {
      throw new SpanError(`${field} must be an integer`);
    }
    return checkNs(n, field);
  }

  private enumValue(v: unknown, names: Record<string, number>, max: number, field: string): number {
    if (v === undefined || v === null) return 0;
    if (typeof v === 'string' && v in names) return names[v] as number;
    if (typeof v === 'number' && Number.isInteger(v)) return checkEnum(v, max, field);
    throw new SpanError(`${field} has an unknown value ${JSON.stringify(v)?.slice(0, 40)}: expected ${Object.keys(names).join(', ')} or 0..${max}`);
  }

  protected optString(v: unknown, field: string): string {
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') throw new SpanError(`${field} must be a string`);
    return this.clean(v);
  }

  protected attributes(v: unknown, field: string): Attributes {
    const kvs = list(v, field);
    if (kvs.length > this.limits.maxItemsPerSpan) throw new SpanError(`${field} has more than ${this.limits.maxItemsPerSpan} entries`);
    const out: Attributes = {};
    for (const kv of kvs) {
      if (!isObj(kv) || typeof kv.key !== 'string') throw new SpanError(`${field} entries must have a string key`);
      // The value's path is only needed in an error message: built then, not for every attribute
      // (every message of anyValue starts with the path it was given).
      let value: AttrValue;
      try {
        value = this.anyValue(kv.value, '', 0);
      } catch (err) {
        if (!(err instanceof SpanError)) throw err;
        throw new SpanError(`${field}[${JSON.stringify(kv.key.slice(0, 64))}]${err.message}`);
      }
      out[this.clean(kv.key)] = value;
    }
    return out;
  }

  protected anyValue(v: unknown, field: string, depth: number): AttrValue {
    if (v === undefined || v === null) return null;
    if (!isObj(v)) throw new SpanError(`${field} must be an AnyValue object`);
    if (depth > this.limits.maxValueDepth) throw new SpanError(`${field} is nested deeper than ${this.limits.maxValueDepth}`);
    if (v.stringValue != null) {
      if (typeof v.stringValue !== 'string') throw new SpanError(`${field}.stringValue must be a string`);
      return this.clean(v.stringValue);
    }
    if (v.boolValue != null) {
      if (typeof v.boolValue !== 'boolean') throw new SpanError(`${field}.boolValue must be a boolean`);
      return v.boolValue;
    }
    if (v.intValue != null) return this.intValue(v.intValue, field);
    if (v.doubleValue != null) {
      const d = v.doubleValue;
      if (typeof d === 'number') return Number.isFinite(d) ? d : String(d);
      if (typeof d === 'string' && (d === 'NaN' || d === 'Infinity' || d === '-Infinity')) return d;
      if (typeof d === 'string' && d.trim() !== '' && Number.isFinite(Number(d))) return Number(d);
      throw new SpanError(`${field}.doubleValue must be a number`);
    }
    if (v.arrayValue != null) {
      if (!isObj(v.arrayValue)) throw new SpanError(`${field}.arrayValue must be an object`);
      const values = list(v.arrayValue.values, `${field}.arrayValue.values`);
      if (values.length > this.limits.maxItemsPerSpan) throw new SpanError(`${field} has more than ${this.limits.maxItemsPerSpan} items`);
      return values.map((x, i) => this.anyValue(x, `${field}[${i}]`, depth + 1));
    }
    if (v.kvlistValue != null) {
      if (!isObj(v.kvlistValue)) throw new SpanError(`${field}.kvlistValue must be an object`);
      const values = list(v.kvlistValue.values, `${field}.kvlistValue.values`);
      if (values.length > this.limits.maxItemsPerSpan) throw new SpanError(`${field} has more than ${this.limits.maxItemsPerSpan} items`);
      const out: Record<string, AttrValue> = {};
      for (const kv of values) {
        if (!isObj(kv) || typeof kv.key !== 'string') throw new SpanError(`${field} entries must have a string key`);
        out[this.clean(kv.key)] = this.anyValue(kv.value, `${field}.${kv.key.slice(0, 64)}`, depth + 1);
      }
      return out;
    }
    if (v.bytesValue != null) {
      const b = v.bytesValue;
      if (b instanceof Uint8Array) return Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64');
      if (typeof b === 'string') return this.clean(b);
      throw new SpanError(`${field}.bytesValue must be base64`);
    }
    return null;
  }

  /** int64 attribute: a JSON number when exact, else its decimal string. */
  private intValue(v: unknown, field: string): number | string {
    let n: bigint;
    if (typeof v === 'number') {
      if (!Number.isInteger(v)) throw new SpanError(`${field}.intValue must be an integer`);
      // A JSON number past 2^63 (1e300) is no int64, as the same value written as a string is not.
      if (v < -(2 ** 63) || v >= 2 ** 63) throw new SpanError(`${field}.intValue is out of int64 range`);
      return v;
    }
    if (typeof v === 'string') {
      if (!/^-?\d+$/.test(v)) throw new SpanError(`${field}.intValue must be an integer`);
      if (v.length > 21) throw new SpanError(`${field}.intValue is out of int64 range`);
      n = BigInt(v);
    } else if (typeof v === 'object' && v !== null && typeof (v as { low?: unknown }).low === 'number') {
      const long = v as LongLike;
      // Small values (the common case) need no bigint at all.
      if (long.high === 0 && long.low >= 0) return long.low;
      n = longToBigInt(long);
    } else {
      throw new SpanError(`${field}.intValue must be an integer`);
    }
    if (n < -(2n ** 63n) || n >= 2n ** 63n) throw new SpanError(`${field}.intValue is out of int64 range`);
    return int64Value(n);
  }
}
