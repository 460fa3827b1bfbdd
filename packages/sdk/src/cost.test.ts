import { describe, expect, it } from 'vitest';
import { replayInputTokens } from './cost.ts';

describe('context-replay cost model', () => {
  it('reproduces the seed arithmetic: 4k, 6k and 8k contexts make 18k for a clean three-step task', () => {
    expect([1, 2, 3].map((k) => replayInputTokens(k))).toEqual([4_000, 6_000, 8_000]);
  });

  it('prices a repair at step three as a replay of 8k plus a corrected 10k turn: ~36k, double', () => {
    const clean = [1, 2, 3].map((k) => replayInputTokens(k)).reduce((a, b) => a + b);
    expect(clean + replayInputTokens(3) + replayInputTokens(4)).toBe(36_000);
  });
});
