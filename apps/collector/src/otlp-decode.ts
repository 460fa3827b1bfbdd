/**
 * OTLP/HTTP wire formats: bytes in (protobuf or JSON) -> a plain request tree; a partial
 * success or a google.rpc.Status out, in the request's encoding. Span-level validation is
 * in normalize.ts: here only "can this body be read at all" (400 when not).
 */
import { createRequire } from 'node:module';
import { CollectorError } from './errors.ts';
import { checkEnvelope, type Normalizer } from './normalize.ts';
import { decodeProtobufSpans } from './otlp-proto.ts';
import type { Rejections, SpanOrPause } from './span.ts';

export type Encoding = 'protobuf' | 'json';

interface ProtoMessageType {
  decode(buf: Uint8Array): unknown;
  encode(msg: unknown): { finish(): Uint8Array };
}
interface ProtoWriter {
  uint32(v: number): ProtoWriter;
  int32(v: number): ProtoWriter;
  string(v: string): ProtoWriter;
  finish(): Uint8Array;
}

const require = createRequire(import.meta.url);
// The 0.210 transformer is the last release whose generated protobufjs code can decode.
const root = require('@opentelemetry/otlp-transformer-decode/build/src/generated/root.js');
const protobuf = require(
  require.resolve('protobufjs/minimal', {
    paths: [require.resolve('@opentelemetry/otlp-transformer-decode/build/src/generated/root.js')],
  }),
) as { Writer: { create(): ProtoWriter } };
const traceService = root.opentelemetry.proto.collector.trace.v1;
const ExportTraceServiceRequest = traceService.ExportTraceServiceRequest as ProtoMessageType;
const ExportTraceServiceResponse = traceService.ExportTraceServiceResponse as ProtoMessageType;

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
  return n.spans(decodeRequest(body, 'json'), rejected);
}

/**
 * Decode an ExportTraceServiceRequest into a message tree; 400 when the bytes are not one.
 * Ingest reads protobuf with otlp-proto.ts; the generated protobufjs decoder here is the
 * reference it is tested against.
 */
export function decodeRequest(body: Buffer, encoding: Encoding): unknown {
  if (encoding === 'protobuf') {
    try {
      return ExportTraceServiceRequest.decode(body);
    } catch (err) {
      throw CollectorError.badRequest(`undecodable protobuf ExportTraceServiceRequest: ${(err as Error).message}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw CollectorError.badRequest(`invalid JSON: ${(err as Error).message}`);
  }
  checkEnvelope(parsed);
  return parsed;
}

/** ExportTraceServiceResponse: empty on full success, partialSuccess when spans were rejected. */
export function encodeResponse(encoding: Encoding, rejectedSpans: number, errorMessage: string): Buffer | string {
  const partialSuccess = rejectedSpans > 0 || errorMessage ? { rejectedSpans, errorMessage } : undefined;
  if (encoding === 'json') {
    return JSON.stringify(
      partialSuccess ? { partialSuccess: { rejectedSpans: String(rejectedSpans), errorMessage } } : {},
    );
  }
  const msg = partialSuccess ? { partialSuccess } : {};
  return Buffer.from(ExportTraceServiceResponse.encode(msg).finish());
}

/** google.rpc.Status { code = 1; message = 2; details = 3 } (details left empty). */
export function encodeStatus(encoding: Encoding, code: number, message: string): Buffer | string {
  if (encoding === 'json') return JSON.stringify({ code, message, details: [] });
  const w = protobuf.Writer.create();
  if (code) w.uint32(8).int32(code);
  if (message) w.uint32(18).string(message);
  return Buffer.from(w.finish());
}

/** Test and bench helpers: encode a request object with the same generated code. */
export function encodeRequestProtobuf(request: unknown): Buffer {
  return Buffer.from(ExportTraceServiceRequest.encode(request).finish());
}
export function decodeResponseProtobuf(body: Uint8Array): unknown {
  return ExportTraceServiceResponse.decode(body);
}
/** Decode a google.rpc.Status body (tests). */
export function decodeStatusProtobuf(body: Uint8Array): { code: number; message: string } {
  let code = 0;
  let message = '';
  let i = 0;
  const varint = () => {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = body[i++] ?? 0;
      v |= (b & 0x7f) << shift;
      if (!(b & 0x80) || i >= body.length) return v;
      shift += 7;
    }
  };
  while (i < body.length) {
    const tag = varint();
    if (tag === 8) code = varint();
    else if (tag === 18) {
      const len = varint();
      message = Buffer.from(body.subarray(i, i + len)).toString('utf8');
      i += len;
    } else if ((tag & 7) === 2) i += varint();
    else varint();
  }
  return { code, message };
}
