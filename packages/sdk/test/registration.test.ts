/**
 * Registering a tool with a schema the SDK cannot read is a configuration error said at
 * registration, not a failure of every call shown to the model: zod is a peer dependency
 * (^4), and an agent on zod 3 (installed with --legacy-peer-deps) passes zod 3 schemas.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { Guardtrace } from '../src/guardtrace.ts';

describe('gt.tool schema', () => {
  it('a zod 3 schema: a TypeError at registration naming the tool and the zod version needed', () => {
    const gt = new Guardtrace({ tracing: false });
    expect(() => gt.tool({ name: 'echo', description: 'e', schema: z3.object({ x: z3.string() }) as never, execute: () => 'x' })).toThrow(
      new TypeError('guardtrace: tool "echo": schema is a zod 3 schema; the SDK reads zod 4 schemas (its peer dependency zod@^4): upgrade with `npm install zod@^4`'),
    );
    expect(gt.tools()).toEqual([]);
  });

  it('not a schema at all: a TypeError at registration', () => {
    const gt = new Guardtrace({ tracing: false });
    expect(() => gt.tool({ name: 'echo', description: 'e', schema: { type: 'object' } as never, execute: () => 'x' })).toThrow(
      new TypeError('guardtrace: tool "echo": schema is not a zod schema; pass one made with zod 4 (e.g. z.object({ ... }))'),
    );
  });

  it('a zod 4 schema registers and validates', async () => {
    const gt = new Guardtrace({ tracing: false });
    gt.tool({ name: 'echo', description: 'e', schema: z.object({ x: z.string() }), execute: ({ x }) => x });
    const r = await gt.session({ agentName: 'a' }).callTool('echo', { x: 'hi' });
    expect(r.ok && r.value).toBe('hi');
  });
});
