/**
 * The official MCP client -> guardtrace-mcp (its bin, stdio) -> a small McpServer of the MCP
 * SDK (test/fixtures/upstream-server.mjs) through the tap, which logs what reached it: request
 * `_meta` and progress notifications pass the proxy both ways.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    expect(JSON.parse(text(r)).meta).toEqual(meta);
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
