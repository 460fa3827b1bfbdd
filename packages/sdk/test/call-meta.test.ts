import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { traced } from './helpers.ts';

// Per-call data that is not a model argument (an MCP request's _meta, a progress callback) reaches the tool as ctx.meta.

describe('CallOptions.meta', () => {
  it("reaches the tool's ctx.meta; a corrected call brings its own; automatic retries keep it; spans never carry it", async () => {
    const { gt, spans } = traced();
    const seen: unknown[] = [];
    let failOnce = true;
    gt.tool({
      name: 'fetch_page',
      description: 'Fetches a page.',
      schema: z.object({ url: z.string().url() }),
      flags: { readOnly: true },
      execute: (args, ctx) => {
        seen.push(ctx.meta);
        if (failOnce) {
          failOnce = false;
          throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
        }
        return { body: `page ${args.url}` };
      },
    });
    const s = gt.session({ agentName: 'a' });
    const r1 = await s.callTool('fetch_page', { url: 'not a url' }, { callId: 'c1', meta: { request: 1, marker: 'meta-marker-1' } });
    expect(r1).toMatchObject({ ok: false, decision: 'reject_with_feedback' });
    expect(seen).toEqual([]);
    const meta2 = { request: 2, marker: 'meta-marker-2' };
    const r2 = await s.callTool('fetch_page', { url: 'https://example.com/' }, { callId: 'c2', meta: meta2 });
    expect(r2.ok).toBe(true);
    expect(r2.attempts).toHaveLength(3);
    // the transient failure was retried in code with the corrected call's meta, the same object
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(meta2);
    expect(seen[1]).toBe(meta2);

    const r3 = await s.callTool('fetch_page', { url: 'https://example.org/' });
    expect(r3.ok).toBe(true);
    expect(seen[2]).toBeUndefined();
    await s.end();
    expect(JSON.stringify(spans().map((sp) => sp.attributes))).not.toContain('meta-marker');
  });
});
