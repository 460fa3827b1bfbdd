import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registerSeedTools } from '../../test/fixtures.ts';
import { traced } from '../../test/helpers.ts';
import {
  anthropicTools,
  openAITools,
  recordAnthropicUsage,
  recordOpenAIUsage,
  runAnthropicToolUses,
  runOpenAIResponseCalls,
  runOpenAIToolCalls,
} from './messages.ts';

describe('OpenAI-format tool calls', () => {
  it('runs a message tool_calls and returns tool messages carrying the feedback', async () => {
    const { gt, named } = traced({ autoRepair: false }); // the model corrects lookup_custmer here
    registerSeedTools(gt);
    expect(openAITools(gt).map((t) => t.function.name)).toEqual(['create_file', 'lookup_customer', 'charge_card']);
    expect(openAITools(gt)[0]?.function.parameters).toMatchObject({ type: 'object', required: ['path', 'content'] });
    const s = gt.session({ agentName: 'openai-agent' });
    const response = {
      model: 'gpt-4.1-mini-2025-04-14',
      usage: { prompt_tokens: 4000, completion_tokens: 80 },
      choices: [{ message: { role: 'assistant', content: null, tool_calls: [
        { id: 'call_a', type: 'function' as const, function: { name: 'lookup_customer', arguments: '{"email":"dana@acme.io"}' } },
        { id: 'call_b', type: 'function' as const, function: { name: 'lookup_custmer', arguments: '{"email":"x"}' } },
        { id: 'call_c', type: 'function' as const, function: { name: 'create_file', arguments: '{"path": "a",' } },
      ] } }],
    };
    recordOpenAIUsage(s, response);
    const run = await runOpenAIToolCalls(s, response.choices[0]!.message);
    expect(run.messages.map((m) => m.tool_call_id)).toEqual(['call_a', 'call_b', 'call_c']);
    expect(run.messages[0]?.content).toBe('{"id":"cus_1"}');
    expect(run.messages[1]?.content).toContain('TOOL CALL REJECTED: Unknown tool "lookup_custmer".');
    expect(run.messages[1]?.content).toMatch(/closest first\):\n- lookup_customer/);
    expect(run.messages[2]?.content).toContain('Arguments are not valid JSON');
    expect(run.repairs?.failureClass).toBe('unknown_tool');
    recordOpenAIUsage(s, { model: 'gpt-4.1-mini', usage: { input_tokens: 6000, output_tokens: 40 } }, { repairs: run.repairs });
    recordOpenAIUsage(s, { model: 'gpt-4o', usage: { prompt_tokens: 5000, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 3072 } } });
    const chats = named('chat');
    expect(chats.map((c) => c.attributes['gen_ai.usage.input_tokens'])).toEqual([4000, 6000, 5000]);
    expect(chats.map((c) => c.attributes['gen_ai.usage.cache_read.input_tokens'])).toEqual([undefined, undefined, 3072]);
    expect(chats[1]?.attributes['guardtrace.repair.failure_class']).toBe('unknown_tool');
  });

  it('runs Responses API function_call items', async () => {
    const { gt } = traced();
    registerSeedTools(gt);
    const s = gt.session({ agentName: 'a' });
    const run = await runOpenAIResponseCalls(s, [
      { type: 'reasoning' },
      { type: 'function_call', call_id: 'fc_1', name: 'lookup_customer', arguments: '{"email":"a@b.co"}' } as never,
    ]);
    expect(run.messages).toEqual([{ type: 'function_call_output', call_id: 'fc_1', output: '{"id":"cus_1"}' }]);
  });
});

describe('Anthropic-format tool uses', () => {
  it('returns one user message with tool_result blocks, errors flagged', async () => {
    const { gt, named } = traced();
    registerSeedTools(gt);
    expect(anthropicTools(gt)[2]).toMatchObject({ name: 'charge_card', input_schema: { type: 'object' } });
    const s = gt.session({ agentName: 'claude-agent' });
    const msg = {
      model: 'claude-sonnet-4-5',
      usage: { input_tokens: 4000, output_tokens: 120 },
      content: [
        { type: 'text', text: 'Charging.' },
        { type: 'tool_use', id: 'toolu_1', name: 'charge_card', input: { customer_id: 'cus_1', amount: 12 } },
      ],
    };
    recordAnthropicUsage(s, msg);
    const run = await runAnthropicToolUses(s, msg);
    expect(run.messages).toHaveLength(1);
    const block = run.messages[0]!.content[0]!;
    expect(block).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true });
    expect(block.content).toContain('Missing required field: "amount_cents"');
    expect(block.content).toContain('Unexpected field: "amount" (did you mean "amount_cents"?)');
    expect(named('chat')[0]?.attributes['gen_ai.provider.name']).toBe('anthropic');
  });

  it('counts prompt-cache reads and writes, which Anthropic reports beside input_tokens, in the input', () => {
    const { gt, named } = traced();
    const s = gt.session({ agentName: 'claude-agent' });
    recordAnthropicUsage(s, { model: 'claude-sonnet-4-5', usage: { input_tokens: 40, cache_creation_input_tokens: 2000, output_tokens: 90 } });
    recordAnthropicUsage(s, { model: 'claude-sonnet-4-5', usage: { input_tokens: 25, cache_read_input_tokens: 2000, cache_creation_input_tokens: 0, output_tokens: 80 } });
    recordAnthropicUsage(s, { model: 'claude-sonnet-4-5', usage: { input_tokens: 30, cache_read_input_tokens: null, output_tokens: 5 } });
    // before: 40, 25 and 30 input tokens, no cached ones (the 4,000 cached and written tokens were never counted)
    expect(named('chat').map((c) => [c.attributes['gen_ai.usage.input_tokens'], c.attributes['gen_ai.usage.cache_read.input_tokens']])).toEqual([
      [2040, undefined],
      [2025, 2000],
      [30, undefined],
    ]);
  });
});

describe('successful results entering the model context', () => {
  const KEY = 'AKIAIOSFODNN7EXAMPLE';
  const TOKEN = 'sk-proj-abcdefghijklmnopqrstuv';

  it('are redacted of secrets in OpenAI and Anthropic tool results and on the span, while the host keeps the value', async () => {
    const { gt, named } = traced();
    gt.tool({
      name: 'read_config',
      description: 'Read the deployment config',
      schema: z.object({ kind: z.enum(['object', 'text']) }),
      flags: { readOnly: true },
      execute: (a) => (a.kind === 'text' ? `region=eu\naws_key ${KEY}` : { region: 'eu', env: `line1\n${KEY}`, nested: [{ auth: `Bearer ${TOKEN}` }] }),
    });
    const s = gt.session({ agentName: 'a' });
    const calls = [
      { id: 'c1', type: 'function' as const, function: { name: 'read_config', arguments: '{"kind":"object"}' } },
      { id: 'c2', type: 'function' as const, function: { name: 'read_config', arguments: '{"kind":"text"}' } },
    ];
    const openai = await runOpenAIToolCalls(s, { tool_calls: calls });
    const responses = await runOpenAIResponseCalls(s, calls.map((c) => ({ type: 'function_call', call_id: c.id, name: c.function.name, arguments: c.function.arguments })));
    const anthropic = await runAnthropicToolUses(s, { content: [{ type: 'tool_use', id: 't1', name: 'read_config', input: { kind: 'object' } } as { type: string }] });
    const shown = [
      ...openai.messages.map((m) => m.content),
      ...responses.messages.map((m) => m.output),
      ...(anthropic.messages[0]?.content.map((b) => b.content) ?? []),
    ];
    expect(shown).toHaveLength(5);
    for (const text of shown) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(TOKEN);
    }
    expect(JSON.parse(openai.messages[0]!.content)).toEqual({ region: 'eu', env: 'line1\n[REDACTED KEY]', nested: [{ auth: 'Bearer [REDACTED KEY]' }] });
    expect(openai.messages[1]?.content).toBe('region=eu\naws_key [REDACTED KEY]');
    // the host's own program still gets the real value
    expect(openai.results[0]).toMatchObject({ ok: true, value: { env: `line1\n${KEY}` } });
    for (const a of named('guardtrace.attempt')) expect(String(a.attributes['gen_ai.tool.call.result'])).not.toContain(KEY);
  });
});

describe('auto-repair in tool messages', () => {
  it('puts what was corrected before the result, and leaves nothing for the next turn to repair', async () => {
    const { gt } = traced();
    registerSeedTools(gt);
    const s = gt.session({ agentName: 'openai-agent' });
    const run = await runOpenAIToolCalls(s, { tool_calls: [
      { id: 'call_a', type: 'function', function: { name: 'lookup_customers', arguments: '{"email":"dana@acme.io"}' } },
    ] });
    expect(run.messages[0]?.content).toBe('Corrected and ran (use the corrected call next time):\n- called `lookup_customer`; `lookup_customers` does not exist\n\n{"id":"cus_1"}');
    expect(run.repairs).toBeUndefined();
    await s.end();
  });
});
