/**
 * The dataset API client against a real HTTP server (node:http on a free port) standing in for
 * the collector: what it sends (path, key, body) and how each kind of answer reads.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DATASET_ITEM_FORMAT, type DatasetItem, REPLAY_RUN_FORMAT, type ReplayRunReport } from '@guardtrace/semconv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Collector } from './args.ts';
import { CollectorRequestError, createDataset, datasetItemCount, streamDataset, uploadable, uploadRun } from './collector-client.ts';
import { InputError, readItemsFile } from './ndjson.ts';

function datasetItem(i: number, over: Partial<DatasetItem> = {}): DatasetItem {
  return {
    format: DATASET_ITEM_FORMAT,
    id: `trace${i}:span${i}`,
    sessionId: `sess_${i}`,
    traceId: `trace${i}`,
    spanId: `span${i}`,
    stepPath: `/sessions/sess_${i}?project=p1&call=span${i}`,
    tool: 'read_file',
    callId: `call_${i}`,
    startedAt: '2026-12-01T10:00:00.000Z',
    definition: { hash: null, summary: null },
    outcome: 'success',
    failureClass: null,
    attempts: [{ number: 1, arguments: { path: `src/${i}.ts` }, outcome: 'success', decision: null, failureClass: null, feedback: null, checks: [] }],
    ...over,
  };
}

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
let server: Server;
let handler: Handler;
let collector: Collector;
const seen: { method: string; url: string; auth: string | undefined; accept: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, accept: req.headers.accept, body });
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  collector = { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'gt_test_key' };
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Items, or line errors where a test expects them (DatasetItem typed for brevity). */
const collect = async (it: AsyncIterable<unknown>): Promise<DatasetItem[]> => {
  const out: unknown[] = [];
  for await (const x of it) out.push(x);
  return out as DatasetItem[];
};
const rejection = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('did not fail');
};

describe('GET /v1/datasets/{id}', () => {
  it('streams the items, whatever the chunking, with the key and Accept: application/x-ndjson', async () => {
    const text = [datasetItem(1), datasetItem(2), datasetItem(3)].map((i) => JSON.stringify(i)).join('\r\n') + '\n\n';
    handler = (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      // chunks that cut lines (and a UTF-8 sequence) anywhere
      const bytes = Buffer.from(text.replace('src/2.ts', 'src/ä2.ts'));
      let at = 0;
      const next = () => {
        if (at >= bytes.length) return res.end();
        res.write(bytes.subarray(at, at + 37));
        at += 37;
        setImmediate(next);
      };
      next();
    };
    seen.length = 0;
    const items = await collect(streamDataset(collector, 'ds 1/x'));
    expect(items.map((i) => i.id)).toEqual(['trace1:span1', 'trace2:span2', 'trace3:span3']);
    expect(items[1]!.attempts[0]!.arguments).toEqual({ path: 'src/ä2.ts' });
    expect(seen).toEqual([{ method: 'GET', url: '/v1/datasets/ds%201%2Fx', auth: 'Bearer gt_test_key', accept: 'application/x-ndjson', body: '' }]);
  });

  it('a 404 says the dataset was not found, with the URL and the collector\'s message', async () => {
    handler = (_req, _body, res) => res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 5, message: 'no dataset nope in this project' }));
    const err = await rejection(collect(streamDataset(collector, 'nope')));
    expect(err).toBeInstanceOf(CollectorRequestError);
    expect((err as CollectorRequestError).status).toBe(404);
    expect(err.message).toBe(`dataset "nope" not found: GET ${collector.endpoint}/v1/datasets/nope answered 404 (no dataset nope in this project); list the project's datasets with GET ${collector.endpoint}/v1/datasets`);
  });

  it('a refused key says so, with the status', async () => {
    handler = (_req, _body, res) => res.writeHead(401).end('{"code":16,"message":"invalid API key"}');
    const err = await rejection(collect(streamDataset(collector, 'ds1')));
    expect(err.message).toBe(`GET ${collector.endpoint}/v1/datasets/ds1 answered 401: invalid API key: check the API key (--key or GUARDTRACE_API_KEY) and that it belongs to the dataset's project`);
  });

  it('a line that is not a dataset item comes out as a line error naming the dataset and the line, and the others go on', async () => {
    handler = (_req, _body, res) => res.writeHead(200).end(`${JSON.stringify(datasetItem(1))}\n{"format":"other/v9"}\n{oops\n${JSON.stringify(datasetItem(4))}\n`);
    const got = await collect(streamDataset(collector, 'ds1'));
    const where = `dataset ds1 (GET ${collector.endpoint}/v1/datasets/ds1)`;
    expect(got[0]).toMatchObject({ id: 'trace1:span1' });
    expect(got[1]).toEqual({ format: 'guardtrace.dataset-line-error', line: 2, error: `${where}, line 2: not a dataset item: "format" is "other/v9", expected "guardtrace.dataset-item/v1"` });
    expect(got[2]).toMatchObject({ format: 'guardtrace.dataset-line-error', line: 3, error: expect.stringMatching(new RegExp(`^${where.replace(/[()/.?]/g, '\\$&')}, line 3: not JSON \\(.+\\): expected one dataset item per line \\(NDJSON\\)$`)) });
    expect(got[3]).toMatchObject({ id: 'trace4:span4' });
  });

  it('a connection cut mid-stream is a collector error, not a short dataset', async () => {
    handler = (req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write(`${JSON.stringify(datasetItem(1))}\n{"format":"guardtrace.dat`);
      setTimeout(() => req.socket.destroy(), 20);
    };
    const got: string[] = [];
    const err = await rejection(
      (async () => {
        for await (const i of streamDataset(collector, 'ds1')) got.push((i as DatasetItem).id);
      })(),
    );
    expect(got).toEqual(['trace1:span1']);
    expect(err).toBeInstanceOf(CollectorRequestError);
    expect(err.message).toMatch(new RegExp(`^the dataset stream GET ${collector.endpoint}/v1/datasets/ds1 broke after 1 lines: `));
  });

  it('no collector at the URL: says which URL failed and why', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await rejection(collect(streamDataset({ endpoint: `http://127.0.0.1:${port}`, apiKey: 'k' }, 'ds1')));
    expect(err.message).toBe(`GET http://127.0.0.1:${port}/v1/datasets/ds1 failed: ECONNREFUSED (is the collector running at http://127.0.0.1:${port}?)`);
  });
});

describe('POST /v1/datasets, POST /v1/datasets/{id}/runs, GET /v1/datasets', () => {
  it('creates a dataset from a query', async () => {
    handler = (_req, _body, res) => res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"ds_9","name":"old folder","itemCount":42}');
    seen.length = 0;
    expect(await createDataset(collector, 'old folder', 'tool:read_file class:guard_violation')).toEqual({ id: 'ds_9', name: 'old folder', itemCount: 42 });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/datasets', auth: 'Bearer gt_test_key' });
    expect(JSON.parse(seen[0]!.body)).toEqual({ name: 'old folder', query: 'tool:read_file class:guard_violation' });
  });

  it('asks to be answered at once (202), follows the count to ready, and says so when the save fails', async () => {
    let polls = 0;
    const prefer: (string | undefined)[] = [];
    const states = [
      { status: 'building', itemCount: 0 },
      { status: 'building', itemCount: 2_000 },
      { status: 'ready', itemCount: 3_500 },
    ];
    handler = (req, _body, res) => {
      if (req.method === 'POST') {
        prefer.push(String(req.headers.prefer));
        res.writeHead(202, { 'content-type': 'application/json' }).end('{"id":"ds_a","name":"big","itemCount":0,"status":"building"}');
      } else {
        const state = states[Math.min(polls++, states.length - 1)];
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ datasets: [{ id: 'other', itemCount: 1, status: 'ready' }, { id: 'ds_a', ...state }] }));
      }
    };
    const progress: number[] = [];
    expect(await createDataset(collector, 'big', 'tool:read_file', { pollMs: 1, onProgress: (n) => progress.push(n) })).toEqual({ id: 'ds_a', name: 'big', itemCount: 3_500 });
    expect(prefer).toEqual(['respond-async']);
    expect(progress).toEqual([0, 2_000]);
    states.splice(0, states.length, { status: 'failed', itemCount: 700 });
    polls = 0;
    const err = await rejection(createDataset(collector, 'big', 'tool:read_file', { pollMs: 1 }));
    expect(err.message).toBe('saving dataset "big" failed after 700 calls (status failed): save it again');
  });

  it("a query the collector refuses: its message and the status", async () => {
    handler = (_req, _body, res) => res.writeHead(400, { 'content-type': 'application/json' }).end('{"code":3,"message":"unknown filter \\"tol:\\": expected tool:, class:, started:"}');
    const err = await rejection(createDataset(collector, 'x', 'tol:read_file'));
    expect(err.message).toBe(`POST ${collector.endpoint}/v1/datasets answered 400: unknown filter "tol:": expected tool:, class:, started:`);
  });

  it('uploads a run report and reads back its id and web path', async () => {
    handler = (_req, _body, res) => res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"run_1","url":"/datasets/ds_9/runs/run_1"}');
    const report: ReplayRunReport = {
      format: REPLAY_RUN_FORMAT,
      datasetId: 'ds_9',
      label: null,
      startedAt: '2026-12-06T01:00:00.000Z',
      finishedAt: '2026-12-06T01:00:01.000Z',
      options: { execute: 'none', failOn: [] },
      summary: { calls: 0, attempts: 0, unchanged: 0, newly_rejected: 0, newly_allowed: 0, class_changed: 0, feedback_changed: 0, not_replayed: 0 },
      results: [],
    };
    seen.length = 0;
    expect(await uploadRun(collector, 'ds_9', report)).toEqual({ id: 'run_1', url: '/datasets/ds_9/runs/run_1', omitted: 0 });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/datasets/ds_9/runs', auth: 'Bearer gt_test_key' });
    expect(JSON.parse(seen[0]!.body)).toEqual(report);
  });

  it('uploads the first results of each change within the byte bound, the counts whole, and says how many it left out', async () => {
    handler = (_req, _body, res) => res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"run_2","url":null}');
    const decision = (allowed: boolean, feedback: string | null) => ({ allowed, decision: null, failureClass: null, feedback, checks: [] });
    const result = (i: number, change: ReplayRunReport['results'][number]['change'], feedback = 'outside the workspace') => ({
      itemId: `t:${i}`, attempt: 1, tool: 'read_file', sessionId: 's', stepPath: `/sessions/s?project=p&call=${i}`, change,
      arguments: { path: `docs/${i}` }, recorded: decision(true, null), now: decision(false, feedback),
      definition: { recordedHash: 'a', currentHash: 'b', changes: [] },
    });
    // A guard change that rejects every call: 2,500 newly rejected, then 3 feedback changes.
    const results = [...Array.from({ length: 2_500 }, (_, i) => result(i, 'newly_rejected')), ...[0, 1, 2].map((i) => result(3_000 + i, 'feedback_changed'))];
    const summary = { calls: 2_503, attempts: 2_503, unchanged: 0, newly_rejected: 2_500, newly_allowed: 0, class_changed: 0, feedback_changed: 3, not_replayed: 0 };
    const report: ReplayRunReport = { format: REPLAY_RUN_FORMAT, datasetId: 'ds_9', label: null, startedAt: '2026-12-06T01:00:00.000Z', finishedAt: '2026-12-06T01:00:01.000Z', options: { execute: 'none', failOn: [] }, summary, results };
    seen.length = 0;
    expect(await uploadRun(collector, 'ds_9', report)).toEqual({ id: 'run_2', url: null, omitted: 1_500 });
    const sent = JSON.parse(seen[0]!.body) as ReplayRunReport;
    expect(sent.summary).toEqual(summary);
    expect(sent.results.map((r) => r.itemId)).toEqual([...results.slice(0, 1_000), ...results.slice(2_500)].map((r) => r.itemId));
    // Feedback of 100 KB each: the byte bound (8 MiB) keeps fewer than the per-change count.
    const big = uploadable({ ...report, results: Array.from({ length: 200 }, (_, i) => result(i, 'newly_rejected', 'x'.repeat(100_000))) });
    expect(big.report.results.length).toBe(83);
    expect(big.omitted).toBe(117);
  });

  it('reads a dataset\'s item count from the list, and null when it cannot', async () => {
    handler = (_req, _body, res) => res.writeHead(200).end('{"datasets":[{"id":"a","name":"a","itemCount":3},{"id":"ds_9","name":"b","itemCount":42}]}');
    expect(await datasetItemCount(collector, 'ds_9')).toBe(42);
    expect(await datasetItemCount(collector, 'zz')).toBeNull();
    handler = (_req, _body, res) => res.writeHead(500).end();
    expect(await datasetItemCount(collector, 'ds_9')).toBeNull();
  });
});

describe('NDJSON files', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gt-replay-ndjson-'));

  it('reads a file and stdin line by line', async () => {
    const file = path.join(dir, 'items.ndjson');
    writeFileSync(file, `${JSON.stringify(datasetItem(1))}\n\n${JSON.stringify(datasetItem(2))}`);
    expect((await collect(readItemsFile(file, Readable.from([])))).map((i) => i.id)).toEqual(['trace1:span1', 'trace2:span2']);
    const stdin = Readable.from([`${JSON.stringify(datasetItem(3))}\n`]);
    expect((await collect(readItemsFile('-', stdin))).map((i) => i.id)).toEqual(['trace3:span3']);
  });

  it('a missing file is an input error; bad lines of a file are line errors', async () => {
    const file = path.join(dir, 'bad.ndjson');
    writeFileSync(file, `${JSON.stringify(datasetItem(1))}\n{oops\n`);
    const got = await collect(readItemsFile(file, Readable.from([])));
    expect(got[1]).toMatchObject({ format: 'guardtrace.dataset-line-error', line: 2 });
    const missing = path.join(dir, 'nope.ndjson');
    const err = await rejection(collect(readItemsFile(missing, Readable.from([]))));
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toBe(`--file ${missing}: no such file`);
  });
});
