/** Starts the real proxy through its package.json bin, in front of the real filesystem server (through the tap). */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const PKG = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(path.join(PKG, 'package.json'), 'utf8')) as { bin: Record<string, string> };
/** The bin as package.json declares it (TypeScript in the workspace, run through tsx). */
export const BIN = path.join(PKG, manifest.bin['guardtrace-mcp']!);
const TAP = path.join(PKG, 'test/fixtures/tap.mjs');
/** The small MCP SDK server of test/fixtures (progress, secrets, numeric-argument tools). */
export const FIXTURE_SERVER = path.join(PKG, 'test/fixtures/upstream-server.mjs');
/** The filesystem server's own bin file. */
export const FS_SERVER = (() => {
  const require = createRequire(path.join(PKG, 'package.json'));
  const pkgFile = require.resolve('@modelcontextprotocol/server-filesystem/package.json');
  const fsManifest = JSON.parse(readFileSync(pkgFile, 'utf8')) as { bin: Record<string, string> };
  return path.join(path.dirname(pkgFile), fsManifest.bin['mcp-server-filesystem']!);
})();

/** A temp folder (real path: macOS and some CI tmp dirs are symlinks) with a few files. */
export function tempWorkspace(): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'gt-mcp-')));
  chmodSync(dir, 0o755);
  return dir;
}

/** The JSON-RPC messages the upstream server received. */
function upstreamLog(file: string): { method?: string; params?: { name?: string; arguments?: unknown; _meta?: Record<string, unknown> } }[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

export function toolCallsUpstream(file: string) {
  return upstreamLog(file).filter((m) => m.method === 'tools/call');
}

/** The proxy's command line: bin, its options, then `--` and the tapped upstream (default: the filesystem server on `dir`). */
export function proxyArgs(opts: { config?: object; dir: string; log: string; extra?: string[]; server?: string[] }): string[] {
  const args = ['--import', 'tsx', BIN, ...(opts.extra ?? [])];
  if (opts.config) {
    const file = path.join(path.dirname(opts.log), `config-${path.basename(opts.log)}.json`);
    writeFileSync(file, JSON.stringify(opts.config));
    args.push('--config', file);
  }
  return [...args, '--', process.execPath, TAP, opts.log, process.execPath, ...(opts.server ?? [FS_SERVER, opts.dir])];
}

export interface StdioProxy {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

/** The official MCP client, connected to the proxy spawned as a child process over stdio. */
export async function connectStdio(args: string[], env: Record<string, string> = {}): Promise<StdioProxy> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    cwd: PKG,
    env: { ...(process.env as Record<string, string>), GUARDTRACE_ENDPOINT: '', GUARDTRACE_API_KEY: '', OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_HEADERS: '', ...env },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => {
    err += d.toString('utf8');
  });
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (e) {
    throw new Error(`proxy did not start: ${e instanceof Error ? e.message : String(e)}\n${err}`);
  }
  return { client, stderr: () => err, close: () => client.close() };
}

export function text(r: unknown): string {
  return (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

export interface HttpProxy {
  url: URL;
  child: ChildProcess;
  stderr: () => string;
  /** SIGTERM, then the exit code once the proxy has ended its sessions and flushed. */
  stop(): Promise<number | null>;
}

/** The proxy's bin with `--http --port 0`, as a child process; resolves once it prints its URL. */
export async function startHttpProxy(args: string[], env: Record<string, string> = {}): Promise<HttpProxy> {
  const child = spawn(process.execPath, args, {
    cwd: PKG,
    env: { ...process.env, GUARDTRACE_ENDPOINT: '', GUARDTRACE_API_KEY: '', OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_HEADERS: '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString('utf8');
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) resolve(new URL(m[1]!));
    });
    child.once('exit', (code) => reject(new Error(`proxy exited (${code}) before listening:\n${err}`)));
  });
  return {
    url,
    child,
    stderr: () => err,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}
