/**
 * `guardtrace-replay` end to end in this process: calls recorded as spans under v1 of a tools
 * module (read_file may read src/ and docs/), saved as dataset items, replayed by the command
 * line against the module as it is now (docs/ removed), from a file and from a real HTTP server
 * standing in for the collector; reports, exit codes and the upload checked. The last test runs
 * the bin itself as a child process.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { DatasetItem, ReplayRunReport } from '@guardtrace/semconv';
import { XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemsFromSpans } from '../../test/dataset-items.ts';
import { traced } from '../../test/helpers.ts';
import { registerTools } from '../../test/replay-tools.fixture.ts';
import { type Io, main } from './main.ts';

const SDK = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TOOLS = path.join(SDK, 'test/replay-tools.fixture.ts');
const dir = mkdtempSync(path.join(tmpdir(), 'gt-replay-cli-'));
const CALLS: [string, Record<string, string>][] = [
  ['read_file', { path: 'src/a.ts' }],
  ['read_file', { path: 'docs/b.md' }],
  ['read_file', { path: '../etc/passwd' }],
  ['write_file', { path: 'src/new.ts', text: 'x' }],
];

let items: DatasetItem[];
let ndjson: string;

/** Production under v1: each call in a session of its own, recorded as spans, saved as items. */
async function record(): Promise<DatasetItem[]> {
  const { gt, spans } = traced();
  registerTools(gt, ['src', 'docs'], true);
  let i = 0;
  for (const [tool, args] of CALLS) {
    const s = gt.session({ id: `sess-${i++}`, agentName: 'agent' });
    await s.callTool(tool, args);
    await s.end();
  }
  return itemsFromSpans(spans());
}

function run(argv: string[], opts: { tty?: boolean; env?: Record<string, string> } = {}) {
  let stdout = '';
  let stderr = '';
  let t = 0;
  const io: Io = {
    argv,
    env: opts.env ?? {},
    cwd: dir,
    stdin: Readable.from([]),
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s), isTTY: opts.tty ?? false, columns: 100 },
    now: () => (t += 40),
  };
  return main(io).then((code) => ({ code, stdout, stderr }));
}

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
let server: Server;
let handler: Handler;
let endpoint: string;
const requests: { method: string; url: string; auth: string | undefined; body: string }[] = [];

beforeAll(async () => {
  items = await record();
  ndjson = `${items.map((x) => JSON.stringify(x)).join('\n')}\n`;
  writeFileSync(path.join(dir, 'items.ndjson'), ndjson);
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      requests.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, body });
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('guardtrace-replay --file', () => {
  it('reports the call that used the removed folder as newly rejected, writes the three reports, and exits 1 on --fail-on', async () => {
    const r = await run(['--tools', TOOLS, '--file', 'items.ndjson', '--fail-on', 'newly-rejected,newly-allowed', '--label', 'drop docs', '--json', 'out/r.json', '--markdown', 'out/r.md', '--junit', 'out/r.xml', '--web-url', 'https://gt.example.com']);
    expect(r.stderr).toContain('guardtrace-replay: replayed 4 calls (4 attempts) in ');
    // the rejected path's feedback names the allowed folders, which changed too
    expect(r.stderr).toContain(': 1 newly rejected, 1 feedback changed\n');
    expect(r.stderr).toContain('guardtrace-replay: failing: 1 newly rejected (--fail-on newly-rejected,newly-allowed)\n');
    expect(r.code).toBe(1);
    const report = JSON.parse(readFileSync(path.join(dir, 'out/r.json'), 'utf8')) as ReplayRunReport;
    expect(report).toMatchObject({ format: 'guardtrace.replay-run/v1', datasetId: null, label: 'drop docs', options: { execute: 'none', failOn: ['newly_rejected', 'newly_allowed'] } });
    expect(report.summary).toEqual({ calls: 4, attempts: 4, unchanged: 2, newly_rejected: 1, newly_allowed: 0, class_changed: 0, feedback_changed: 1, not_replayed: 0 });
    const docs = items.find((x) => JSON.stringify(x.attempts[0]?.arguments) === '{"path":"docs/b.md"}')!;
    expect(report.results.map((x) => x.change)).toEqual(['newly_rejected', 'feedback_changed']);
    expect(report.results[0]).toMatchObject({ itemId: docs.id, change: 'newly_rejected', tool: 'read_file', stepPath: docs.stepPath, recorded: { allowed: true } });
    expect(report.results[0]!.now).toMatchObject({ allowed: false, failureClass: 'guard_violation', feedback: expect.stringContaining('path "docs/b.md" is outside the allowed folders: src') });

    expect(r.stdout).toContain('Guard replay of 4 calls (4 attempts), drop docs');
    expect(r.stdout).toMatch(/\n {2}Newly rejected +1 {2}FAIL\n/);
    expect(r.stdout).toMatch(/\n {2}Newly allowed +0 {2}ok\n/);
    const md = readFileSync(path.join(dir, 'out/r.md'), 'utf8');
    expect(md).toContain('## Guard replay: 2 of 4 attempts changed ❌');
    expect(md).toContain(`(https://gt.example.com${docs.stepPath})`);
    const xml = readFileSync(path.join(dir, 'out/r.xml'), 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toMatch(/<testsuites name="guardtrace-replay" tests="3" failures="1"/);
  });

  it('exits 0 without --fail-on, and a TTY gets a progress bar instead of the summary line', async () => {
    const r = await run(['--tools', TOOLS, '--file', 'items.ndjson'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('replaying [');
    expect(r.stderr).toContain('/4 calls');
    expect(r.stderr).not.toContain('guardtrace-replay: replayed');
  });

  it('bad lines are reported as not replayed and named on stderr; the others replay', async () => {
    writeFileSync(path.join(dir, 'mixed.ndjson'), `${ndjson}{oops\n`);
    const r = await run(['--tools', TOOLS, '--file', 'mixed.ndjson', '--fail-on', 'not-replayed', '--junit', 'mixed.xml']);
    expect(readFileSync(path.join(dir, 'mixed.xml'), 'utf8')).toContain('<testcase classname="guardtrace-replay.dataset" name="line:5: not replayed" time="0">');
    expect(r.stderr).toContain(`guardtrace-replay: 1 of 5 lines of mixed.ndjson are not dataset items (reported as not replayed):\n  ${path.join(dir, 'mixed.ndjson')}:5: not valid JSON`);
    expect(r.code).toBe(1);
  });

  // Linux only: /proc takes no new directory (Node 20's recursive mkdirSync never returned there).
  it.runIf(process.platform === 'linux')('a report path no directory can be made for exits 2 naming it, instead of hanging', async () => {
    const r = await run(['--tools', TOOLS, '--file', 'items.ndjson', '--json', '/proc/nope/r.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--json /proc/nope/r.json: cannot write the report (ENOENT: no such file or directory, mkdir '/proc/nope')");
  });

  it('input errors exit 2 saying what and where', async () => {
    writeFileSync(path.join(dir, 'empty.ndjson'), '\n');
    writeFileSync(path.join(dir, 'junk.ndjson'), 'oops\n[1]\n');
    const cases: [string[], string][] = [
      [['--tools', TOOLS, '--file', 'nope.ndjson'], `guardtrace-replay: --file ${path.join(dir, 'nope.ndjson')}: no such file\n`],
      [['--tools', TOOLS, '--file', 'empty.ndjson'], 'guardtrace-replay: empty.ndjson: no dataset items: nothing was replayed (expected NDJSON, one dataset item per line)\n'],
      [['--tools', TOOLS, '--file', 'junk.ndjson'], 'guardtrace-replay: junk.ndjson: none of its 2 lines is a dataset item\n'],
      [['--tools', 'missing.mjs', '--file', 'items.ndjson'], `guardtrace-replay: --tools missing.mjs: no such file (looked for ${path.join(dir, 'missing.mjs')})\n`],
      [['--tools', TOOLS, '--file', 'items.ndjson', '--fail-on', 'newly'], 'guardtrace-replay: --fail-on: unknown change "newly": expected a comma-separated list of newly-rejected, newly-allowed, class-changed, feedback-changed, not-replayed\nRun "guardtrace-replay --help" for the options.\n'],
    ];
    for (const [argv, message] of cases) {
      const r = await run(argv);
      expect(r.stderr.endsWith(message), `${argv.join(' ')}\n${r.stderr}`).toBe(true);
      expect(r.code).toBe(2);
    }
  });
});

describe('guardtrace-replay --dataset, --upload, dataset create (against an HTTP server)', () => {
  it('streams the dataset with the key, replays it, and uploads the report', async () => {
    handler = (req, _body, res) => {
      if (req.method === 'GET' && req.url === '/v1/datasets/ds1') res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(ndjson);
      else if (req.method === 'POST' && req.url === '/v1/datasets/ds1/runs') res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"run_7","url":"/datasets/ds1/runs/run_7"}');
      else res.writeHead(404).end('{"code":5,"message":"no such route"}');
    };
    requests.length = 0;
    const r = await run(['--tools', TOOLS, '--dataset', 'ds1', '--upload', '--json', 'up.json', '--web-url', 'https://gt.example.com'], { env: { GUARDTRACE_ENDPOINT: endpoint, GUARDTRACE_API_KEY: 'gt_k1' } });
    expect(r.stderr).toContain('guardtrace-replay: uploaded run run_7: https://gt.example.com/datasets/ds1/runs/run_7\n');
    expect(r.code).toBe(0);
    expect(requests.map((q) => [q.method, q.url, q.auth])).toEqual([
      ['GET', '/v1/datasets/ds1', 'Bearer gt_k1'],
      ['POST', '/v1/datasets/ds1/runs', 'Bearer gt_k1'],
    ]);
    const uploaded = JSON.parse(requests[1]!.body) as ReplayRunReport;
    expect(uploaded).toEqual(JSON.parse(readFileSync(path.join(dir, 'up.json'), 'utf8')));
    expect(uploaded).toMatchObject({ datasetId: 'ds1', summary: { calls: 4, newly_rejected: 1 } });
  });

  it('a dataset the collector does not have or has not finished saving: exit 2, saying so; a collector that is down: exit 3 with the URL', async () => {
    handler = (_req, _body, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":5,"message":"dataset not found"}');
    const missing = await run(['--tools', TOOLS, '--dataset', 'nope', '--endpoint', endpoint, '--key', 'k']);
    expect(missing.stderr).toContain(`guardtrace-replay: dataset "nope" not found: GET ${endpoint}/v1/datasets/nope answered 404 (dataset not found)`);
    expect(missing.code).toBe(2);
    handler = (_req, _body, res) => res.writeHead(409, { 'content-type': 'application/json' }).end('{"code":9,"message":"dataset \\"x\\" is still being saved (10 calls so far): try again when it is ready"}');
    const saving = await run(['--tools', TOOLS, '--dataset', 'ds1', '--endpoint', endpoint, '--key', 'k']);
    expect(saving.stderr).toContain('is still being saved (10 calls so far)');
    expect(saving.code).toBe(2);
    const down = createServer();
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    const port = (down.address() as AddressInfo).port;
    await new Promise<void>((resolve) => down.close(() => resolve()));
    const r = await run(['--tools', TOOLS, '--dataset', 'ds1', '--endpoint', `http://127.0.0.1:${port}`, '--key', 'k']);
    expect(r.stderr).toBe(`guardtrace-replay: GET http://127.0.0.1:${port}/v1/datasets/ds1 failed: ECONNREFUSED (is the collector running at http://127.0.0.1:${port}?)\n`);
    expect(r.code).toBe(3);
  });

  it('a failed upload still writes the reports, says why, and exits 3', async () => {
    handler = (req, _body, res) => {
      if (req.method === 'GET') res.writeHead(200).end(ndjson);
      else res.writeHead(400, { 'content-type': 'application/json' }).end('{"code":3,"message":"summary.calls: expected a number"}');
    };
    const r = await run(['--tools', TOOLS, '--dataset', 'ds1', '--upload', '--json', 'failed-upload.json', '--endpoint', endpoint, '--key', 'k']);
    expect(r.stderr).toContain(`guardtrace-replay: the upload failed (the reports are written): POST ${endpoint}/v1/datasets/ds1/runs answered 400: summary.calls: expected a number\n`);
    expect(readFileSync(path.join(dir, 'failed-upload.json'), 'utf8')).toContain('"newly_rejected": 1');
    expect(r.code).toBe(3);
  });

  it('dataset create prints the id alone on stdout', async () => {
    handler = (_req, _body, res) => res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"ds_new","name":"docs reads","itemCount":12}');
    requests.length = 0;
    const r = await run(['dataset', 'create', '--name', 'docs reads', '--query', 'tool:read_file', '--endpoint', endpoint, '--key', 'k']);
    expect(r).toEqual({ code: 0, stdout: 'ds_new\n', stderr: 'guardtrace-replay: created dataset "docs reads" with 12 items from "tool:read_file"\n' });
    expect(JSON.parse(requests[0]!.body)).toEqual({ name: 'docs reads', query: 'tool:read_file' });
  });

  it('dataset create whose query matches no call: exit 2, saying so, and no id on stdout for the replay to run on', async () => {
    handler = (_req, _body, res) => res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"ds_empty","name":"typo","itemCount":0}');
    const r = await run(['dataset', 'create', '--name', 'typo', '--query', 'tool:raed_file', '--endpoint', endpoint, '--key', 'k']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'guardtrace-replay: the query "tool:raed_file" matched no tool call: dataset "typo" (ds_empty) was created empty and has nothing to replay; try the query in the web app\'s session search first\n',
    });
  });

  it('dataset create with a query the collector refuses (400): exit 2, an input error, with its message', async () => {
    // the collector's answer to a bad query, as apps/collector answers it
    handler = (_req, _body, res) => res.writeHead(400, { 'content-type': 'application/json' }).end('{"code":3,"message":"Bad query: “tool:” needs a value (at column 1, “tool:”)"}');
    const r = await run(['dataset', 'create', '--name', 'x', '--query', 'tool:', '--endpoint', endpoint, '--key', 'k']);
    expect(r.stderr).toBe(`guardtrace-replay: POST ${endpoint}/v1/datasets answered 400: Bad query: “tool:” needs a value (at column 1, “tool:”)\n`);
    expect(r.code).toBe(2);
  });
});

describe('the bin', () => {
  it('runs as a process: --help exits 0, a replay with --fail-on exits 1', () => {
    const bin = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', path.join(SDK, 'src/cli/bin.ts'), ...args], { cwd: SDK, encoding: 'utf8', timeout: 60_000 });
    const help = bin(['--help']);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage:\n  guardtrace-replay --tools <module>');
    const r = bin(['--tools', TOOLS, '--file', path.join(dir, 'items.ndjson'), '--fail-on', 'newly-rejected']);
    expect(r.stdout).toMatch(/Newly rejected +1 {2}FAIL/);
    expect(r.status, r.stderr).toBe(1);
  }, 60_000);
});
