/**
 * The official MCP client over Streamable HTTP -> guardtrace-mcp --http (its bin, a child
 * process, port 0) -> server-filesystem. Each Mcp-Session-Id is a session of its own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpProxy, proxyArgs, startHttpProxy, tempWorkspace, text, toolCallsUpstream } from './helpers.ts';

let dir: string;
let log: string;
let proxy: HttpProxy;

async function connect(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(proxy.url);
  const client = new Client({ name: 'http-agent', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

beforeAll(async () => {
  dir = tempWorkspace();
  mkdirSync(path.join(dir, 'src'));
  writeFileSync(path.join(dir, 'src/a.txt'), 'alpha\n');
  log = path.join(dir, 'upstream.log');
  proxy = await startHttpProxy(proxyArgs({ dir, log, extra: ['--http', '--port', '0'], config: { roots: [dir] } }));
}, 60_000);

afterAll(async () => {
  await proxy?.stop();
});

describe('guardtrace-mcp over Streamable HTTP', () => {
  it('serves /mcp on the port it picked, and answers other paths with a JSON-RPC error', async () => {
    expect(proxy.url.pathname).toBe('/mcp');
    expect(Number(proxy.url.port)).toBeGreaterThan(0);
    const res = await fetch(new URL('/other', proxy.url));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { message: expect.stringContaining('/mcp') } });
  });

  it('refuses requests addressed to another name, or sent from a web page elsewhere (DNS rebinding)', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const post = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify(init);
        const req = request(proxy.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(body);
      });
    expect(await post({ host: `attacker.example:${proxy.url.port}` })).toBe(403);
    expect(await post({ origin: 'https://attacker.example' })).toBe(403);
    expect(await post({ origin: `http://localhost:${proxy.url.port}` })).toBe(200);
  });

  it('gives each client its own Mcp-Session-Id, and guards and forwards calls in each', async () => {
    const a = await connect();
    const b = await connect();
    expect(a.transport.sessionId).toBeTruthy();
    expect(b.transport.sessionId).toBeTruthy();
    expect(a.transport.sessionId).not.toBe(b.transport.sessionId);

    const tools = await a.client.listTools();
    expect(tools.tools.find((t) => t.name === 'move_file')?.annotations).toMatchObject({ destructiveHint: true, idempotentHint: false });

    const ok = await b.client.callTool({ name: 'read_text_file', arguments: { path: path.join(dir, 'src/a.txt') } });
    expect(text(ok)).toContain('alpha');

    const before = toolCallsUpstream(log).length;
    const bad = await a.client.callTool({ name: 'list_directory', arguments: { path: path.join(dir, 'src'), depth: 2 } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('Unexpected field: "depth"');
    expect(bad._meta?.['guardtrace/failureClass']).toBe('invalid_arguments');
    expect(toolCallsUpstream(log).length).toBe(before);

    // a DELETE ends the session: its id is no longer served
    await a.transport.terminateSession();
    const gone = await fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': a.transport.sessionId ?? '' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(gone.status).toBe(404);
    await a.client.close();
    await b.client.close();
  });

  it('exits cleanly on SIGTERM', async () => {
    expect(await proxy.stop()).toBe(0);
  });
});
