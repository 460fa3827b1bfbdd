/**
 * The secret corpus through the real runtime: each shape in a tool call's arguments and in its
 * result (an object and text). Neither what goes back to the model nor any span attribute or
 * event holds it.
 */
import { asText, fragments, SECRET_SHAPES } from '@guardtrace/secret-corpus';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runOpenAIToolCalls } from '../src/integrations/messages.ts';
import { traced } from './helpers.ts';

describe('no secret reaches the model or a span', () => {
  it(`holds none of the ${SECRET_SHAPES.length} secret shapes, in arguments or results`, async () => {
    const { gt, spans } = traced();
    gt.tool({
      name: 'read_config',
      description: 'Read a config entry',
      schema: z.object({ entry: z.record(z.string(), z.string()), as: z.enum(['object', 'text']) }),
      flags: { readOnly: true },
      execute: (a) => (a.as === 'text' ? Object.entries(a.entry).map(([k, v]) => (k === 'note' ? v : `${k}=${v}`)).join('\n') : { entry: a.entry, ok: true }),
    });
    const s = gt.session({ agentName: 'secrets' });
    const calls = SECRET_SHAPES.flatMap((shape, i) =>
      (['object', 'text'] as const).map((as) => ({
        id: `c${i}_${as}`,
        type: 'function' as const,
        function: { name: 'read_config', arguments: JSON.stringify({ entry: shape.key ? { [shape.key]: shape.secret } : { note: asText(shape) }, as }) },
      })),
    );
    const run = await runOpenAIToolCalls(s, { tool_calls: calls });
    expect(run.results.filter((r) => r.ok)).toHaveLength(calls.length);
    const toModel = JSON.stringify(run.messages);
    const recorded = JSON.stringify(spans().map((sp) => ({ name: sp.name, attributes: sp.attributes, events: sp.events, status: sp.status })));
    expect(recorded).toContain('gen_ai.tool.call.result');
    const leaks: string[] = [];
    for (const shape of SECRET_SHAPES) {
      for (const f of fragments(shape)) {
        if (toModel.includes(f)) leaks.push(`model: ${shape.id}`);
        if (recorded.includes(f)) leaks.push(`span: ${shape.id}`);
      }
    }
    expect(leaks).toEqual([]);
    // Every shape through a real tool call twice: ~2 s alone, over vitest's 5 s default on a busy machine.
  }, 60_000);
});
