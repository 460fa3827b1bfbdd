/**
 * The messages of OTLP's common.proto and resource.proto, read straight from protobuf bytes:
 * AnyValue, KeyValue, Resource, InstrumentationScope, and the trace and span id fields. Shared by
 * the trace decoder (otlp-proto.ts) and the logs decoder (otlp-logs.ts), so a value is held to the
 * same limits, and rejected with the same place and reason, whichever signal carries it.
 */
import { I64, LEN, type Reader, tag, VARINT } from './proto-reader.ts';
import type { Attributes, AttrValue } from './span.ts';
import { checkIdHex, int64Value, SpanError, type SpanRules } from './span-rules.ts';

const F1_LEN = tag(1, LEN);
const F2_LEN = tag(2, LEN);
const F5_LEN = tag(5, LEN);
const F6_LEN = tag(6, LEN);
const F7_LEN = tag(7, LEN);
const F4_I64 = tag(4, I64);
const F2_VARINT = tag(2, VARINT);
const F3_VARINT = tag(3, VARINT);

/** An id field: lowercase hex, or null when empty. */
export function readId(r: Reader, end: number, bytes: 8 | 16, field: string): string | null {
  const e = r.len(end);
  const n = e - r.pos;
  if (n === 0) return null;
  if (n !== bytes) throw new SpanError(`${field} must be ${bytes} bytes, got ${n}`);
  const hex = r.buf.hexSlice(r.pos, e);
  r.pos = e;
  return checkIdHex(hex, bytes, field);
}


/** Resource { attributes = 1 }: into `out`; returns the attribute count so far. */
export function readResource(r: Reader, end: number, n: SpanRules, out: Attributes, count: number): number {
  let c = count;
  while (r.pos < end) {
    const t = r.tag(end);
    if (t === F1_LEN) {
      if (++c > n.limits.maxItemsPerSpan) {
        throw new SpanError(`resource.attributes has more than ${n.limits.maxItemsPerSpan} entries`);
      }
      readKeyValue(r, r.len(end), n, out, 'resource.attributes', 0);
    } else r.skip(t, end);
  }
  return c;
}


/** InstrumentationScope { name = 1; version = 2 } (its attributes are not stored). */
export function readScope(
  r: Reader,
  end: number,
  n: SpanRules,
  name: string | null,
  version: string | null,
): [string | null, string | null] {
  let scopeName = name;
  let scopeVersion = version;
  while (r.pos < end) {
    const t = r.tag(end);
    if (t === F1_LEN) scopeName = n.clean(r.string(end)) || null;
    else if (t === F2_LEN) scopeVersion = n.clean(r.string(end)) || null;
    else r.skip(t, end);
  }
  return [scopeName, scopeVersion];
}

/**
 * KeyValue { key = 1; value = 2 } into `out` (the value may come before the key). Ends at
 * `end`. A value error is re-thrown with its place: `attributes["key"]...` at the top level,
 * `.key...` inside a kvlist.
 */
export function readKeyValue(r: Reader, end: number, n: SpanRules, out: Attributes, field: string, depth: number): void {
  let key = '';
  let value: AttrValue = null;
  let error: SpanError | null = null;
  while (r.pos < end) {
    const t = r.tag(end);
    if (t === F1_LEN) key = r.string(end);
    else if (t === F2_LEN) {
      const e = r.len(end);
      try {
        value = readAnyValue(r, e, n, depth);
      } catch (err) {
        if (!(err instanceof SpanError)) throw err;
        error = err;
      }
      r.pos = e;
    } else r.skip(t, end);
  }
  if (error) {
    const place = depth === 0 ? `${field}[${JSON.stringify(key.slice(0, 64))}]` : `.${key.slice(0, 64)}`;
    throw new SpanError(`${place}${error.message}`);
  }
  out[n.clean(key)] = value;
}

/**
 * AnyValue (a oneof: the last member present wins) as an attribute value. Error messages start
 * with the value's place below the attribute (empty at the attribute itself), as normalize.ts's.
 */
export function readAnyValue(r: Reader, end: number, n: SpanRules, depth: number): AttrValue {
  const limits = n.limits;
  if (depth > limits.maxValueDepth) throw new SpanError(` is nested deeper than ${limits.maxValueDepth}`);
  let v: AttrValue = null;
  while (r.pos < end) {
    const t = r.tag(end);
    switch (t) {
      case F1_LEN:
        v = n.clean(r.string(end));
        break;
      case F2_VARINT:
        v = r.varint(end) !== 0 || r.hi !== 0;
        break;
      case F3_VARINT: {
        const lo = r.varint(end);
        const hi = r.hi;
        if (hi === 0 && lo >= 0) v = lo;
        else if (hi === -1 && lo < 0) v = lo;
        else v = int64Value(BigInt.asIntN(64, (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0)));
        break;
      }
      case F4_I64: {
        const d = r.double(end);
        v = Number.isFinite(d) ? d : String(d);
        break;
      }
      case F5_LEN: {
        // ArrayValue { values = 1 }
        const e = r.len(end);
        const items: AttrValue[] = [];
        while (r.pos < e) {
          const it = r.tag(e);
          if (it !== F1_LEN) {
            r.skip(it, e);
            continue;
          }
          if (items.length >= limits.maxItemsPerSpan) throw new SpanError(` has more than ${limits.maxItemsPerSpan} items`);
          const ie = r.len(e);
          try {
            items.push(readAnyValue(r, ie, n, depth + 1));
          } catch (err) {
            if (!(err instanceof SpanError)) throw err;
            throw new SpanError(`[${items.length}]${err.message}`);
          }
          r.pos = ie;
        }
        v = items;
        break;
      }
      case F6_LEN: {
        // KeyValueList { values = 1 }
        const e = r.len(end);
        const entries: Record<string, AttrValue> = {};
        let count = 0;
        while (r.pos < e) {
          const it = r.tag(e);
          if (it !== F1_LEN) {
            r.skip(it, e);
            continue;
          }
          if (++count > limits.maxItemsPerSpan) throw new SpanError(` has more than ${limits.maxItemsPerSpan} items`);
          readKeyValue(r, r.len(e), n, entries, '', depth + 1);
        }
        v = entries;
        break;
      }
      case F7_LEN: {
        const e = r.len(end);
        v = r.buf.base64Slice(r.pos, e);
        r.pos = e;
        break;
      }
      default:
        r.skip(t, end);
    }
  }
  return v;
}
