import { describe, expect, it } from 'vitest';
import { barPercent } from '@/lib/format';

describe('barPercent', () => {
  it('draws no bar for zero, whatever the largest value is', () => {
    expect(barPercent(0, 6_080)).toBe(0);
    expect(barPercent(0, 0)).toBe(0);
  });

  it('keeps a small value visible at 1% and scales the rest to the largest', () => {
    expect(barPercent(1, 1_000_000)).toBe(1);
    expect(barPercent(3_040, 6_080)).toBe(50);
    expect(barPercent(6_080, 6_080)).toBe(100);
  });

  it('never draws past the cell, nor for a value that is not a number', () => {
    expect(barPercent(12, 10)).toBe(100);
    expect(barPercent(Number.NaN, 10)).toBe(0);
    expect(barPercent(5, Number.NaN)).toBe(0);
  });
});
