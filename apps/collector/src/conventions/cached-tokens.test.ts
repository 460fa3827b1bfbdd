import { describe, expect, it } from 'vitest';
import type { Attributes, NormSpan } from '../span.ts';
import { testSpan } from '../test-span.ts';
import { interpret } from './index.ts';

const span = (name: string, attributes: Attributes): NormSpan => testSpan(name, attributes, { kind: 3, spanId: '00f067aa0ba902b7' });

describe('cached input tokens of a model call', () => {
  it('reads each convention’s name for them', () => {
    const cases: [string, Attributes][] = [
      ['chat gpt-4o', { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 5000, 'gen_ai.usage.cache_read.input_tokens': 3000 }],
      ['chat gpt-4o', { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 5000, 'gen_ai.usage.cache_read_input_tokens': 3000 }],
      [
        'ai.generateText.doGenerate',
        { 'ai.operationId': 'ai.generateText.doGenerate', 'ai.usage.inputTokens': 5000, 'ai.usage.inputTokenDetails.cacheReadTokens': 3000 },
      ],
      ['ai.streamText.doStream', { 'ai.operationId': 'ai.streamText.doStream', 'ai.usage.inputTokens': 5000, 'ai.usage.cachedInputTokens': 3000 }],
      ['ChatOpenAI', { 'openinference.span.kind': 'LLM', 'llm.token_count.prompt': 5000, 'llm.token_count.prompt_details.cache_read': 3000 }],
    ];
    for (const [name, attrs] of cases) {
      const m = interpret(span(name, attrs));
      expect(m?.role, name).toBe('model_call');
      expect(m?.inputTokens, name).toBe(5000);
      expect(m?.cachedInputTokens, JSON.stringify(attrs)).toBe(3000);
    }
  });

  it('counts cache reads and writes reported beside the input (more than it) in the input, in every convention', () => {
    // Anthropic's usage copied as it is: 40 uncached input tokens, 2,000 read from the cache, 500 written to it.
    const cases: [string, Attributes][] = [
      [
        'chat claude-sonnet-4-5',
        {
          'gen_ai.operation.name': 'chat',
          'gen_ai.usage.input_tokens': 40,
          'gen_ai.usage.cache_read.input_tokens': 2000,
          'gen_ai.usage.cache_creation.input_tokens': 500,
        },
      ],
      [
        'chat claude-sonnet-4-5',
        { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.prompt_tokens': 40, 'gen_ai.usage.cache_read_input_tokens': 2000, 'gen_ai.usage.cache_creation_input_tokens': 500 },
      ],
      [
        'ai.streamText.doStream',
        { 'ai.operationId': 'ai.streamText.doStream', 'ai.usage.inputTokens': 40, 'ai.usage.cachedInputTokens': 2000, 'ai.usage.inputTokenDetails.cacheWriteTokens': 500 },
      ],
      [
        'ChatAnthropic',
        { 'openinference.span.kind': 'LLM', 'llm.token_count.prompt': 40, 'llm.token_count.prompt_details.cache_read': 2000, 'llm.token_count.prompt_details.cache_write': 500 },
      ],
    ];
    for (const [name, attrs] of cases) {
      const m = interpret(span(name, attrs));
      expect(m?.inputTokens, JSON.stringify(attrs)).toBe(2540);
      expect(m?.cachedInputTokens, JSON.stringify(attrs)).toBe(2000);
    }
    // ai 5's Anthropic provider: cache writes only in the provider's metadata
    const ai5 = interpret(
      span('ai.generateText.doGenerate', {
        'ai.operationId': 'ai.generateText.doGenerate',
        'ai.usage.inputTokens': 40,
        'ai.usage.cachedInputTokens': 2000,
        'ai.response.providerMetadata': JSON.stringify({ anthropic: { cacheCreationInputTokens: 500, usage: { input_tokens: 40 } } }),
      }),
    );
    expect([ai5?.inputTokens, ai5?.cachedInputTokens]).toEqual([2540, 2000]);
    // only cache writes above the input (a prompt's first call), and no input at all
    expect(interpret(span('chat c', { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.cache_creation.input_tokens': 900 }))?.inputTokens).toBe(910);
    expect(interpret(span('chat c', { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.cache_read.input_tokens': 300 }))?.inputTokens).toBe(300);
  });

  it('leaves an input that holds its cache tokens as it is', () => {
    const m = interpret(
      span('chat c', { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 2540, 'gen_ai.usage.cache_read.input_tokens': 2000, 'gen_ai.usage.cache_creation.input_tokens': 500 }),
    );
    expect([m?.inputTokens, m?.cachedInputTokens]).toEqual([2540, 2000]);
  });

  it('is null when the span names none', () => {
    expect(interpret(span('chat gpt-4o', { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 5 }))?.cachedInputTokens).toBeNull();
  });
});
