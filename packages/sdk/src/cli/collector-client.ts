/**
 * The collector's dataset API, as `guardtrace-replay` calls it with a project API key:
 * `GET /v1/datasets/{id}` (NDJSON, streamed), `GET /v1/datasets` (the item count, for the
 * progress bar), `POST /v1/datasets` and `POST /v1/datasets/{id}/runs`. Every failure is a
 * CollectorRequestError that names the request's URL and the answer's status and message.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import type { DatasetItem, ReplayRunReport } from '@guardtrace/semconv';
import type { DatasetLineError } from '../replay/index.ts';
import type { Collector } from './args.ts';
import { readItems } from './ndjson.ts';

export class CollectorRequestError extends Error {
  override name = 'CollectorRequestError';
  constructor(
    message: string,
    /** The HTTP status, or null when no answer came. */
    readonly status: number | null,
  ) {
    super(message);
  }
}

/** Creating a dataset from a query of 100,000 calls takes ~10 s on the target machine; a run upload is one JSON body. */
const REQUEST_TIMEOUT_MS = 120_000;

const urlOf = (c: Collector, path: string) => `${c.endpoint}${path}`;

/** The message of an error answer: the collector sends a google.rpc.Status `{ code, message }`. */
async function answerMessage(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { message?: unknown; error?: unknown };
    const m = body.message ?? body.error;
    if (typeof m === 'string' && m) return m;
  } catch {
    // not JSON: the text itself
  }
  const t = text.trim();
  return t ? (t.length > 300 ? `${t.slice(0, 300)}...` : t) : res.statusText || 'no message';
}

async function request(c: Collector, method: 'GET' | 'POST', path: string, init: { body?: unknown; accept: string; timeout?: boolean; prefer?: string }): Promise<Response> {
  const url = urlOf(c, path);
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${c.apiKey}`,
        accept: init.accept,
        ...(init.prefer ? { prefer: init.prefer } : {}),
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.timeout === false ? undefined : AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = (err as Error).name === 'TimeoutError' ? `no answer within ${REQUEST_TIMEOUT_MS / 1000} s` : (cause?.code ?? cause?.message ?? (err as Error).message);
    throw new CollectorRequestError(`${method} ${url} failed: ${why} (is the collector running at ${c.endpoint}?)`, null);
  }
  if (res.ok) return res;
  const message = await answerMessage(res);
  const hint =
    res.status === 401 || res.status === 403
      ? ': check the API key (--key or GUARDTRACE_API_KEY) and that it belongs to the dataset\'s project'
      : '';
  throw new CollectorRequestError(`${method} ${url} answered ${res.status}: ${message}${hint}`, res.status);
}

/** The dataset's items as the collector streams them, checked line by line (a bad line comes out as a DatasetLineError). */
export async function* streamDataset(c: Collector, id: string): AsyncGenerator<DatasetItem | DatasetLineError> {
  const path = `/v1/datasets/${encodeURIComponent(id)}`;
  let res: Response;
  try {
    res = await request(c, 'GET', path, { accept: 'application/x-ndjson', timeout: false });
  } catch (err) {
    if (err instanceof CollectorRequestError && err.status === 404) {
      throw new CollectorRequestError(`dataset "${id}" not found: GET ${urlOf(c, path)} answered 404 (${err.message.replace(/^.*answered 404: /, '')}); list the project's datasets with GET ${urlOf(c, '/v1/datasets')}`, 404);
    }
    throw err;
  }
  if (!res.body) throw new CollectorRequestError(`GET ${urlOf(c, path)} answered ${res.status} with no body`, res.status);
  const body = Readable.fromWeb(res.body as unknown as NodeWebStream<Uint8Array>);
  yield* readItems(body, `dataset ${id} (GET ${urlOf(c, path)})`, (err, lines) => {
    return new CollectorRequestError(`the dataset stream GET ${urlOf(c, path)} broke after ${lines} lines: ${(err as Error).message}`, res.status);
  });
}

/** The dataset's item count from `GET /v1/datasets`, or null when it cannot be had (the progress bar then shows no total). */
export async function datasetItemCount(c: Collector, id: string): Promise<number | null> {
  try {
    const res = await request(c, 'GET', '/v1/datasets', { accept: 'application/json' });
    const body = (await res.json()) as { datasets?: { id?: unknown; itemCount?: unknown }[] };
    const n = body.datasets?.find((d) => d.id === id)?.itemCount;
    return typeof n === 'number' ? n : null;
  } catch {
    return null;
  }
}

export interface CreatedDataset {
  id: string;
  name: string;
  itemCount: number;
}

/** How often a dataset being saved is looked at (its count in GET /v1/datasets). */
const SAVE_POLL_MS = 500;

/**
 * `POST /v1/datasets` `{ name, query }`: the collector saves the calls the query matches. Asked
 * with `Prefer: respond-async`, it answers 202 as soon as the dataset exists; its count is then
 * read from `GET /v1/datasets` (`onProgress` with the calls copied so far) until it is ready. A
 * collector that answers 201 (it saved before answering) is taken at its word.
 */
export async function createDataset(
  c: Collector,
  name: string,
  query: string,
  opts: { onProgress?: (itemCount: number) => void; pollMs?: number } = {},
): Promise<CreatedDataset> {
  const res = await request(c, 'POST', '/v1/datasets', { body: { name, query }, accept: 'application/json', prefer: 'respond-async' });
  const body = (await res.json().catch(() => null)) as (Partial<CreatedDataset> & { status?: unknown }) | null;
  if (typeof body?.id !== 'string') throw new CollectorRequestError(`POST ${urlOf(c, '/v1/datasets')} answered ${res.status} without a dataset id`, res.status);
  const made = { id: body.id, name: typeof body.name === 'string' ? body.name : name, itemCount: typeof body.itemCount === 'number' ? body.itemCount : Number.NaN };
  if (res.status !== 202) return made;
  for (;;) {
    const list = await request(c, 'GET', '/v1/datasets', { accept: 'application/json' });
    const row = ((await list.json().catch(() => null)) as { datasets?: { id?: unknown; itemCount?: unknown; status?: unknown }[] } | null)?.datasets?.find((d) => d.id === made.id);
    if (!row) throw new CollectorRequestError(`dataset "${made.id}" was accepted but GET ${urlOf(c, '/v1/datasets')} does not list it (deleted while it was saved?)`, 404);
    const count = typeof row.itemCount === 'number' ? row.itemCount : 0;
    if (row.status === 'ready' || row.status === undefined) return { ...made, itemCount: count };
    if (row.status !== 'building') throw new CollectorRequestError(`saving dataset "${made.name}" ${row.status === 'failed' ? 'failed' : 'stopped'} after ${count} calls (status ${String(row.status)}): save it again`, 409);
    opts.onProgress?.(count);
    await new Promise((r) => setTimeout(r, opts.pollMs ?? SAVE_POLL_MS));
  }
}

/** `POST /v1/datasets/{id}/runs` with the report: the run's id and its web path. */
/** Changed attempts uploaded per change: the run page shows the first ones of each (the JSON report keeps all). */
export const UPLOAD_RESULTS_PER_CHANGE = 1_000;
/** JSON bytes of results uploaded at most: well under the collector's default 16 MiB body limit. */
const UPLOAD_RESULTS_BYTES = 8 * 2 ** 20;

/**
 * The report as uploaded: its summary whole, its results the first UPLOAD_RESULTS_PER_CHANGE of
 * each change within UPLOAD_RESULTS_BYTES, so a guard change that rejects every call still uploads
 * (one body) instead of a 413; `omitted` counts the results left out.
 */
export function uploadable(report: ReplayRunReport): { report: ReplayRunReport; omitted: number } {
  const perChange = new Map<string, number>();
  const kept: ReplayRunReport['results'] = [];
  let bytes = 0;
  for (const r of report.results) {
    const n = perChange.get(r.change) ?? 0;
    if (n >= UPLOAD_RESULTS_PER_CHANGE) continue;
    const size = Buffer.byteLength(JSON.stringify(r));
    if (bytes + size > UPLOAD_RESULTS_BYTES) continue;
    bytes += size;
    perChange.set(r.change, n + 1);
    kept.push(r);
  }
  return { report: kept.length === report.results.length ? report : { ...report, results: kept }, omitted: report.results.length - kept.length };
}

export async function uploadRun(c: Collector, datasetId: string, full: ReplayRunReport): Promise<{ id: string; url: string | null; omitted: number }> {
  const path = `/v1/datasets/${encodeURIComponent(datasetId)}/runs`;
  const { report, omitted } = uploadable(full);
  const res = await request(c, 'POST', path, { body: report, accept: 'application/json' });
  const body = (await res.json().catch(() => null)) as { id?: unknown; url?: unknown } | null;
  if (typeof body?.id !== 'string') throw new CollectorRequestError(`POST ${urlOf(c, path)} answered ${res.status} without a run id`, res.status);
  return { id: body.id, url: typeof body.url === 'string' ? body.url : null, omitted };
}
