/**
 * OTLP/HTTP wire formats: bytes in (protobuf or JSON) -> a plain request tree; a partial
 * success or a google.rpc.Status out, in the request's encoding. Span-level validation is
 * in normalize.ts: here only "can this body be read at all" (400 when not).
 */
import { CollectorError } from './errors.ts';
import { checkEnvelope, type Normalizer } from './normalize.ts';
import { decodeProtobufSpans } from './otlp-proto.ts';
import { Writer } from './proto-writer.ts';
import type { Rejections, SpanOrPause } from './span.ts';

export type Encoding = 'protobuf' | 'json';

/** The encoding of a Content-Type header, or undefined when it is neither OTLP encoding. */
export function encodingOf(contentType: string | undefined): Encoding | undefined {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return undefined;
}

export function contentTypeOf(encoding: Encoding): string {
  return encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json';
}

// JSON.parse's heap, measured on bodies of nothing but one kind of token: ~64 bytes per object
// or array (`{}` bodies took 22x their size), ~24 per value (a double in an array ~26).
const HEAP_BYTES_PER_CONTAINER = 64;
const HEAP_BYTES_PER_VALUE = 24;
/** The heap each JSON byte announces: `{` `[` open a container, `,` `:` a value. */
const JSON_BYTE_COST = new Uint8Array(256);
JSON_BYTE_COST[0x7b] = HEAP_BYTES_PER_CONTAINER;
JSON_BYTE_COST[0x5b] = HEAP_BYTES_PER_CONTAINER;
JSON_BYTE_COST[0x2c] = HEAP_BYTES_PER_VALUE;
JSON_BYTE_COST[0x3a] = HEAP_BYTES_PER_VALUE;

/**
 * The memory a request body takes while it is read, for the in-flight bound: a protobuf body
 * is read in place; a JSON body is the Buffer, its string, and the tree JSON.parse makes of it,
 * estimated from its `{` `[` and `,` `:` bytes (inside strings too: an overestimate, never an
 * under-). Guard-shaped JSON is estimated at ~1.7x what it takes; a body of empty objects, 23x
 * its size, at about what it takes. The scan costs ~0.7 ms per MiB (two bytes a step).
 */
export function memoryCost(body: Buffer, encoding: Encoding): number {
  if (encoding === 'protobuf') return body.length;
  let a = 0;
  let b = 0;
  const even = body.length & ~1;
  for (let i = 0; i < even; i += 2) {
    a += JSON_BYTE_COST[body[i] as number] as number;
    b += JSON_BYTE_COST[body[i + 1] as number] as number;
  }
  if (even < body.length) a += JSON_BYTE_COST[body[even] as number] as number;
  return 2 * body.length + a + b;
}

/**
 * A request's valid spans, read lazily (invalid ones go to `rejected`, with a null yielded now
 * and then while many are rejected in a row); reading throws a 400
 * CollectorError when the body is not an ExportTraceServiceRequest. Protobuf is read straight
 * from the bytes (otlp-proto.ts); JSON is parsed, then walked by the normalizer.
 */
export function requestSpans(body: Buffer, encoding: Encoding, n: Normalizer, rejected: Rejections): Iterable<SpanOrPause> {
  if (encoding === 'protobuf') return decodeProtobufSpans(body, n, rejected);
  return n.spans(decodeJsonRequest(body), rejected);
}

/** Parse an OTLP/JSON ExportTraceServiceRequest into its tree; 400 when the text is not one. */
export function decodeJsonRequest(body: Buffer): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw CollectorError.badRequest(`invalid JSON: ${(err as Error).message}`);
  }
  checkEnvelope(parsed);
  return parsed;
}

/**
 * ExportTraceServiceResponse: empty on full success, partialSuccess when spans were rejected.
 * ExportLogsServiceResponse has the same fields (`rejected_log_records`): `countKey` names its
 * JSON key.
 */
export function encodeResponse(
  encoding: Encoding,
  rejectedSpans: number,
  errorMessage: string,
  countKey: 'rejectedSpans' | 'rejectedLogRecords' = 'rejectedSpans',
): Buffer | string {
  const partialSuccess = rejectedSpans > 0 || errorMessage ? { rejectedSpans, errorMessage } : undefined;
  if (encoding === 'json') {
    return JSON.stringify(
      partialSuccess ? { partialSuccess: { [countKey]: String(rejectedSpans), errorMessage } } : {},
    );
  }
  // ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1 },
  // ExportTracePartialSuccess { int64 rejected_spans = 1; string error_message = 2 }
  // (ExportLogsPartialSuccess { int64 rejected_log_records = 1; string error_message = 2 }).
  const out = new Writer();
  if (partialSuccess) out.bytesField(1, new Writer().uint(1, rejectedSpans).string(2, errorMessage).finish());
  return out.finish();
}

/** google.rpc.Status { int32 code = 1; string message = 2; repeated Any details = 3 } (details left empty). */
export function encodeStatus(encoding: Encoding, code: number, message: string): Buffer | string {
  if (encoding === 'json') return JSON.stringify({ code, message, details: [] });
  const w = new Writer();
  if (code) w.uint(1, code);
  if (message) w.string(2, message);
  return w.finish();
}
