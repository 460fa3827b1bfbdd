import { describe, expect, it } from 'vitest';
import { sessionSamplingWeight } from './sampling.ts';

describe('sessionSamplingWeight', () => {
  it('keeps a failure at 1, else the smallest positive weight, else 0 when a process would drop it, else 1', () => {
    expect(sessionSamplingWeight(true, 4, true)).toBe(1);
    expect(sessionSamplingWeight(true, null, true)).toBe(1);
    expect(sessionSamplingWeight(false, 4, true)).toBe(4);
    expect(sessionSamplingWeight(false, 2, false)).toBe(2);
    expect(sessionSamplingWeight(false, null, true)).toBe(0);
    expect(sessionSamplingWeight(false, null, false)).toBe(1);
  });
});
