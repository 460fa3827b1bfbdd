/**
 * `pnpm --filter @guardtrace/mcp bench`: what the proxy adds to a tools/call. The official
 * client calls read_text_file on server-filesystem directly and through guardtrace-mcp (both
 * over stdio, both real processes), alternating in rounds in one run; writes bench/results.json
 * for docs/benchmarks.md.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const CALLS = 300;
const ROUNDS = 7;
const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const fsServer = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist/index.js');
const bin = path.join(here, '../src/bin.ts');

const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'gt-mcp-bench-')));
const file = path.join(dir, 'a.txt');
writeFileSync(file, 'x'.repeat(1024));
// no collector: the proxy's guards and policy only (span export is the SDK benchmark's subject)
const env = { ...(process.env as Record<string, string>), GUARDTRACE_ENDPOINT: '', GUARDTRACE_API_KEY: '', OTEL_EXPORTER_OTLP_ENDPOINT: '' };

async function connect(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, env, stderr: 'ignore' }));
  return client;
}

const direct = await connect(process.execPath, [fsServer, dir]);
const proxied = await connect(process.execPath, ['--import', 'tsx', bin, '--', process.execPath, fsServer, dir]);

/** Mean µs per call of `n` sequential calls. */
async function round(client: Client, args: Record<string, unknown>, n: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i++) await client.callTool({ name: 'read_text_file', arguments: args });
  return ((performance.now() - start) * 1000) / n;
}
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

const valid = { path: file };
const invalid = { path: file, head: 'ten' };
// warm-up: JIT, ajv compilation, file cache
await round(direct, valid, 50);
await round(proxied, valid, 50);
await round(proxied, invalid, 50);
const d: number[] = [];
const p: number[] = [];
const r: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  d.push(await round(direct, valid, CALLS));
  p.push(await round(proxied, valid, CALLS));
  r.push(await round(proxied, invalid, CALLS));
}
await direct.close();
await proxied.close();
rmSync(dir, { recursive: true, force: true });

const dUs = median(d);
const pUs = median(p);
const rUs = median(r);
const load = os.loadavg()[0]!.toFixed(1);
const rows = [
  { benchmark: 'tools/call', metric: 'direct: client -> server-filesystem (µs/call)', value: dUs.toFixed(0), target: 'reference', pass: true },
  { benchmark: 'tools/call', metric: 'through guardtrace-mcp (µs/call)', value: pUs.toFixed(0), target: 'reference', pass: true },
  { benchmark: 'tools/call', metric: 'added by the proxy (µs/call)', value: (pUs - dUs).toFixed(0), target: 'reference', pass: true },
  { benchmark: 'tools/call', metric: 'proxied / direct', value: `${(pUs / dUs).toFixed(2)}x`, target: '<= 2x', pass: pUs / dUs <= 2 },
  { benchmark: 'tools/call', metric: 'schema-invalid call, rejected by the proxy (µs/call)', value: rUs.toFixed(0), target: '< direct call', pass: rUs < dUs },
];
const result = {
  method: `The official MCP client calls read_text_file (1 KiB file) on @modelcontextprotocol/server-filesystem over stdio, directly and through guardtrace-mcp (its bin under tsx, also stdio; no collector, so guards and policy without span export), ${CALLS} sequential calls per round, ${ROUNDS} rounds after a warm-up, alternating direct / proxied / proxied-invalid in each round; median of the round means. The invalid call (head: "ten") is rejected by the proxy's schema guard and never reaches the server. 1-minute load average at the end: ${load} (the machine is shared).`,
  date: new Date().toISOString(),
  machine: `${os.cpus().length} x ${os.cpus()[0]?.model.split(' ').slice(0, 2).join(' ') ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  rows,
};
writeFileSync(path.join(here, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
console.table(rows.map(({ metric, value }) => ({ metric, value })));
console.log(`wrote ${path.join(here, 'results.json')}`);
