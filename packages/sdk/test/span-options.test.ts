import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ATTR_GEN_AI_TOOL_NAME } from '@guardtrace/semconv';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TransientFailure } from '../src/errors.ts';
import type { CallSpanOptions } from '../src/span-options.ts';
import { registerSeedTools } from './fixtures.ts';
import { traced } from './helpers.ts';

// An adapter shapes a call's spans through the `span` option and the tool's ctx.setAttributes.

const MCP: CallSpanOptions = {
  name: (tool) => `tools/call ${tool}`,
  kind: SpanKind.SERVER,
  attributes: { 'mcp.method.name': 'tools/call', [ATTR_GEN_AI_TOOL_NAME]: 'not-the-tool' },
  attemptAttributes: { 'jsonrpc.request.id': '1' },
};

/** Keys of the objects reachable from `root` through enumerable own properties (a few levels deep). */
function reachableKeys(root: object, depth = 4): string[] {
  const keys: string[] = [];
  const seen = new Set<object>();
  const visit = (o: object, d: number) => {
    if (d === 0 || seen.has(o)) return;
    seen.add(o);
    for (const [k, v] of Object.entries(o)) {
      keys.push(k);
      if (typeof v === 'object' && v !== null) visit(v, d - 1);
    }
  };
  visit(root, depth);
  return keys;
}

const attempts = (t: ReturnType<typeof traced>, call: ReadableSpan) => t.childrenOf(call).filter((s) => s.name === 'guardtrace.attempt');

describe('span option', () => {
  it('names the call span, sets its kind and attributes, and adds attempt attributes; the SDK keys win', async () => {
    const t = traced();
    registerSeedTools(t.gt);
    const s = t.gt.session({ agentName: 'a' });
    expect((await s.callTool('lookup_customer', { email: 'a@b.co' }, { callId: 'c1', span: MCP })).ok).toBe(true);
    expect((await s.callTool('lookup_customer', { email: 'a@b.co' }, { callId: 'c2' })).ok).toBe(true);
    await s.end();

    expect([t.named('tools/call').length, t.named('execute_tool').length]).toEqual([1, 1]);
    const [shaped] = t.named('tools/call');
    const [plain] = t.named('execute_tool');
    expect(shaped?.name).toBe('tools/call lookup_customer');
    expect(shaped?.kind).toBe(SpanKind.SERVER);
    expect(shaped?.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', [ATTR_GEN_AI_TOOL_NAME]: 'lookup_customer', 'gen_ai.operation.name': 'execute_tool' });
    expect(attempts(t, shaped as ReadableSpan).map((a) => a.attributes['jsonrpc.request.id'])).toEqual(['1']);
    // without the option nothing changes
    expect(plain?.name).toBe('execute_tool lookup_customer');
    expect(plain?.kind).toBe(SpanKind.INTERNAL);
    expect(plain?.attributes['mcp.method.name']).toBeUndefined();
    expect(attempts(t, plain as ReadableSpan).map((a) => a.attributes['jsonrpc.request.id'])).toEqual([undefined]);
  });

  it('keeps the call span across an unknown-tool correction: the name function gets the corrected name, each request its own attempt attributes', async () => {
    const t = traced({ autoRepair: false }); // the model corrects the name, not the runtime
    const calls = registerSeedTools(t.gt);
    const s = t.gt.session({ agentName: 'a' });
    const args = { customer_id: 'c', amount_cents: 5 };
    expect(await s.callTool('charge_cards', args, { callId: 'c1', span: MCP })).toMatchObject({ failureClass: 'unknown_tool', awaitingCorrection: true });
    const r = await s.callTool('charge_card', args, { callId: 'c1', span: { kind: SpanKind.CLIENT, attributes: { ignored: true }, attemptAttributes: { 'jsonrpc.request.id': '2' } } });
    expect(r).toMatchObject({ ok: true, tool: 'charge_card' });
    expect(calls.charge).toBe(1);
    // a continuing call without the option adds nothing to its attempts
    expect(await s.callTool('lookup_custmer', { email: 'x' }, { span: MCP })).toMatchObject({ awaitingCorrection: true });
    expect((await s.callTool('lookup_customer', { email: 'x' })).ok).toBe(true);
    await s.end();

    const calls2 = t.named('tools/call');
    expect(calls2.map((c) => [c.name, c.kind, c.attributes[ATTR_GEN_AI_TOOL_NAME], c.attributes.ignored])).toEqual([
      ['tools/call charge_card', SpanKind.SERVER, 'charge_card', undefined],
      ['tools/call lookup_customer', SpanKind.SERVER, 'lookup_customer', undefined],
    ]);
    expect(t.named('execute_tool')).toEqual([]);
    expect(attempts(t, calls2[0] as ReadableSpan).map((a) => a.attributes['jsonrpc.request.id'])).toEqual(['1', '2']);
    expect(attempts(t, calls2[1] as ReadableSpan).map((a) => a.attributes['jsonrpc.request.id'])).toEqual(['1', undefined]);
  });

  it('lets the tool add attributes to its own attempt span through ctx.setAttributes', async () => {
    const t = traced();
    let n = 0;
    let leaks: string[] = [];
    t.gt.tool({
      name: 'fetch_page',
      description: 'Fetch a page',
      schema: z.object({ url: z.string() }),
      flags: { readOnly: true },
      execute: (_a, ctx) => {
        n += 1;
        // the span and the runtime behind setAttributes stay out of the tool's reach
        leaks = reachableKeys(ctx).filter((k) => k === 'telemetry' || k === 'attemptSpan');
        ctx.setAttributes({ 'upstream.status': n === 1 ? 503 : 200, 'upstream.attempt': ctx.attempt });
        if (n === 1) throw new TransientFailure('upstream busy');
        return 'ok';
      },
    });
    const s = t.gt.session({ agentName: 'a' });
    const call = s.toolCall('fetch_page', { span: { attemptAttributes: { 'jsonrpc.request.id': '7' } } });
    expect((await call.attempt({ url: 'u' })).ok).toBe(true);
    expect(leaks).toEqual([]);
    await s.end();
    const [tool] = t.named('execute_tool');
    expect(attempts(t, tool as ReadableSpan).map((a) => [a.attributes['upstream.status'], a.attributes['upstream.attempt'], a.attributes['jsonrpc.request.id']])).toEqual([
      [503, 1, '7'],
      [200, 2, '7'],
    ]);
  });

  it('shapes a recorded call too (instrument-only API)', () => {
    const t = traced();
    const s = t.gt.session({ agentName: 'a' });
    s.recordToolCall('search', { span: MCP, attempts: [{ args: { q: 'x' }, outcome: 'success' }], value: 1 });
    const [call] = t.named('tools/call');
    expect(call?.kind).toBe(SpanKind.SERVER);
    expect(attempts(t, call as ReadableSpan).map((a) => a.attributes['jsonrpc.request.id'])).toEqual(['1']);
  });

  it('refuses a malformed option with what and where, and falls back to the default name when the name function fails', async () => {
    const t = traced();
    registerSeedTools(t.gt);
    const s = t.gt.session({ agentName: 'a' });
    const bad = (span: unknown) => s.callTool('lookup_customer', { email: 'x' }, { span: span as CallSpanOptions });
    await expect(bad({ kind: 9 })).rejects.toThrow('guardtrace: tool call of lookup_customer: option span.kind: expected a SpanKind (0, 1, 2, 3, 4), got 9');
    await expect(bad({ name: 'tools/call' })).rejects.toThrow('option span.name: expected a function (toolName) => string, got string');
    await expect(bad({ attemptAttributes: [1] })).rejects.toThrow('option span.attemptAttributes: expected an object of attributes, got an array');
    await expect(bad(null)).rejects.toThrow('option span: expected an object');
    const other = t.gt.session({ agentName: 'b' });
    await expect(other.toolCall('lookup_customer').attempt({ email: 'x' }, { attemptAttributes: 'id=1' as never })).rejects.toThrow(
      /^guardtrace: tool call \S+: attempt option attemptAttributes: expected an object of attributes, got string$/,
    );
    const r = await s.callTool('lookup_customer', { email: 'x' }, { span: { name: () => { throw new Error('boom'); } } });
    expect(r.ok).toBe(true);
    await s.end();
    expect(t.named('execute_tool').map((c) => c.name)).toEqual(['execute_tool lookup_customer']);
  });
});
