/** COPY ... FROM STDIN in Postgres' text format, for the staged inserts of writer.ts. */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

const SPECIAL = /[\\\n\r\t]/;
const SPECIAL_G = /[\\\n\r\t]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** JSON of objects shared by many rows (a request's resource), serialized once. */
const shared = new WeakMap<object, string>();

/** One field in COPY text format: \N for null, objects as JSON, specials escaped. */
export function copyField(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  let s: string;
  if (typeof v === 'object') {
    s = shared.get(v) ?? JSON.stringify(v);
  } else {
    s = String(v);
  }
  return SPECIAL.test(s) ? s.replace(SPECIAL_G, (c) => ESCAPES[c] as string) : s;
}

/** Serialize `obj` once for every row that carries it (call before building COPY text). */
export function shareJson(obj: object): void {
  if (!shared.has(obj)) shared.set(obj, JSON.stringify(obj));
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

/** Lines joined into chunks of ~1 MiB: few stream writes, and memory stays flat on big batches. */
function* chunks(lines: Iterable<string>): Generator<string> {
  let buf = '';
  for (const line of lines) {
    buf += `${line}\n`;
    if (buf.length > 1 << 20) {
      yield buf;
      buf = '';
    }
  }
  if (buf) yield buf;
}

/** Rows (objects) as COPY text chunks, fields in `columns` order. */
export function copyChunks(rows: readonly Record<string, unknown>[], columns: readonly string[]): Generator<string> {
  return chunks(rows.map((r) => copyLine(r, columns)));
}

/** COPY pre-built lines (fields in `columns` order) into `table`. */
export async function copyLines(client: pg.PoolClient, table: string, lines: readonly string[], columns: readonly string[]): Promise<void> {
  if (lines.length === 0) return;
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  await pipeline(Readable.from(chunks(lines)), stream);
}

export async function copyRows(
  client: pg.PoolClient,
  table: string,
  rows: readonly Record<string, unknown>[],
  columns: readonly string[],
): Promise<void> {
  if (rows.length === 0) return;
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  await pipeline(Readable.from(copyChunks(rows, columns)), stream);
}
