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

/** Rows (objects) as COPY text, fields in `columns` order. Chunks of ~1 MiB keep memory flat. */
export function* copyChunks(rows: readonly Record<string, unknown>[], columns: readonly string[]): Generator<string> {
  let buf = '';
  for (const row of rows) {
    let line = '';
    for (let i = 0; i < columns.length; i++) {
      if (i > 0) line += '\t';
      line += copyField(row[columns[i] as string]);
    }
    buf += `${line}\n`;
    // 1 MiB chunks: large enough for few stream writes, small enough not to double memory on big batches.
    if (buf.length > 1 << 20) {
      yield buf;
      buf = '';
    }
  }
  if (buf) yield buf;
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
