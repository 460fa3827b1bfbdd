/**
 * Protobuf's wire format, read in place: varints (to 10 bytes, the high half kept apart),
 * fixed-width numbers, length-delimited fields bounded by their message, and skipping of the
 * fields a decoder does not read (groups included). Knows nothing of OTLP: otlp-proto.ts does.
 */
export const VARINT = 0;
export const I64 = 1;
export const LEN = 2;
const SGROUP = 3;
const EGROUP = 4;
const I32 = 5;
/** Nested groups deeper than this are refused: far beyond any real message (OTLP has no groups), and it bounds recursion. */
const MAX_GROUP_DEPTH = 32;

/** A field's tag: field number << 3 | wire type. */
export const tag = (field: number, wire: number) => (field << 3) | wire;

/** The bytes are not valid protobuf: the whole body is undecodable. */
export class WireError extends Error {}

/**
 * Buffer's own slice decoders. `toString(encoding, start, end)` checks its arguments and
 * looks the encoding up on every call: on short attribute strings that costs more than the
 * decoding itself (measured: about 5% of a span's CPU).
 */
interface SliceDecoders {
  utf8Slice(start: number, end: number): string;
  hexSlice(start: number, end: number): string;
  base64Slice(start: number, end: number): string;
}

/** A cursor over a protobuf message's bytes; every read is bounded by the end of its message. */
export class Reader {
  pos = 0;
  /** The high 32 bits of the last varint (varint() returns the low ones). */
  hi = 0;
  readonly buf: Buffer & SliceDecoders;

  constructor(buf: Buffer) {
    this.buf = buf as Buffer & SliceDecoders;
  }

  private cut(end: number): WireError {
    return new WireError(`a field is cut short at byte ${this.pos} (its message ends at byte ${end})`);
  }

  /** A varint's low 32 bits (as int32); its high 32 bits are left in `hi`. */
  varint(end: number): number {
    const buf = this.buf;
    let pos = this.pos;
    let lo = 0;
    let b = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (pos >= end) throw this.cut(end);
      b = buf[pos++] as number;
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.pos = pos;
        this.hi = 0;
        return lo;
      }
    }
    if (pos >= end) throw this.cut(end);
    b = buf[pos++] as number;
    lo |= (b & 0x0f) << 28;
    let hi = (b & 0x7f) >> 4;
    if (b >= 0x80) {
      for (let shift = 3; ; shift += 7) {
        if (shift > 31) throw new WireError(`a varint at byte ${this.pos} is longer than 10 bytes`);
        if (pos >= end) throw this.cut(end);
        b = buf[pos++] as number;
        hi |= (b & 0x7f) << shift;
        if (b < 0x80) break;
      }
    }
    this.pos = pos;
    this.hi = hi;
    return lo;
  }

  /** A field's tag (field number << 3 | wire type). */
  tag(end: number): number {
    const at = this.pos;
    const t = this.varint(end) >>> 0;
    if (this.hi !== 0 || t >>> 3 === 0) throw new WireError(`invalid field tag at byte ${at}`);
    return t;
  }

  /** A length-delimited field's length: moves to its first byte and returns where it ends. */
  len(end: number): number {
    const at = this.pos;
    const n = this.varint(end);
    if (this.hi !== 0 || n < 0 || this.pos + n > end) {
      throw new WireError(`the length at byte ${at} runs past the end of its message (byte ${end})`);
    }
    return this.pos + n;
  }

  string(end: number): string {
    const e = this.len(end);
    const s = this.buf.utf8Slice(this.pos, e);
    this.pos = e;
    return s;
  }

  fixed64(end: number): bigint {
    if (this.pos + 8 > end) throw this.cut(end);
    const v = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return v;
  }

  double(end: number): number {
    if (this.pos + 8 > end) throw this.cut(end);
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  /** Skip a field this decoder does not read (unknown, or not of its declared wire type). */
  skip(t: number, end: number, depth = 0): void {
    switch (t & 7) {
      case VARINT:
        this.varint(end);
        return;
      case I64:
        if (this.pos + 8 > end) throw this.cut(end);
        this.pos += 8;
        return;
      case LEN:
        this.pos = this.len(end);
        return;
      case I32:
        if (this.pos + 4 > end) throw this.cut(end);
        this.pos += 4;
        return;
      case SGROUP: {
        if (depth >= MAX_GROUP_DEPTH) throw new WireError(`groups nested deeper than ${MAX_GROUP_DEPTH} at byte ${this.pos}`);
        const field = t >>> 3;
        for (;;) {
          const inner = this.tag(end);
          if ((inner & 7) === EGROUP) {
            if (inner >>> 3 !== field) throw new WireError(`an end-group at byte ${this.pos} does not match its group`);
            return;
          }
          this.skip(inner, end, depth + 1);
        }
      }
      case EGROUP:
        throw new WireError(`an end-group without a group at byte ${this.pos}`);
      default:
        throw new WireError(`invalid wire type ${t & 7} at byte ${this.pos}`);
    }
  }
}
