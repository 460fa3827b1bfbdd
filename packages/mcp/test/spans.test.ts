/**
 * The proxy's spans, in one process: a real MCP server (the official SDK's) as the upstream,
 * the proxy's own `createProxy` / `serveConnection` in front of it, the official client, linked
 * by the SDK's in-memory transport; spans go to an in-memory exporter through the same
 * processors the proxy installs.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.ts';
import { createProxy, serveConnection } from '../src/proxy.ts';
import { McpSpanEnricher } from '../src/telemetry.ts';

const TOOLS: Tool[] = [
  { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, annotations: { readOnlyHint: true } },
  { name: 'strict', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, annotations: { readOnlyHint: true } },
];

/** The upstream: echoes `text`; `strict` answers every call with a JSON-RPC InvalidParams error. */
async function upstreamServer() {
  const server = new Server({ name: 'upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, (req) => {
    if (req.params.name === 'strict') throw new McpError(ErrorCode.InvalidParams, 'n is out of range');
    return { content: [{ type: 'text', text: String(req.params.arguments?.text) }] };
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'guardtrace-mcp', version: '0' });
  await server.connect(a);
  await client.connect(b);
  return { client, tools: TOOLS, close: async () => { await client.close(); await server.close(); } };
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function proxied(config: Record<string, unknown> = {}) {
  const exporter = new InMemorySpanExporter();
  const enricher = new McpSpanEnricher();
  const provider = new BasicTracerProvider({ spanProcessors: [enricher, new SimpleSpanProcessor(exporter)] });
  const upstream = await upstreamServer();
  const proxy = createProxy(upstream, parseConfig(config, '(test)', process.cwd()), { tracer: provider.getTracer('test'), enricher, shutdown: () => provider.shutdown() });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  const conn = serveConnection(proxy, serverSide, { transport: 'pipe' });
  await conn.start();
  const client = new Client({ name: 'spans-agent', version: '1.0.0' });
  await client.connect(clientSide);
  closers.push(upstream.close, () => client.close(), conn.end);
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  const attemptsOf = (call: ReadableSpan) => spans().filter((s) => s.name === 'guardtrace.attempt' && s.parentSpanContext?.spanId === call.spanContext().spanId);
  return { client, conn, spans, attemptsOf };
}

describe('guardtrace-mcp spans', () => {
  it('a tools/call is the conventions\' SERVER span; each attempt carries its request id; the root gets the session keys', async () => {
    const p = await proxied();
    expect(await p.client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });
    await p.conn.end();

    const [call, ...more] = p.spans().filter((s) => s.name.startsWith('tools/call'));
    expect(more).toEqual([]);
    expect(call?.name).toBe('tools/call echo');
    expect(call?.kind).toBe(SpanKind.SERVER);
    expect(call?.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'network.transport': 'pipe',
      'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
    });
    expect(p.attemptsOf(call as ReadableSpan).map((a) => a.attributes['jsonrpc.request.id'])).toEqual([call?.attributes['jsonrpc.request.id']]);
    const root = p.spans().find((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent');
    expect(root?.attributes['network.transport']).toBe('pipe');
    expect(call?.parentSpanContext?.spanId).toBe(root?.spanContext().spanId);
  });

  it('every tools/call span carries the tool definition hash; the first call of a tool in a session its definition, the upstream schema in it', async () => {
    const p = await proxied();
    await p.client.callTool({ name: 'echo', arguments: { text: 'a' } });
    await p.client.callTool({ name: 'echo', arguments: { text: 'b' } });
    await p.conn.end();
    const calls = p.spans().filter((s) => s.name.startsWith('tools/call'));
    expect(calls).toHaveLength(2);
    const [h1, h2] = calls.map((c) => c.attributes['guardtrace.tool.definition.hash']);
    expect(h1).toMatch(/^[0-9a-f]{16}$/);
    expect(h2).toBe(h1);
    expect(JSON.parse(String(calls[0]?.attributes['guardtrace.tool.definition']))).toMatchObject({ tool: 'echo', schema: { properties: { text: { type: 'string' } } }, flags: { readOnly: true } });
    expect(calls[1]?.attributes['guardtrace.tool.definition']).toBeUndefined();
  });

  it('an unknown tool corrected by the next request stays one SERVER span named after the corrected tool; the attempts carry their own request ids', async () => {
    const p = await proxied({ autoRepair: false }); // the model corrects `ecoh` here, not the proxy
    expect(await p.client.callTool({ name: 'ecoh', arguments: { text: 'hi' } })).toMatchObject({ isError: true, _meta: { 'guardtrace/failureClass': 'unknown_tool' } });
    expect(await p.client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toMatchObject({ content: [{ text: 'hi' }] });
    await p.conn.end();

    const calls = p.spans().filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(calls.map((c) => [c.name, c.kind])).toEqual([['tools/call echo', SpanKind.SERVER]]);
    const ids = p.attemptsOf(calls[0] as ReadableSpan).map((a) => a.attributes['jsonrpc.request.id']);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(calls[0]?.attributes['jsonrpc.request.id']);
    expect(ids[1]).not.toBe(ids[0]);
  });

  it('auto-repairs a tool name and an argument name with one sound correction, and tells the client first', async () => {
    const p = await proxied();
    const r = await p.client.callTool({ name: 'ecoh', arguments: { text: 'hi' } });
    expect(r).toEqual({
      content: [{ type: 'text', text: 'Corrected and ran (use the corrected call next time):\n- called `echo`; `ecoh` does not exist' }, { type: 'text', text: 'hi' }],
      _meta: { 'guardtrace/corrections': [{ kind: 'tool_name', from: 'ecoh', to: 'echo' }] },
    });
    const named = await p.client.callTool({ name: 'echo', arguments: { txt: 'yo' } });
    expect(named.content).toEqual([
      { type: 'text', text: 'Corrected and ran (use the corrected call next time):\n- used argument `text` for `txt`; echo has no argument `txt`' },
      { type: 'text', text: 'yo' },
    ]);
    await p.conn.end();

    const calls = p.spans().filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(calls.map((c) => c.name)).toEqual(['tools/call echo', 'tools/call echo']);
    const attempts = calls.flatMap((c) => p.attemptsOf(c)).map((a) => [a.attributes['gen_ai.tool.name'], a.attributes['guardtrace.decision'], a.attributes['guardtrace.auto_repair.kind']]);
    expect(attempts).toEqual([
      ['ecoh', 'auto_repair', 'tool_name'],
      ['echo', 'proceed', undefined],
      ['echo', 'auto_repair', 'argument_name'],
      ['echo', 'proceed', undefined],
    ]);
  });

  it('does not auto-repair a tool that is neither read-only nor idempotent unless the config opts it in', async () => {
    const p = await proxied({ tools: { echo: { flags: { readOnly: false, idempotent: false } } } });
    expect(await p.client.callTool({ name: 'echo', arguments: { txt: 'yo' } })).toMatchObject({ isError: true, _meta: { 'guardtrace/failureClass': 'invalid_arguments' } });
    const q = await proxied({ tools: { echo: { flags: { readOnly: false, idempotent: false }, autoRepair: { argumentNames: true } } } });
    expect((await q.client.callTool({ name: 'echo', arguments: { txt: 'yo' } })).content).toHaveLength(2);
  });

  it('the tool records the upstream JSON-RPC error code on its attempt span (rpc.response.status_code)', async () => {
    const p = await proxied();
    expect(await p.client.callTool({ name: 'strict', arguments: { n: 1 } })).toMatchObject({ isError: true });
    await p.conn.end();

    const [call] = p.spans().filter((s) => s.name === 'tools/call strict');
    const attempts = p.attemptsOf(call as ReadableSpan);
    expect(attempts.length).toBeGreaterThan(0);
    for (const a of attempts) expect(a.attributes['rpc.response.status_code']).toBe(String(ErrorCode.InvalidParams));
  });

  it("an ajv schema error's instancePath is the failed guard span's JSON pointer", async () => {
    const p = await proxied();
    expect(await p.client.callTool({ name: 'echo', arguments: { text: 7, txt: 'hi' } })).toMatchObject({ isError: true, _meta: { 'guardtrace/failureClass': 'invalid_arguments' } });
    await p.conn.end();

    const failed = p.spans().filter((s) => s.attributes['gen_ai.guardrail.verdict'] === 'fail');
    expect(failed.map((g) => g.attributes['gen_ai.guardrail.name'])).toEqual(['schema']);
    expect([...((failed[0]?.attributes['guardtrace.guard.pointers'] ?? []) as string[])].sort()).toEqual(['/text', '/txt']);
  });
});
