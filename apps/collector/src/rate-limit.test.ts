import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limit.ts';

describe('RateLimiter (token bucket)', () => {
  it('allows a burst, then refills at the rate, per key', () => {
    let now = 0;
    const rl = new RateLimiter({ ratePerSecond: 2, burst: 3 }, () => now);
    expect([rl.take('a'), rl.take('a'), rl.take('a')]).toEqual([0, 0, 0]);
    expect(rl.take('a')).toBeCloseTo(0.5);
    expect(rl.take('b')).toBe(0);
    now = 500;
    expect(rl.take('a')).toBe(0);
    expect(rl.take('a')).toBeCloseTo(0.5);
  });

  it('rate 0 disables limiting', () => {
    const rl = new RateLimiter({ ratePerSecond: 0, burst: 1 });
    for (let i = 0; i < 100; i++) expect(rl.take('k')).toBe(0);
  });
});
