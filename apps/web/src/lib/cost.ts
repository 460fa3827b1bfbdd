import type { CostEstimate } from '@guardtrace/db';

const cents = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * Dollars: cents from a dollar up ($1,234.56), two significant digits below ($0.42, $0.014,
 * $0.0042). (Cents from one cent up showed $0.0144 as $0.01, 31% low: a session's cost is often
 * a few cents.)
 */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0.00';
  if (Math.abs(usd) >= 1) return cents.format(usd);
  const rounded = Number(usd.toPrecision(2));
  // Two significant digits, at least two decimals, no zero past those ($0.08, not $0.080).
  const text = rounded.toFixed(Math.max(2, 1 - Math.floor(Math.log10(Math.abs(rounded)))));
  return `$${text.replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}

const modelList = (models: string[]) => `${models.length === 1 ? 'model' : 'models'} ${models.join(', ')}`;

/**
 * An estimated cost in words, always marked as an estimate: "≈ $0.42, estimated"; a model
 * without a price is named instead of counted as $0 ("price unknown for model acme-7"), and a
 * total that mixes priced and unpriced models says it is partial.
 */
export function formatCost(c: CostEstimate): string {
  const unknown = c.unknownModels.length ? `price unknown for ${modelList(c.unknownModels)}` : '';
  if (unknown && c.pricedTokens === 0) return unknown;
  const sum = `≈ ${formatUsd(c.usd)}, estimated`;
  return unknown ? `${sum} (partial: ${unknown})` : sum;
}

/** A short form for a table cell: "≈ $0.42 est.", "≈ $0.42 + ? est." when partial, "price unknown" when nothing is priced. */
export function formatCostShort(c: CostEstimate): string {
  if (c.unknownModels.length && c.pricedTokens === 0) return 'price unknown';
  return `≈ ${formatUsd(c.usd)}${c.unknownModels.length ? ' + ?' : ''} est.`;
}
