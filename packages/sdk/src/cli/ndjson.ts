/**
 * Dataset items from NDJSON, one per line, streamed: the collector's response body or stdin are
 * read line by line (node:readline), so memory stays flat whatever the dataset's size. Files go
 * through the replay library's `readDatasetFile` (NDJSON, a JSON array, or one pretty-printed
 * fixture). As there, a line that is not a dataset item does not stop the others: it comes out as
 * a `DatasetLineError` naming the source and the line, which the replay reports as `not_replayed`.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { type DatasetLineError, readDatasetFile } from '../replay/index.ts';
import { DATASET_ITEM_FORMAT, type DatasetItem } from '@guardtrace/semconv';

/** Bad input (a file, a line, a tools module): exit code 2 with this message. */
export class InputError extends Error {
  override name = 'InputError';
}

const preview = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

/** What is wrong with a parsed line as a dataset item, or null when it is one. */
function datasetItemProblem(v: unknown): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return `expected a JSON object (a dataset item), got ${preview(v)}`;
  const o = v as Record<string, unknown>;
  if (o.format !== DATASET_ITEM_FORMAT) return `"format" is ${preview(o.format)}, expected "${DATASET_ITEM_FORMAT}"`;
  for (const key of ['id', 'tool', 'sessionId', 'stepPath'] as const) {
    if (typeof o[key] !== 'string') return `"${key}" is ${preview(o[key])}, expected a string`;
  }
  if (!Array.isArray(o.attempts)) return `"attempts" is ${preview(o.attempts)}, expected an array of recorded attempts`;
  for (const [i, a] of (o.attempts as unknown[]).entries()) {
    if (typeof a !== 'object' || a === null || typeof (a as { number?: unknown }).number !== 'number') {
      return `"attempts[${i}]" is ${preview(a)}, expected an attempt with a "number"`;
    }
  }
  if (typeof o.definition !== 'object' || o.definition === null) return `"definition" is ${preview(o.definition)}, expected { hash, summary }`;
  return null;
}

const lineError = (line: number, error: string): DatasetLineError => ({ format: 'guardtrace.dataset-line-error', line, error });

/**
 * Parses and checks each non-blank line of `input`. `source` names the input in errors
 * (`stdin, line 12: ...`). `onReadError` turns a read error of the stream into the error to throw.
 */
export async function* readItems(input: Readable, source: string, onReadError: (err: unknown, lines: number) => Error = (e) => e as Error): AsyncGenerator<DatasetItem | DatasetLineError> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  try {
    const it = lines[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<string>;
      try {
        next = await it.next();
      } catch (err) {
        throw onReadError(err, n);
      }
      if (next.done) return;
      n++;
      const line = next.value;
      if (line.trim() === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch (err) {
        yield lineError(n, `${source}, line ${n}: not JSON (${(err as Error).message}): expected one dataset item per line (NDJSON)`);
        continue;
      }
      const problem = datasetItemProblem(parsed);
      yield problem ? lineError(n, `${source}, line ${n}: not a dataset item: ${problem}`) : (parsed as DatasetItem);
    }
  } finally {
    lines.close();
    input.destroy();
  }
}

/** The items of a dataset file (NDJSON, a JSON array or one item), or of NDJSON on stdin for "-". */
export async function* readItemsFile(file: string, stdin: Readable): AsyncGenerator<DatasetItem | DatasetLineError> {
  if (file === '-') {
    yield* readItems(stdin, 'stdin');
    return;
  }
  try {
    yield* readDatasetFile(file);
  } catch (err) {
    // readDatasetFile throws only when the file cannot be read (missing, a directory)
    throw new InputError(`--file ${(err as Error).message.replace(/^guardtrace: cannot read dataset file /, '')}`);
  }
}
