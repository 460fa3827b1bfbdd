import { describe, expect, it } from 'vitest';
import { samplingWeight, sessionHash } from './sampling.ts';

describe('session sampling', () => {
  it('keeps about the configured fraction of clean sessions, deterministically, and weights them up', () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => `sess_${i}`);
    const weights = ids.map((id) => samplingWeight(id, true, 0.1));
    const kept = weights.filter((w) => w > 0).length;
    expect(kept).toBeGreaterThan(900);
    expect(kept).toBeLessThan(1100);
    expect(weights.filter((w) => w > 0).every((w) => w === 10)).toBe(true);
    expect(ids.map((id) => samplingWeight(id, true, 0.1))).toEqual(weights);
  });

  it('always keeps sessions with failures', () => {
    expect(samplingWeight('x', false, 0)).toBe(1);
    expect(sessionHash('abc')).toBe(sessionHash('abc'));
  });
});
