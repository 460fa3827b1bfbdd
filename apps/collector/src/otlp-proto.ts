/**
 * Protobuf ExportTraceServiceRequest -> validated spans, one at a time, read straight from the
 * bytes. No message tree is built: each span's fields go into its NormSpan, so between spans a
 * request holds only its Buffer, the current resource and scope, and what the caller keeps.
 *
 * Wire errors (a message cut short, a length past its message's end, a varint over 10 bytes,
 * field number 0, wire types 6 and 7, unmatched groups) make the whole body undecodable: 400.
 * Content errors (a 5-byte span id, an unknown kind, too many attributes, values nested too
 * deep) reject that span alone, with the same reasons normalize.ts gives for JSON. A field
 * whose wire type is not its declared one is skipped as an unknown field, as protobuf's
 * reference parsers do.
 */
import { CollectorError } from './errors.ts';
import { readId, readKeyValue, readResource, readScope } from './otlp-proto-common.ts';
import { I64, LEN, Reader, tag, VARINT, WireError } from './proto-reader.ts';
import {
  type Attributes,
  type NormSpan,
  REJECTIONS_PER_PAUSE,
  type Rejections,
  type SpanEvent,
  type SpanLink,
  type SpanOrPause,
} from './span.ts';
import { checkEnum, checkIndexedText, checkNs, checkSamplingWeight, checkTimes, SpanError, type SpanRules, serviceNameOf } from './span-rules.ts';

const F1_LEN = tag(1, LEN);
const F2_LEN = tag(2, LEN);
const F3_LEN = tag(3, LEN);
const F4_LEN = tag(4, LEN);
const F5_LEN = tag(5, LEN);
const F9_LEN = tag(9, LEN);
const F11_LEN = tag(11, LEN);
const F13_LEN = tag(13, LEN);
const F15_LEN = tag(15, LEN);
const F1_I64 = tag(1, I64);
const F7_I64 = tag(7, I64);
const F8_I64 = tag(8, I64);
const F3_VARINT = tag(3, VARINT);
const F6_VARINT = tag(6, VARINT);


/**
 * The valid spans of a protobuf request, one at a time; invalid ones go to `rejected`.
 * Throws a 400 CollectorError when the bytes are not an ExportTraceServiceRequest.
 */
export function* decodeProtobufSpans(body: Buffer, n: SpanRules, rejected: Rejections): Generator<SpanOrPause> {
  const r = new Reader(body);
  const end = body.length;
  let ri = 0;
  let sincePause = 0;
  // Fields may come in any order (a resource after its scopes, a scope after its spans), so
  // each ResourceSpans and ScopeSpans is read twice: first its resource or scope, then its
  // scopes or spans. Nothing is kept per span in between: a body of millions of tiny spans
  // costs no memory beyond the rows of its valid ones.
  try {
    while (r.pos < end) {
      const t = r.tag(end);
      if (t !== F1_LEN) {
        r.skip(t, end);
        continue;
      }
      const rsEnd = r.len(end);
      const rsStart = r.pos;
      const rpath = `resourceSpans[${ri++}]`;
      const resource: Attributes = {};
      let resourceError: SpanError | null = null;
      let attributeCount = 0;
      while (r.pos < rsEnd) {
        const ft = r.tag(rsEnd);
        if (ft !== F1_LEN || resourceError) {
          r.skip(ft, rsEnd);
          continue;
        }
        const e = r.len(rsEnd);
        try {
          attributeCount = readResource(r, e, n, resource, attributeCount);
        } catch (err) {
          if (!(err instanceof SpanError)) throw err;
          resourceError = err;
        }
        r.pos = e;
      }
      const serviceName = serviceNameOf(resource);
      let si = 0;
      let unreadable = 0;
      r.pos = rsStart;
      while (r.pos < rsEnd) {
        const ft = r.tag(rsEnd);
        if (ft !== F2_LEN) {
          r.skip(ft, rsEnd);
          continue;
        }
        const ssEnd = r.len(rsEnd);
        const ssStart = r.pos;
        if (resourceError) {
          unreadable += countSpans(r, ssStart, ssEnd);
          r.pos = ssEnd;
          continue;
        }
        const spath = `${rpath}.scopeSpans[${si++}]`;
        let scopeName: string | null = null;
        let scopeVersion: string | null = null;
        while (r.pos < ssEnd) {
          const st = r.tag(ssEnd);
          if (st === F1_LEN) {
            const e = r.len(ssEnd);
            [scopeName, scopeVersion] = readScope(r, e, n, scopeName, scopeVersion);
            r.pos = e;
          } else r.skip(st, ssEnd);
        }
        let i = 0;
        r.pos = ssStart;
        while (r.pos < ssEnd) {
          const st = r.tag(ssEnd);
          if (st !== F2_LEN) {
            r.skip(st, ssEnd);
            continue;
          }
          const spanEnd = r.len(ssEnd);
          const spanStart = r.pos;
          const index = i++;
          let span: NormSpan | null = null;
          try {
            span = readSpan(r, spanEnd, n, resource, serviceName, scopeName, scopeVersion);
          } catch (err) {
            if (!(err instanceof SpanError)) throw err;
            rejected.add(() => `${spath}.spans[${index}]${spanIdHint(r, spanStart, spanEnd)}`, err.message);
          }
          r.pos = spanEnd;
          if (span) yield span;
          else if (++sincePause === REJECTIONS_PER_PAUSE) {
            sincePause = 0;
            yield null;
          }
        }
        r.pos = ssEnd;
      }
      if (resourceError) rejected.add(rpath, resourceError.message, Math.max(unreadable, 1));
      r.pos = rsEnd;
    }
  } catch (err) {
    if (err instanceof WireError) {
      throw CollectorError.badRequest(`undecodable protobuf ExportTraceServiceRequest: ${err.message}`);
    }
    throw err;
  }
}

/** ` (spanId <hex>)` naming a rejected span, when it has a valid span id; else empty. */
function spanIdHint(r: Reader, start: number, end: number): string {
  r.pos = start;
  let hint = '';
  try {
    while (r.pos < end) {
      const t = r.tag(end);
      if (t === F2_LEN) {
        const id = readId(r, end, 8, 'spanId');
        hint = id ? ` (spanId ${id})` : '';
      } else r.skip(t, end);
    }
  } catch {
    // An invalid span id or unreadable bytes: the hint is only a name, keep what was found.
  }
  return hint;
}

/** How many spans a ScopeSpans holds (its resource was rejected: each span counts as rejected). */
function countSpans(r: Reader, start: number, end: number): number {
  r.pos = start;
  let count = 0;
  while (r.pos < end) {
    const t = r.tag(end);
    if (t === F2_LEN) count++;
    r.skip(t, end);
  }
  return count;
}

function readSpan(
  r: Reader,
  end: number,
  n: SpanRules,
  resource: Attributes,
  serviceName: string | null,
  scopeName: string | null,
  scopeVersion: string | null,
): NormSpan {
  const max = n.limits.maxItemsPerSpan;
  let traceId: string | null = null;
  let spanId: string | null = null;
  let parentSpanId: string | null = null;
  let name = '';
  let kind = 0;
  let startNs = 0n;
  let endNs = 0n;
  let statusCode = 0;
  let statusMessage: string | null = null;
  const attributes: Attributes = {};
  let attributeCount = 0;
  const events: SpanEvent[] = [];
  const links: SpanLink[] = [];
  while (r.pos < end) {
    const t = r.tag(end);
    switch (t) {
      case F1_LEN:
        traceId = readId(r, end, 16, 'traceId');
        break;
      case F2_LEN:
        spanId = readId(r, end, 8, 'spanId');
        break;
      case F4_LEN:
        parentSpanId = readId(r, end, 8, 'parentSpanId');
        break;
      case F5_LEN:
        name = n.clean(r.string(end));
        break;
      case F6_VARINT:
        kind = checkEnum(r.varint(end), 5, 'kind');
        break;
      case F7_I64:
        startNs = checkNs(r.fixed64(end), 'startTimeUnixNano');
        break;
      case F8_I64:
        endNs = checkNs(r.fixed64(end), 'endTimeUnixNano');
        break;
      case F9_LEN:
        if (++attributeCount > max) throw new SpanError(`attributes has more than ${max} entries`);
        readKeyValue(r, r.len(end), n, attributes, 'attributes', 0);
        break;
      case F11_LEN:
        if (events.length >= max) throw new SpanError(`more than ${max} events`);
        events.push(readEvent(r, r.len(end), n, events.length));
        break;
      case F13_LEN:
        if (links.length >= max) throw new SpanError(`more than ${max} links`);
        links.push(readLink(r, r.len(end), n, links.length));
        break;
      case F15_LEN: {
        const e = r.len(end);
        while (r.pos < e) {
          const st = r.tag(e);
          if (st === F2_LEN) statusMessage = n.clean(r.string(e)) || null;
          else if (st === F3_VARINT) statusCode = checkEnum(r.varint(e), 2, 'status.code');
          else r.skip(st, e);
        }
        break;
      }
      default:
        r.skip(t, end);
    }
  }
  if (!traceId) throw new SpanError('traceId is missing');
  if (!spanId) throw new SpanError('spanId is missing');
  checkTimes(startNs, endNs);
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
    events,
    links,
    resource,
    serviceName,
    scopeName,
    scopeVersion,
  };
}

/** Span.Event { time_unix_nano = 1; name = 2; attributes = 3 }. */
function readEvent(r: Reader, end: number, n: SpanRules, index: number): SpanEvent {
  const field = `events[${index}]`;
  let time = 0n;
  let name = '';
  const attributes: Attributes = {};
  let count = 0;
  while (r.pos < end) {
    const t = r.tag(end);
    if (t === F1_I64) time = checkNs(r.fixed64(end), `${field}.timeUnixNano`);
    else if (t === F2_LEN) name = n.clean(r.string(end));
    else if (t === F3_LEN) {
      if (++count > n.limits.maxItemsPerSpan) {
        throw new SpanError(`${field}.attributes has more than ${n.limits.maxItemsPerSpan} entries`);
      }
      readKeyValue(r, r.len(end), n, attributes, `${field}.attributes`, 0);
    } else r.skip(t, end);
  }
  return { timeUnixNano: time.toString(), name, attributes };
}

/** Span.Link { trace_id = 1; span_id = 2; attributes = 4 }. */
function readLink(r: Reader, end: number, n: SpanRules, index: number): SpanLink {
  const field = `links[${index}]`;
  let traceId: string | null = null;
  let spanId: string | null = null;
  const attributes: Attributes = {};
  let count = 0;
  while (r.pos < end) {
    const t = r.tag(end);
    if (t === F1_LEN) traceId = readId(r, end, 16, `${field}.traceId`);
    else if (t === F2_LEN) spanId = readId(r, end, 8, `${field}.spanId`);
    else if (t === F4_LEN) {
      if (++count > n.limits.maxItemsPerSpan) {
        throw new SpanError(`${field}.attributes has more than ${n.limits.maxItemsPerSpan} entries`);
      }
      readKeyValue(r, r.len(end), n, attributes, `${field}.attributes`, 0);
    } else r.skip(t, end);
  }
  return { traceId: traceId ?? '', spanId: spanId ?? '', attributes };
}

