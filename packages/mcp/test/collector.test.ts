/**
 * End to end: the official MCP client -> guardtrace-mcp (its bin, stdio and Streamable HTTP)
 * -> server-filesystem, with spans exported to the real collector (a child process on a port
 * it picks) and stored in a throwaway Postgres; the sessions are read back with the queries
 * the web app's session page runs (sessions, tool calls, raw spans of one session).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createApiKey, createPrisma, createProject } from '@guardtrace/db';
import { type TestDatabase, createTestDatabase } from '@guardtrace/db/dev';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PKG, connectStdio, proxyArgs, startHttpProxy, tempWorkspace } from './helpers.ts';

const COLLECTOR = path.resolve(PKG, '../../apps/collector');

let db: TestDatabase;
let prisma: ReturnType<typeof createPrisma>;
let collector: ChildProcess;
let endpoint: string;
let apiKey: string;
let projectId: string;
let dir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  prisma = createPrisma(db.url, { max: 2 });
  projectId = (await createProject(prisma, `mcp-e2e-${process.pid}`)).id;
  apiKey = (await createApiKey(prisma, projectId, 'mcp-e2e')).key;
  collector = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: COLLECTOR,
    env: { ...process.env, DATABASE_URL: db.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  endpoint = await new Promise<string>((resolve, reject) => {
    let out = '';
    collector.stdout!.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      const m = /collector listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    collector.once('exit', (code) => reject(new Error(`collector exited (${code}):\n${out}`)));
  });
  dir = tempWorkspace();
  writeFileSync(path.join(dir, 'readme.txt'), 'guarded\n');
}, 120_000);

afterAll(async () => {
  if (collector && collector.exitCode === null) {
    const exited = once(collector, 'exit');
    collector.kill('SIGTERM');
    await exited;
  }
  await prisma?.$disconnect();
  await db?.close();
});

/** Waits (bounded) until the collector has stored the ended session of this agent, then loads it as the session page does. */
async function storedSession(agentName: string) {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const session = await prisma.session.findFirst({ where: { projectId, agentName, outcome: { not: null } } });
    if (session) {
      const scope = { projectId, sessionId: session.id };
      const [toolCalls, spans] = await Promise.all([
        prisma.toolCall.findMany({ where: scope, orderBy: [{ startedAt: 'asc' }, { spanId: 'asc' }] }),
        prisma.span.findMany({ where: scope, orderBy: [{ startTime: 'asc' }, { spanId: 'asc' }] }),
      ]);
      return { session, toolCalls, spans };
    }
    if (performance.now() > deadline) throw new Error(`no ended session of ${agentName} was stored`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

type Attrs = Record<string, unknown>;
const attrs = (s: { attributes: unknown }) => s.attributes as Attrs;

describe('guardtrace-mcp sessions in the collector and the web app', () => {
  it('stdio: one connection is one session, its spans stored with the MCP attributes', async () => {
    const config = path.join(dir, 'stdio.json');
    writeFileSync(config, JSON.stringify({ collector: { endpoint, apiKey }, session: { agentName: 'mcp-e2e-stdio', userId: 'u_e2e' } }));
    const args = proxyArgs({ dir, log: path.join(dir, 'stdio.log') });
    args.splice(3, 0, '--config', config);
    const proxy = await connectStdio(args);
    await proxy.client.listTools();
    const ok = await proxy.client.callTool({ name: 'read_text_file', arguments: { path: path.join(dir, 'readme.txt') } });
    expect(ok.isError).toBeFalsy();
    const bad = await proxy.client.callTool({ name: 'get_file_info', arguments: {} });
    expect(bad.isError).toBe(true);
    await proxy.close();

    const { session, toolCalls, spans } = await storedSession('mcp-e2e-stdio');
    expect(session).toMatchObject({ userId: 'u_e2e', serviceName: 'guardtrace-mcp', toolCallCount: 2, failedAttemptCount: 1 });
    expect(toolCalls.map((t) => [t.toolName, t.outcome, t.failureClass, t.readOnly])).toEqual([
      ['read_text_file', 'success', null, true],
      ['get_file_info', 'rejected', 'invalid_arguments', true],
    ]);

    const call = spans.find((s) => s.name === 'tools/call read_text_file');
    expect(call, spans.map((s) => s.name).join(', ')).toBeDefined();
    // the MCP conventions' server span, as stored: every tools/call span is SERVER (OTLP kind 2)
    const calls = spans.filter((s) => s.name.startsWith('tools/call '));
    expect(calls.map((s) => [s.name, s.kind])).toEqual([['tools/call read_text_file', 2], ['tools/call get_file_info', 2]]);
    expect(attrs(call!)).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_text_file',
      'network.transport': 'pipe',
      'mcp.protocol.version': LATEST_PROTOCOL_VERSION,
      'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
    });
    expect(attrs(call!)['mcp.session.id']).toBeUndefined(); // stdio has no MCP session id
    const attempt = spans.find((s) => s.name === 'guardtrace.attempt' && s.parentSpanId === call!.spanId);
    expect(attrs(attempt!)['jsonrpc.request.id']).toBe(attrs(call!)['jsonrpc.request.id']);
    const list = spans.find((s) => s.name === 'tools/list');
    expect(list?.kind).toBe(2); // SERVER
    expect(attrs(list!)).toMatchObject({ 'mcp.method.name': 'tools/list', 'network.transport': 'pipe' });
    const root = spans.find((s) => attrs(s)['gen_ai.operation.name'] === 'invoke_agent');
    expect(list?.parentSpanId).toBe(root?.spanId);
  }, 90_000);

  it('Streamable HTTP: the Mcp-Session-Id is the session, stored with mcp.session.id', async () => {
    const proxy = await startHttpProxy(proxyArgs({ dir, log: path.join(dir, 'http.log'), extra: ['--http'], config: { session: { agentName: 'mcp-e2e-http' } } }), {
      GUARDTRACE_ENDPOINT: endpoint,
      GUARDTRACE_API_KEY: apiKey,
    });
    const transport = new StreamableHTTPClientTransport(proxy.url);
    const client = new Client({ name: 'http-agent', version: '1.0.0' });
    await client.connect(transport);
    const sid = transport.sessionId!;
    await client.callTool({ name: 'list_directory', arguments: { path: dir } });
    await transport.terminateSession();
    await client.close();
    expect(await proxy.stop()).toBe(0);

    const { session, spans } = await storedSession('mcp-e2e-http');
    expect(session.id).toBe(`mcp_${sid}`);
    const call = spans.find((s) => s.name === 'tools/call list_directory');
    expect(call?.kind).toBe(2); // SERVER
    expect(attrs(call!)).toMatchObject({ 'mcp.session.id': sid, 'network.transport': 'tcp', 'mcp.method.name': 'tools/call' });
  }, 90_000);
});
