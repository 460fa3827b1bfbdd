/**
 * The reference OTLP protobuf codec for tests and benchmarks: the generated protobufjs code of
 * @opentelemetry/otlp-transformer (a devDependency, installed under the alias
 * `@opentelemetry/otlp-transformer-decode`). The collector never loads it: it reads requests
 * with otlp-proto.ts and writes its answers with proto-writer.ts, and this independent code is
 * what both are checked against (and what the tests encode their requests with).
 *
 * The package publishes no entry point for its generated messages, so they are loaded from its
 * build folder; 0.210 is the last release whose generated code can decode.
 */
import { createRequire } from 'node:module';
import { CollectorError } from '../src/errors.ts';

interface ProtoMessageType {
  decode(buf: Uint8Array): unknown;
  encode(msg: unknown): { finish(): Uint8Array };
}

const require = createRequire(import.meta.url);
const root = require('@opentelemetry/otlp-transformer-decode/build/src/generated/root.js');
const traceService = root.opentelemetry.proto.collector.trace.v1;
const ExportTraceServiceRequest = traceService.ExportTraceServiceRequest as ProtoMessageType;
const ExportTraceServiceResponse = traceService.ExportTraceServiceResponse as ProtoMessageType;

const logsService = root.opentelemetry.proto.collector.logs.v1;
const ExportLogsServiceRequest = logsService.ExportLogsServiceRequest as ProtoMessageType;
const ExportLogsServiceResponse = logsService.ExportLogsServiceResponse as ProtoMessageType;

/** Encode an ExportLogsServiceRequest tree (ids as bytes). */
export function encodeLogsRequestProtobuf(request: unknown): Buffer {
  return Buffer.from(ExportLogsServiceRequest.encode(request).finish());
}

export function decodeLogsResponseProtobuf(body: Uint8Array): unknown {
  return ExportLogsServiceResponse.decode(body);
}

/** Encode an ExportTraceServiceRequest tree (ids as bytes). */
export function encodeRequestProtobuf(request: unknown): Buffer {
  return Buffer.from(ExportTraceServiceRequest.encode(request).finish());
}

/** Decode an ExportTraceServiceRequest into a message tree; 400 when the bytes are not one (as the collector answers). */
export function decodeRequestProtobuf(body: Buffer): unknown {
  try {
    return ExportTraceServiceRequest.decode(body);
  } catch (err) {
    throw CollectorError.badRequest(`undecodable protobuf ExportTraceServiceRequest: ${(err as Error).message}`);
  }
}

export function decodeResponseProtobuf(body: Uint8Array): unknown {
  return ExportTraceServiceResponse.decode(body);
}

/** An ExportTraceServiceResponse as the reference writes it (the collector's own writer is checked against it). */
export function encodeResponseReference(response: unknown): Buffer {
  return Buffer.from(ExportTraceServiceResponse.encode(response).finish());
}

/** Decode a google.rpc.Status body { int32 code = 1; string message = 2 }. */
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
