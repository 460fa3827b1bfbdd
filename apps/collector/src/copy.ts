/** COPY ... FROM STDIN in Postgres' text format, for the staged inserts of writer.ts. */

// NUL is no character Postgres text can hold: written as U+FFFD (input is cleaned so on decoding;
// this is the last guard for what a later step decodes back, such as an escape in a prompt).
const SPECIAL = /[\\\n\r\t\0]/;
const SPECIAL_G = /[\\\n\r\t\0]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\0': '\uFFFD' };
/**
 * In JSON text, the escapes jsonb refuses: `\u0000` and a lone surrogate's (JSON.stringify writes
 * a lone surrogate as an escape; a pair is written as it is). Only an escape, not an escaped
 * backslash before `u0000`: an odd number of backslashes.
 */
const UNSTORABLE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|[dD][89abAB][0-9a-fA-F]{2}|[dD][c-fC-F][0-9a-fA-F]{2})/g;

/** JSON text of `v` that jsonb accepts: NUL and lone surrogates as U+FFFD. */
export function storableJson(v: unknown): string {
  const json = JSON.stringify(v);
  return json.includes('\\u') ? json.replace(UNSTORABLE_ESCAPE, '$1\\ufffd') : json;
}

/** Text Postgres accepts: NUL as U+FFFD (a lone surrogate becomes U+FFFD when encoded as UTF-8). */
export function storableText(s: string): string {
  return s.includes('\0') ? s.replaceAll('\0', '\uFFFD') : s;
}

/** JSON of objects shared by many rows (a request's resource), serialized once. */
const shared = new WeakMap<object, string>();

/** One field in COPY text format: \N for null, objects as JSON, specials escaped. */
export function copyField(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'object') {
    // JSON text holds no raw newline, return or tab (JSON.stringify escapes them): only its
    // backslashes need doubling, and a plain substring search finds them.
    const json = shared.get(v) ?? storableJson(v);
    return json.includes('\\') ? json.replaceAll('\\', '\\\\') : json;
  }
  const s = String(v);
  return SPECIAL.test(s) ? s.replace(SPECIAL_G, (c) => ESCAPES[c] as string) : s;
}

/** Serialize `obj` once for every row that carries it (call before building COPY text). */
export function shareJson(obj: object): void {
  if (!shared.has(obj)) shared.set(obj, storableJson(obj));
}

/** One row as COPY text, fields in `columns` order, without the line end. */
export function copyLine(row: Readonly<Record<string, unknown>>, columns: readonly string[]): string {
  let line = '';
  for (let i = 0; i < columns.length; i++) {
    if (i > 0) line += '\t';
    line += copyField(row[columns[i] as string]);
  }
  return line;
}

// Chunks of 64 KiB growing to 1 MiB: few stream writes, memory flat on big batches, and a
// table with a few rows does not take a megabyte (allocating those made V8 collect the old
// generation every few hundred ms: their memory counts as external pressure).
const FIRST_CHUNK_BYTES = 64 << 10;
// (TextEncoder.encodeInto: about a third cheaper than Buffer#write for these rows.)
const encoder = new TextEncoder();
const CHUNK_BYTES = 1 << 20;

/**
 * COPY text encoded straight into Buffers as it is built. (Concatenating a batch into one big
 * string and letting the stream encode it costs several times more: V8 first flattens the
 * rope of thousands of pieces, then encodes it.)
 */
export class CopyBuffer {
  readonly chunks: Buffer[] = [];
  private buf: Buffer | null = null;
  private at = 0;
  /** Size of the next chunk: small first (most tables get a few rows a batch), doubling to 1 MiB. */
  private next = FIRST_CHUNK_BYTES;

  /** Append text (UTF-8). */
  write(s: string): void {
    // A UTF-16 code unit takes at most 3 UTF-8 bytes.
    const buf = this.room(s.length * 3);
    if (buf === null) this.chunks.push(Buffer.from(s, 'utf8'));
    else this.at += encoder.encodeInto(s, buf.subarray(this.at)).written;
  }

  /** Append bytes already encoded (a row kept in a RowArena). */
  writeBytes(src: Buffer, start: number, end: number): void {
    const buf = this.room(end - start);
    if (buf === null) {
      this.chunks.push(src.subarray(start, end));
      return;
    }
    src.copy(buf, this.at, start, end);
    this.at += end - start;
  }

  /** The chunks written so far, the last one cut to its length. */
  finish(): Buffer[] {
    this.flush();
    return this.chunks;
  }

  /** The current chunk with `n` bytes free after `at`, or null when `n` is bigger than any chunk. */
  private room(n: number): Buffer | null {
    if (this.buf !== null && this.at + n <= this.buf.length) return this.buf;
    this.flush();
    if (n > CHUNK_BYTES) return null;
    while (this.next < n) this.next *= 2;
    this.buf = Buffer.allocUnsafe(this.next);
    this.next = Math.min(CHUNK_BYTES, this.next * 2);
    return this.buf;
  }

  private flush(): void {
    if (this.buf !== null && this.at > 0) this.chunks.push(this.buf.subarray(0, this.at));
    this.buf = null;
    this.at = 0;
  }
}

/**
 * Row texts of one request, encoded as they are built and kept outside the JS heap until its
 * transaction copies them out: a queued span holds three numbers instead of ~1 KB of strings
 * that every young-generation collection would copy again.
 */
export class RowArena {
  buf: Buffer;
  private at = 0;

  /** `onAlloc` is told each chunk's size before it is made, and may throw (the collector's memory bound). */
  constructor(
    private readonly sizeHint: number,
    private readonly onAlloc?: (bytes: number) => void,
  ) {
    onAlloc?.(sizeHint);
    this.buf = Buffer.allocUnsafe(sizeHint);
  }

  /** Encode `s`; it is then `this.buf` (read it before the next put) from the returned offset to `end`. */
  put(s: string): number {
    if (this.at + s.length * 3 > this.buf.length) {
      const size = Math.max(this.sizeHint, s.length * 3);
      this.onAlloc?.(size);
      this.buf = Buffer.allocUnsafe(size);
      this.at = 0;
    }
    const start = this.at;
    this.at += encoder.encodeInto(s, this.buf.subarray(start)).written;
    return start;
  }

  /** Where the last put ended. */
  get end(): number {
    return this.at;
  }
}
