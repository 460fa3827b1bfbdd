import { describe, expect, it } from 'vitest';
import { formatCost, formatCostShort, formatUsd } from '@/lib/cost';

describe('formatUsd', () => {
  it('shows cents from a dollar up and two significant digits below', () => {
    expect(formatUsd(0.42)).toBe('$0.42');
    // A few cents keep their third digit: $0.0144 is not "$0.01" (31% low), $0.0116 not "$0.01".
    expect(formatUsd(0.0144)).toBe('$0.014');
    expect(formatUsd(0.0116)).toBe('$0.012');
    expect(formatUsd(0.106)).toBe('$0.11');
    expect(formatUsd(0.5)).toBe('$0.50');
    expect(formatUsd(0.08)).toBe('$0.08');
    expect(formatUsd(0.004)).toBe('$0.004');
    expect(formatUsd(0.0999)).toBe('$0.10');
    expect(formatUsd(0.996)).toBe('$1.00');
    expect(formatUsd(1.156)).toBe('$1.16');
    expect(formatUsd(1234.5)).toBe('$1,234.50');
    expect(formatUsd(0.0042)).toBe('$0.0042');
    expect(formatUsd(0.000123)).toBe('$0.00012');
    expect(formatUsd(0)).toBe('$0.00');
  });
});

describe('formatCost', () => {
  it('marks every figure as an estimate', () => {
    expect(formatCost({ usd: 0.42, pricedTokens: 10, unknownModels: [] })).toBe('≈ $0.42, estimated');
  });

  it('names unknown models instead of showing $0', () => {
    expect(formatCost({ usd: 0, pricedTokens: 0, unknownModels: ['acme-7'] })).toBe('price unknown for model acme-7');
    expect(formatCostShort({ usd: 0, pricedTokens: 0, unknownModels: ['acme-7'] })).toBe('price unknown');
  });

  it('says a total that mixes priced and unpriced models is partial', () => {
    expect(formatCost({ usd: 1.5, pricedTokens: 10, unknownModels: ['a', 'b'] })).toBe('≈ $1.50, estimated (partial: price unknown for models a, b)');
    expect(formatCostShort({ usd: 1.5, pricedTokens: 10, unknownModels: ['a'] })).toBe('≈ $1.50 + ? est.');
  });
});
