import { describe, expect, it } from 'vitest';
import { costOf, estimateCost, normalizeModel, PRICE_TABLE, PriceBook } from '../src/prices.ts';

describe('the built-in price table', () => {
  it('gives every entry its published source page and the date it was read', () => {
    expect(PRICE_TABLE.length).toBeGreaterThan(10);
    for (const e of PRICE_TABLE) {
      expect(e.source, e.model).toMatch(/^https:\/\/(platform\.openai\.com|docs\.anthropic\.com)\//);
      expect(e.checked, e.model).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(Number.isNaN(Date.parse(`${e.checked}T00:00:00Z`)), e.model).toBe(false);
      for (const p of [e.inputPerMTok, e.outputPerMTok, e.cachedInputPerMTok]) expect(p, e.model).toBeGreaterThan(0);
      expect(e.cachedInputPerMTok, e.model).toBeLessThanOrEqual(e.inputPerMTok);
    }
  });

  it('keys every entry by its normalised name, once', () => {
    const models = PRICE_TABLE.map((e) => e.model);
    expect(new Set(models).size).toBe(models.length);
    for (const m of models) expect(normalizeModel(m)).toBe(m);
  });
});

describe('normalizeModel', () => {
  it.each([
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
    ['GPT-4.1', 'gpt-4.1'],
    ['openai/gpt-4.1-mini', 'gpt-4.1-mini'],
    ['gpt-3.5-turbo-0125', 'gpt-3.5-turbo'],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ['claude-sonnet-4.5', 'claude-sonnet-4-5'],
    ['claude-3-5-haiku-latest', 'claude-3-5-haiku'],
    ['claude-opus-4-0', 'claude-opus-4'],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5'],
    ['claude-opus-4-1@20250805', 'claude-opus-4-1'],
  ])('%s → %s', (raw, want) => expect(normalizeModel(raw)).toBe(want));
});

describe('costs', () => {
  it('prices uncached input, cached input and output each at their rate', () => {
    // gpt-4o: $2.50 in, $1.25 cached, $10 out per million.
    const p = new PriceBook().lookup('gpt-4o-2024-08-06');
    expect(p?.origin).toEqual({ kind: 'table', source: 'https://platform.openai.com/docs/pricing', checked: expect.any(String) });
    expect(costOf({ inputTokens: 100_000, cachedInputTokens: 40_000, outputTokens: 10_000 }, p!.price)).toBeCloseTo(0.15 + 0.05 + 0.1, 10);
    // Cached tokens reported beside the input (more than it): no uncached input left, none negative.
    expect(costOf({ inputTokens: 100, cachedInputTokens: 1_000_000, outputTokens: 0 }, p!.price)).toBeCloseTo(1.25, 10);
  });

  it('uses a project override before the table, under any spelling of the model', () => {
    const book = new PriceBook([{ model: 'GPT-4o', inputPerMTok: 1, outputPerMTok: 2, cachedInputPerMTok: 0.5 }]);
    expect(book.lookup('gpt-4o-2024-11-20')).toEqual({ price: expect.objectContaining({ inputPerMTok: 1 }), origin: { kind: 'override' } });
    expect(book.lookup('gpt-4o-mini')?.origin.kind).toBe('table');
  });

  it('names unknown models instead of pricing them at $0, and says what was priced', () => {
    const book = new PriceBook();
    const rows = [
      { model: 'gpt-4.1', inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 0, weight: 2 },
      { model: 'acme-llm-7', inputTokens: 500, outputTokens: 10, cachedInputTokens: 0 },
      { model: null, inputTokens: 5, outputTokens: 5, cachedInputTokens: 0 },
      { model: 'mystery', inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
    ];
    expect(estimateCost(rows, book)).toEqual({ usd: 4, pricedTokens: 2_000_000, unknownModels: ['(no model name)', 'acme-llm-7'] });
    expect(estimateCost([rows[1]!], book)).toEqual({ usd: 0, pricedTokens: 0, unknownModels: ['acme-llm-7'] });
  });
});
