/**
 * The official MCP client -> guardtrace-mcp (its bin, a child process, stdio) -> the official
 * filesystem server on a temp folder. The tap between proxy and server logs what reached it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, FS_SERVER, proxyArgs, type StdioProxy, tempWorkspace, text, toolCallsUpstream } from './helpers.ts';

let dir: string;
let ws: string;
let log: string;
let proxy: StdioProxy;

beforeAll(async () => {
  dir = tempWorkspace();
  ws = path.join(dir, 'workspace');
  mkdirSync(ws);
  writeFileSync(path.join(ws, 'notes.txt'), 'hello from the workspace\n');
  writeFileSync(path.join(dir, 'secret.txt'), 'outside the roots\n');
  log = path.join(dir, 'upstream.log');
  const config = {
    session: { userId: 'u_mcp' },
    // the server may touch all of dir; the proxy's config narrows it to dir/workspace
    roots: [ws],
    tools: {
      write_file: { preconditions: [{ name: 'no_env_files', argument: 'path', notMatches: '(^|/)\\.env$', message: 'Never write .env files.' }] },
    },
  };
  proxy = await connectStdio(proxyArgs({ config, dir, log }));
}, 60_000);

afterAll(async () => {
  await proxy?.close();
});

describe('guardtrace-mcp over stdio in front of server-filesystem', () => {
  it('lists the upstream tools unchanged: names, JSON Schemas, annotations', async () => {
    const direct = new Client({ name: 'direct', version: '1.0.0' });
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [FS_SERVER, dir], stderr: 'ignore' }));
    const expected = await direct.listTools();
    await direct.close();
    const listed = await proxy.client.listTools();
    expect(listed.tools.map((t) => t.name)).toContain('read_text_file');
    expect(listed.tools).toEqual(expected.tools);
  });

  it('forwards a valid read and returns the upstream result', async () => {
    const r = await proxy.client.callTool({ name: 'read_text_file', arguments: { path: path.join(ws, 'notes.txt') } });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toContain('hello from the workspace');
    const calls = toolCallsUpstream(log).filter((m) => m.params?.name === 'read_text_file');
    expect(calls).toHaveLength(1);
    // read-only: no idempotency key is sent
    expect(calls[0]?.params?._meta?.['guardtrace/idempotencyKey']).toBeUndefined();
  });

  it('rejects schema-invalid arguments with the field path, and never calls the upstream', async () => {
    const before = toolCallsUpstream(log).length;
    const r = await proxy.client.callTool({ name: 'read_text_file', arguments: { path: 42, head: 'ten' } });
    expect(r.isError).toBe(true);
    const t = text(r);
    expect(t).toContain('Validation error in read_text_file call');
    expect(t).toMatch(/Field "path": expected string, received integer \(42\)/);
    expect(t).toMatch(/Field "head": expected number, received string \("ten"\)/);
    expect(t).toContain('Expected schema:');
    expect(r._meta?.['guardtrace/failureClass']).toBe('invalid_arguments');
    expect(toolCallsUpstream(log).length).toBe(before);
  });

  it('rejects an unknown tool with no sound correction with the valid names, and never calls the upstream', async () => {
    const before = toolCallsUpstream(log).length;
    const r = await proxy.client.callTool({ name: 'summarize_repo', arguments: { path: ws } });
    expect(r.isError).toBe(true);
    const t = text(r);
    expect(t).toContain('Unknown tool "summarize_repo"');
    expect(t).toContain('Valid tools');
    expect(t).toContain('- move_file');
    expect(r._meta?.['guardtrace/failureClass']).toBe('unknown_tool');
    expect(toolCallsUpstream(log).length).toBe(before);
  });

  it('runs an unknown tool name with exactly one close match as that tool, and says so first', async () => {
    const before = toolCallsUpstream(log).length;
    const r = await proxy.client.callTool({ name: 'read_txt_file', arguments: { path: path.join(ws, 'notes.txt') } });
    expect(r.isError).toBeFalsy();
    const t = text(r);
    expect(t).toContain('called `read_text_file`; `read_txt_file` does not exist');
    expect(t).toContain('hello from the workspace');
    expect(r._meta?.['guardtrace/corrections']).toBeDefined();
    const calls = toolCallsUpstream(log).slice(before);
    expect(calls.map((m) => m.params?.name)).toEqual(['read_text_file']);
  });

  it("rejects a path outside the config's roots that the server itself would allow", async () => {
    const before = toolCallsUpstream(log).length;
    const r = await proxy.client.callTool({ name: 'read_text_file', arguments: { path: path.join(dir, 'secret.txt') } });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('outside the allowed workspace');
    expect(text(r)).toContain(ws);
    expect(text(r)).not.toContain('outside the roots'); // the file's content never leaves
    expect(r._meta?.['guardtrace/failureClass']).toBe('guard_violation');
    expect(toolCallsUpstream(log).length).toBe(before);
  });

  it("applies the config's precondition to write_file", async () => {
    const before = toolCallsUpstream(log).length;
    const r = await proxy.client.callTool({ name: 'write_file', arguments: { path: path.join(ws, '.env'), content: 'KEY=1' } });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('Never write .env files.');
    expect(existsSync(path.join(ws, '.env'))).toBe(false);
    expect(toolCallsUpstream(log).length).toBe(before);
  });

  it('runs a destructive, non-idempotent call once: idempotency key upstream, a repeat answered from the store', async () => {
    writeFileSync(path.join(ws, 'draft.txt'), 'draft\n');
    const args = { source: path.join(ws, 'draft.txt'), destination: path.join(ws, 'final.txt') };
    const first = await proxy.client.callTool({ name: 'move_file', arguments: args });
    expect(first.isError).toBeFalsy();
    expect(readFileSync(path.join(ws, 'final.txt'), 'utf8')).toBe('draft\n');
    const moves = toolCallsUpstream(log).filter((m) => m.params?.name === 'move_file');
    expect(moves).toHaveLength(1);
    const key = moves[0]?.params?._meta?.['guardtrace/idempotencyKey'];
    expect(key).toMatch(/^idk_[0-9a-f]{32}$/);

    // the same call again (a client retrying after a lost answer): not run twice
    const again = await proxy.client.callTool({ name: 'move_file', arguments: { destination: args.destination, source: args.source } });
    expect(again.isError).toBeFalsy();
    expect(again._meta?.['guardtrace/deduplicated']).toBe(true);
    expect(again._meta?.['guardtrace/idempotencyKey']).toBe(key);
    expect(text(again)).toBe(text(first));
    expect(toolCallsUpstream(log).filter((m) => m.params?.name === 'move_file')).toHaveLength(1);
  });

  it("classifies the upstream's own isError answers: a missing file is missing_resource, with the closest paths", async () => {
    const before = toolCallsUpstream(log).filter((m) => m.params?.name === 'read_text_file').length;
    const r = await proxy.client.callTool({ name: 'read_text_file', arguments: { path: path.join(ws, 'note.txt') } });
    expect(r.isError).toBe(true);
    expect(r._meta?.['guardtrace/failureClass']).toBe('missing_resource');
    expect(r._meta?.['guardtrace/decision']).toBe('replan');
    expect(text(r)).toContain('Path not found');
    expect(text(r)).toContain(`- ${path.join(ws, 'notes.txt')}`);
    expect(toolCallsUpstream(log).filter((m) => m.params?.name === 'read_text_file').length).toBe(before + 1);
  });
});
