/**
 * A plain COPY of rows through pg-copy-streams: the benchmarks' raw baseline (the collector's
 * writer runs its COPYs with copy-script.ts). pg-copy-streams is a devDependency for this alone.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { CopyBuffer, copyLine } from '../src/copy.ts';

/** Rows (objects) as COPY text chunks, fields in `columns` order. */
function copyChunks(rows: readonly Record<string, unknown>[], columns: readonly string[]): Buffer[] {
  const out = new CopyBuffer();
  for (const r of rows) {
    out.write(copyLine(r, columns));
    out.write('\n');
  }
  return out.finish();
}

/** COPY chunks of COPY text (fields in `columns` order) into `table`. */
async function copyBuffers(client: pg.PoolClient, table: string, chunks: readonly Buffer[], columns: readonly string[]): Promise<void> {
  if (chunks.length === 0) return;
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  await pipeline(Readable.from(chunks), stream);
}

export async function copyRows(
  client: pg.PoolClient,
  table: string,
  rows: readonly Record<string, unknown>[],
  columns: readonly string[],
): Promise<void> {
  if (rows.length === 0) return;
  await copyBuffers(client, table, copyChunks(rows, columns), columns);
}
