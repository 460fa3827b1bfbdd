/**
 * Protobuf's wire format, written: the few messages the collector answers with (an
 * ExportTraceServiceResponse, a google.rpc.Status) are small and flat, so a growing array of
 * bytes is all it takes. Knows nothing of OTLP: otlp-decode.ts does.
 */
import { LEN, tag, VARINT } from './proto-reader.ts';

export class Writer {
  private readonly bytes: number[] = [];

  /** An unsigned varint (up to 2^53: every count the collector writes). */
  private varint(v: number): void {
    let n = v;
    while (n > 0x7f) {
      this.bytes.push((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
    }
    this.bytes.push(n);
  }

  /** A varint field (int32, int64, uint*, enum) of a non-negative value. */
  uint(field: number, v: number): this {
    this.varint(tag(field, VARINT));
    this.varint(v);
    return this;
  }

  /** A length-delimited field of raw bytes: a nested message's, or text's. */
  bytesField(field: number, body: Uint8Array): this {
    this.varint(tag(field, LEN));
    this.varint(body.length);
    for (const b of body) this.bytes.push(b);
    return this;
  }

  string(field: number, s: string): this {
    return this.bytesField(field, Buffer.from(s, 'utf8'));
  }

  finish(): Buffer {
    return Buffer.from(this.bytes);
  }
}
