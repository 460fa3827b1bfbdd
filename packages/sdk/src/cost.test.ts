import { describe, expect, it } from 'vitest';
import { replayInputTokens } from './cost.ts';

describe('context-replay cost model', () => {
  it('reproduces the seed arithmetic: 4k, 6k and 8k contexts make 18k for a clean three-step task', () => {
    expect([1, 2, 3].map((k) => replayInputTokens(k))).toEqual([4_000, 6_000, 8_000]);
  });

  it("prices one repair at step three as the seed describes it, a failed 8k turn then a corrected 10k turn: 28k, not the seed's 36k", () => {
    // Seed 001: "the failed attempt replays 8k tokens, then the corrected attempt replays 10k
    // ... Total is about 36k". Its turns are 4k, 6k, 8k (failed) and 10k (corrected): 28k, 1.56x
    // the clean 18k. The seed's 36k adds the failed 8k and the corrected 10k to the clean 18k,
    // which already holds step three's 8k: that turn counted twice. The benchmark's Meter prices
    // turns as below (each turn once), so its repair figures follow 28k, not 36k.
    const turns = [1, 2, 3, 4].map((k) => replayInputTokens(k));
    expect(turns).toEqual([4_000, 6_000, 8_000, 10_000]);
    expect(turns.reduce((a, b) => a + b)).toBe(28_000);
  });
});
