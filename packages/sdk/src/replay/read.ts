/**
 * Reads a dataset file (Node only): NDJSON (one item per line, streamed line by line), a JSON
 * array of items, or a single item (a fixture copied from the web app, pretty-printed or not).
 * A line that is not an item does not stop the others: it comes out as a `DatasetLineError`
 * with its line number, which a replay reports as `not_replayed`.
 */
import { createReadStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { DatasetItem } from '@guardtrace/semconv';
import { itemProblem } from './item.ts';
import type { DatasetLineError } from './replay.ts';

const lineError = (line: number, error: string): DatasetLineError => ({ format: 'guardtrace.dataset-line-error', line, error });

/** The first bytes of the file, to tell NDJSON from one JSON document. */
async function head(file: string): Promise<string> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await fh.close();
  }
}

/** Line (1-based) of a character offset in a text. */
function lineAt(text: string, offset: number): number {
  let n = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) n += 1;
  return n;
}

/** A JSON.parse error as "line N: message" (V8 names the position in its message). */
function parseError(file: string, text: string, err: unknown, firstLine = 1): string {
  const msg = err instanceof Error ? err.message : String(err);
  const pos = /position (\d+)/.exec(msg);
  const line = pos ? firstLine + lineAt(text, Number(pos[1])) - 1 : firstLine;
  return `${file}:${line}: not valid JSON: ${msg}`;
}

/** One whole-file JSON document: an array of items, or a single item. */
async function* whole(file: string): AsyncGenerator<DatasetItem | DatasetLineError> {
  const text = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    yield lineError(1, parseError(file, text, err));
    return;
  }
  if (!Array.isArray(doc)) {
    const problem = itemProblem(doc);
    yield problem ? lineError(1, `${file}: not a dataset item: ${problem}`) : (doc as DatasetItem);
    return;
  }
  for (const [i, x] of doc.entries()) {
    const problem = itemProblem(x);
    yield problem ? lineError(i + 1, `${file}: element ${i} of the array is not a dataset item: ${problem}`) : (x as DatasetItem);
  }
}

/** NDJSON, streamed: memory holds one line at a time. */
async function* lines(file: string): AsyncGenerator<DatasetItem | DatasetLineError> {
  const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  for await (const raw of rl) {
    n += 1;
    // a byte order mark some editors write is not part of the first item
    const line = n === 1 ? raw.replace(/^\uFEFF/, '') : raw;
    if (line.trim() === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (err) {
      yield lineError(n, parseError(file, line, err, n));
      continue;
    }
    const problem = itemProblem(v);
    yield problem ? lineError(n, `${file}:${n}: not a dataset item: ${problem}`) : (v as DatasetItem);
  }
}

/**
 * The items of a dataset file, streamed: NDJSON line by line, or a JSON array / single item.
 * Throws only when the file cannot be read (missing, a directory); bad content comes out as
 * `DatasetLineError`s, one per bad line.
 */
export async function* readDatasetFile(file: string): AsyncGenerator<DatasetItem | DatasetLineError> {
  let start: string;
  try {
    start = (await head(file)).trimStart();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory, not a file' : err instanceof Error ? err.message : String(err);
    throw new Error(`guardtrace: cannot read dataset file ${file}: ${why}`);
  }
  if (start === '') return;
  if (start.startsWith('[')) {
    yield* whole(file);
    return;
  }
  // one object per line, or one object over several lines (a pretty-printed fixture)
  const first = start.slice(0, start.indexOf('\n') === -1 ? undefined : start.indexOf('\n')).trim();
  let oneLine = true;
  try {
    JSON.parse(first);
  } catch {
    oneLine = false;
  }
  yield* oneLine || !first.startsWith('{') ? lines(file) : whole(file);
}
