import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registerSeedTools } from './fixtures.ts';
import { traced } from './helpers.ts';

// Guardtrace's guards emit the merged GenAI guardrail convention's result event beside their own keys.

describe('gen_ai.guardrail.result on guard spans', () => {
  it('carries the guard as component, its stage as policy, the content it read as source, and its verdict', async () => {
    const { gt, named } = traced();
    registerSeedTools(gt);
    const s = gt.session({ id: 'sess_gr', agentName: 'guarded-agent' });
    await s.callTool('lookup_customer', '{"email":"a@b.co"}', { callId: 'call_ok' });
    await s.callTool('charge_card', '{"customer_id":"cus_1","amount_cents":-5}', { callId: 'call_bad' });
    await s.end();

    const guards = named('apply_guardrail');
    const pass = guards.find((g) => g.attributes['gen_ai.guardrail.verdict'] === 'pass');
    const fail = guards.find((g) => g.attributes['gen_ai.guardrail.verdict'] === 'fail');
    // One event per guard span, no more.
    for (const g of guards) expect(g.events.map((e) => e.name)).toEqual(['gen_ai.guardrail.result']);
    expect(pass?.events[0]?.attributes).toEqual({
      'gen_ai.guardrail.component.name': 'schema',
      'gen_ai.guardrail.policy.id': 'schema',
      'gen_ai.guardrail.source': 'tool_input',
      'gen_ai.guardrail.result.type': 'verdict',
      'gen_ai.guardrail.result.value': 'pass',
    });
    expect(fail?.events[0]?.attributes).toEqual({
      'gen_ai.guardrail.component.name': 'schema',
      'gen_ai.guardrail.policy.id': 'schema',
      'gen_ai.guardrail.source': 'tool_input',
      'gen_ai.guardrail.result.type': 'verdict',
      'gen_ai.guardrail.result.value': 'fail',
      'gen_ai.guardrail.result.reason': fail?.attributes['gen_ai.guardrail.reason'],
    });
    expect(fail?.attributes['gen_ai.guardrail.reason']).toMatch(/amount_cents/);
  });

  it('names a post-execution guard’s source tool_output', async () => {
    const { gt, named } = traced();
    gt.tool({
      name: 'write_note',
      description: 'Write a note',
      schema: z.object({ text: z.string() }),
      execute: () => ({ ok: true }),
      guards: [{ name: 'note_saved', stage: 'post_execution', check: () => ({ pass: false, reason: 'note not on disk' }) }],
    });
    const s = gt.session({ id: 'sess_post', agentName: 'guarded-agent' });
    await s.callTool('write_note', '{"text":"hi"}', { callId: 'c1' });
    await s.end();
    const [post] = named('apply_guardrail note_saved');
    expect(post?.events[0]?.attributes).toMatchObject({
      'gen_ai.guardrail.component.name': 'note_saved',
      'gen_ai.guardrail.policy.id': 'post_execution',
      'gen_ai.guardrail.source': 'tool_output',
      'gen_ai.guardrail.result.value': 'fail',
      'gen_ai.guardrail.result.reason': 'note not on disk',
    });
  });
});
