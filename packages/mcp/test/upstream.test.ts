/**
 * The official MCP client -> guardtrace-mcp (its bin, stdio) -> a small McpServer of the MCP
 * SDK (test/fixtures/upstream-server.mjs) through the tap, which logs what reached it: request
 * `_meta` and progress notifications pass the proxy both ways.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.ts';
import { connectUpstream, createProxy, serveConnection } from '../src/proxy.ts';
import { McpSpanEnricher } from '../src/telemetry.ts';
import { FIXTURE_SERVER, type StdioProxy, connectStdio, proxyArgs, text, toolCallsUpstream } from './helpers.ts';

let dir: string;
let log: string;
let proxy: StdioProxy;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gt-mcp-up-'));
  log = path.join(dir, 'upstream.log');
  // a schema failure may be corrected up to 5 times, so the rejection budget (2, the default) is what stops a call
  const config = { policy: { invalid_arguments: { retries: 5 } }, budgets: { maxAttemptsPerCall: 5 } };
  proxy = await connectStdio(proxyArgs({ dir, log, config, server: [FIXTURE_SERVER] }));
}, 60_000);

afterAll(async () => {
  await proxy?.close();
});

describe('guardtrace-mcp passes the request _meta and progress through', () => {
  it("relays the upstream's progress to the client's progress token, and the upstream sees the client's other _meta keys", async () => {
    const progress: Progress[] = [];
    const r = await proxy.client.callTool(
      { name: 'count_to', arguments: { n: 3 }, _meta: { 'acme.dev/trace': 'run-42', 'acme.dev/user': { id: 7 } } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    expect(r.isError).toBeFalsy();
    expect(progress).toEqual([
      { progress: 1, total: 3, message: 'step 1 of 3' },
      { progress: 2, total: 3, message: 'step 2 of 3' },
      { progress: 3, total: 3, message: 'step 3 of 3' },
    ]);
    const [call] = toolCallsUpstream(log).filter((m) => m.params?.name === 'count_to');
    const meta = call?.params?._meta ?? {};
    expect(meta['acme.dev/trace']).toBe('run-42');
    expect(meta['acme.dev/user']).toEqual({ id: 7 });
    // the upstream got a progress token (the proxy's own), and no idempotency key for a read-only tool
    expect(meta.progressToken).toBeDefined();
    expect(meta['guardtrace/idempotencyKey']).toBeUndefined();
    // the server answers with what it got (its progressToken is redacted on the way back: the name says token)
    expect(JSON.parse(text(r)).meta).toMatchObject({ 'acme.dev/trace': 'run-42', 'acme.dev/user': { id: 7 } });
  });

  it("merges the idempotency key of a side-effecting call into the client's _meta", async () => {
    const r = await proxy.client.callTool({ name: 'append_line', arguments: { line: 'one' }, _meta: { 'acme.dev/trace': 'run-43' } });
    expect(r.isError).toBeFalsy();
    const [call] = toolCallsUpstream(log).filter((m) => m.params?.name === 'append_line');
    expect(call?.params?._meta?.['acme.dev/trace']).toBe('run-43');
    expect(call?.params?._meta?.['guardtrace/idempotencyKey']).toMatch(/^idk_[0-9a-f]+$/);
    expect(call?.params?._meta?.progressToken).toBeUndefined();
  });

  it('sends no _meta when the client sent none to a read-only tool', async () => {
    const r = await proxy.client.callTool({ name: 'count_to', arguments: { n: 1 } });
    expect(r.isError).toBeFalsy();
    const calls = toolCallsUpstream(log).filter((m) => m.params?.name === 'count_to');
    expect(calls.at(-1)?.params?._meta).toBeUndefined();
  });
});

describe('guardtrace-mcp counts rejections per logical call', () => {
  const decision = (r: unknown) => (r as { _meta?: Record<string, unknown> })._meta?.['guardtrace/decision'];

  it('answers three rejected calls of three different tools in one connection with feedback, and escalates one call rejected past the budget', async () => {
    for (const name of ['set_alpha', 'set_beta', 'set_gamma']) {
      const r = await proxy.client.callTool({ name, arguments: { n: 'one' } });
      expect(r.isError).toBe(true);
      expect(decision(r)).toBe('reject_with_feedback');
      expect(text(r)).toContain('Field "n": expected number');
    }
    // set_alpha's corrections continue its call: the second rejection is answered, the third escalates
    expect(decision(await proxy.client.callTool({ name: 'set_alpha', arguments: { n: 'two' } }))).toBe('reject_with_feedback');
    expect(decision(await proxy.client.callTool({ name: 'set_alpha', arguments: { n: 'three' } }))).toBe('escalate_human');
    // set_beta's call was not touched by set_alpha's budget
    const ok = await proxy.client.callTool({ name: 'set_beta', arguments: { n: 2 } });
    expect(ok.isError).toBeFalsy();
    expect(text(ok)).toBe('beta = 2');
    expect(toolCallsUpstream(log).filter((m) => m.params?.name?.startsWith('set_')).map((m) => m.params?.arguments)).toEqual([{ n: 2 }]);
  });
});

describe('guardtrace-mcp redacts secrets in successful results', () => {
  it('returns the result redacted as the SDK integrations do, and no span carries the secrets', async () => {
    const AWS = 'AKIAZ7QH3KXT5MBN2VWD';
    const OPENAI = 'sk-proj-Qm8vT2xL9pR4sW7yK1nB3cF6hJ0dG5aE8uI2oZ4vX7';
    // in one process, for the spans: the proxy's own createProxy in front of the fixture server over stdio
    const exporter = new InMemorySpanExporter();
    const enricher = new McpSpanEnricher();
    const provider = new BasicTracerProvider({ spanProcessors: [enricher, new SimpleSpanProcessor(exporter)] });
    const upstream = await connectUpstream(process.execPath, [FIXTURE_SERVER]);
    const gp = createProxy(upstream, parseConfig({}, '(test)', process.cwd()), { tracer: provider.getTracer('test'), enricher, shutdown: () => provider.shutdown() });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    const conn = serveConnection(gp, serverSide, { transport: 'pipe' });
    await conn.start();
    const client = new Client({ name: 'redaction-agent', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const r = (await client.callTool({ name: 'show_config', arguments: {} })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      const shown = JSON.stringify(r);
      expect(shown).not.toContain(AWS);
      expect(shown).not.toContain(OPENAI);
      // what is not a secret is kept, and the marks say what was there
      expect(text(r)).toContain('region=eu-west-1');
      expect(text(r)).toContain('replicas=3');
      expect(text(r)).toContain('[REDACTED');
      expect(r.structuredContent).toMatchObject({ region: 'eu-west-1', openaiKey: expect.stringContaining('[REDACTED') });
      await conn.end();
      const spans = JSON.stringify(exporter.getFinishedSpans().map((sp) => sp.attributes));
      expect(spans).toContain('region=eu-west-1');
      expect(spans).not.toContain(AWS);
      expect(spans).not.toContain(OPENAI);
    } finally {
      await client.close();
      await upstream.close();
    }
  });
});
