import { describe, expect, it } from 'vitest';
import { type CallSpan, recordedTwice } from './same-call.ts';

const ms = (n: number) => BigInt(n) * 1_000_000n;
/** A LangChain `chat` span and, within it, the OpenAI client's span of the same request (Traceloop's shapes). */
const framework = (over: Partial<CallSpan> = {}): CallSpan => ({
  spanId: 'aaaa000000000001',
  parentSpanId: 'root000000000000',
  startNs: ms(0),
  endNs: ms(100),
  scope: '@traceloop/instrumentation-langchain',
  model: 'gpt-4o-mini',
  inputTokens: 120,
  outputTokens: 18,
  repair: false,
  ...over,
});
const provider = (over: Partial<CallSpan> = {}): CallSpan => ({
  ...framework(),
  spanId: 'bbbb000000000002',
  startNs: ms(5),
  endNs: ms(95),
  scope: '@traceloop/instrumentation-openai',
  ...over,
});

describe('recordedTwice', () => {
  it('a sibling or child provider span within a framework span is the call: the framework span is not', () => {
    expect(recordedTwice([framework(), provider()])).toEqual(new Set([framework().spanId]));
    expect(recordedTwice([provider(), framework()])).toEqual(new Set([framework().spanId]));
    expect(recordedTwice([framework(), provider({ parentSpanId: framework().spanId })])).toEqual(new Set([framework().spanId]));
    // A dated model name is the same model.
    expect(recordedTwice([framework(), provider({ model: 'gpt-4o-mini-2024-07-18' })])).toEqual(new Set([framework().spanId]));
    // Under another span of the trace (the app's, where OpenInference leaves the OpenAI client's span): the same usage tells.
    expect(recordedTwice([framework(), provider({ parentSpanId: 'app0000000000000' })])).toEqual(new Set([framework().spanId]));
  });

  it('when only one of them has usage, that one is the call; a repair turn is the call whatever its place', () => {
    expect(recordedTwice([framework(), provider({ inputTokens: 0, outputTokens: 0 })])).toEqual(new Set([provider().spanId]));
    expect(recordedTwice([framework({ inputTokens: 0, outputTokens: 0 }), provider()])).toEqual(new Set([framework().spanId]));
    expect(recordedTwice([framework({ repair: true }), provider()])).toEqual(new Set([provider().spanId]));
  });

  it('the very same interval: a child is the call; between siblings, the smaller span id', () => {
    const same = { startNs: ms(0), endNs: ms(100) };
    expect(recordedTwice([framework(), provider({ ...same, parentSpanId: framework().spanId })])).toEqual(new Set([framework().spanId]));
    expect(recordedTwice([framework(), provider(same)])).toEqual(new Set([provider().spanId]));
    expect(recordedTwice([provider(same), framework()])).toEqual(new Set([provider().spanId]));
    // Within a millisecond: times one instrumentation recorded in whole milliseconds.
    expect(recordedTwice([framework({ startNs: 400_000n }), provider({ startNs: 0n, endNs: ms(98) })])).toEqual(new Set([framework().spanId]));
    expect(recordedTwice([framework(), provider({ startNs: 500_000n, endNs: ms(100) + 500_000n })])).toEqual(new Set([provider().spanId]));
  });

  it('never merges two calls: one library, other tokens, another model, outside its time, or unrelated spans', () => {
    // Two calls of one instrumentation (parallel branches), even one within the other's time.
    expect(recordedTwice([framework(), framework({ spanId: 'cccc000000000003', startNs: ms(10), endNs: ms(50) })])).toEqual(new Set());
    expect(recordedTwice([framework(), provider({ inputTokens: 300 })])).toEqual(new Set());
    expect(recordedTwice([framework(), provider({ model: 'claude-sonnet-4' })])).toEqual(new Set());
    expect(recordedTwice([framework(), provider({ startNs: ms(100), endNs: ms(200) })])).toEqual(new Set());
    expect(recordedTwice([framework(), provider({ endNs: ms(102) })])).toEqual(new Set());
    // Without usage on both, only a child or a sibling is the same call.
    expect(recordedTwice([framework(), provider({ parentSpanId: 'other00000000000', inputTokens: 0, outputTokens: 0 })])).toEqual(new Set());
    expect(recordedTwice([framework({ parentSpanId: null }), provider({ parentSpanId: null, inputTokens: 0, outputTokens: 0 })])).toEqual(new Set());
  });

  it('two calls of a framework, each with its provider span: two calls', () => {
    const second = { startNs: ms(200), endNs: ms(300), inputTokens: 160, outputTokens: 24 };
    const calls = [
      framework(),
      provider(),
      framework({ ...second, spanId: 'aaaa000000000003' }),
      provider({ ...second, spanId: 'bbbb000000000004', startNs: ms(205), endNs: ms(295) }),
    ];
    expect(recordedTwice(calls)).toEqual(new Set(['aaaa000000000001', 'aaaa000000000003']));
  });
});
