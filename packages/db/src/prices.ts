/**
 * The built-in price table of models, and the one rule that turns a model call's tokens into an
 * estimated cost in US dollars. Every dollar figure in the web app comes from here, applied when
 * the page is read (never stored), so a project's own price (Settings > Model prices, the
 * model_prices table) changes every figure at once.
 *
 * Prices are USD per million tokens, standard tier (no batch, flex or priority discounts; for
 * Anthropic, prompts up to 200k tokens; cache writes priced as ordinary input), copied by hand from
 * each provider's published price page on the date in `checked`. They are estimates: providers
 * change prices, and a contract may differ. Override them per project.
 */

/** A model's price in USD per million tokens. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  /** Input tokens served from the provider's prompt cache. */
  cachedInputPerMTok: number;
}

/** One entry of the built-in table, with where and when its figures were read. */
export interface PriceEntry extends ModelPrice {
  /** The model as normalizeModel() gives it. */
  model: string;
  provider: string;
  /** The provider's published price page. */
  source: string;
  /** The day (UTC, YYYY-MM-DD) the figures were copied from `source`. */
  checked: string;
}

const OPENAI = 'https://platform.openai.com/docs/pricing';
const ANTHROPIC = 'https://docs.anthropic.com/en/docs/about-claude/pricing';
/** The day this table was last compared with the providers' pages. */
export const PRICES_CHECKED = '2026-12-05';

const entry = (provider: string, source: string, model: string, input: number, cached: number, output: number): PriceEntry => ({
  model,
  provider,
  source,
  checked: PRICES_CHECKED,
  inputPerMTok: input,
  cachedInputPerMTok: cached,
  outputPerMTok: output,
});

/** USD per million tokens: input, cached input, output. */
export const PRICE_TABLE: readonly PriceEntry[] = [
  entry('openai', OPENAI, 'gpt-5', 1.25, 0.125, 10),
  entry('openai', OPENAI, 'gpt-5-mini', 0.25, 0.025, 2),
  entry('openai', OPENAI, 'gpt-5-nano', 0.05, 0.005, 0.4),
  entry('openai', OPENAI, 'gpt-4.1', 2, 0.5, 8),
  entry('openai', OPENAI, 'gpt-4.1-mini', 0.4, 0.1, 1.6),
  entry('openai', OPENAI, 'gpt-4.1-nano', 0.1, 0.025, 0.4),
  entry('openai', OPENAI, 'gpt-4o', 2.5, 1.25, 10),
  entry('openai', OPENAI, 'gpt-4o-mini', 0.15, 0.075, 0.6),
  entry('openai', OPENAI, 'o3', 2, 0.5, 8),
  entry('openai', OPENAI, 'o3-mini', 1.1, 0.55, 4.4),
  entry('openai', OPENAI, 'o4-mini', 1.1, 0.275, 4.4),
  entry('anthropic', ANTHROPIC, 'claude-opus-4-5', 5, 0.5, 25),
  entry('anthropic', ANTHROPIC, 'claude-opus-4-1', 15, 1.5, 75),
  entry('anthropic', ANTHROPIC, 'claude-opus-4', 15, 1.5, 75),
  entry('anthropic', ANTHROPIC, 'claude-sonnet-4-5', 3, 0.3, 15),
  entry('anthropic', ANTHROPIC, 'claude-sonnet-4', 3, 0.3, 15),
  entry('anthropic', ANTHROPIC, 'claude-3-7-sonnet', 3, 0.3, 15),
  entry('anthropic', ANTHROPIC, 'claude-haiku-4-5', 1, 0.1, 5),
  entry('anthropic', ANTHROPIC, 'claude-3-5-haiku', 0.8, 0.08, 4),
];

const TABLE = new Map(PRICE_TABLE.map((e) => [e.model, e]));

// Anthropic's aliases of a dated model: `claude-sonnet-4-0` is `claude-sonnet-4-20250514`.
const ALIAS_ZERO = /^(claude-(?:opus|sonnet|haiku)-\d)-0$/;

/**
 * The name a model is priced under: lower case; without a provider or path prefix
 * (`openai/gpt-4o`, `models/gemini-2.5-pro`), a Bedrock region and vendor prefix and version
 * suffix (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`), a Vertex version (`…@20250929`), a
 * release date (`-2024-08-06`, `-20250929`) or snapshot (`-0613`) or `-latest`; Claude's dotted
 * versions written with dashes (`claude-sonnet-4.5`), and `claude-opus-4-0` as `claude-opus-4`.
 * So `gpt-4o-2024-08-06` is priced as `gpt-4o`, while `gpt-4o-mini` stays a model of its own.
 */
export function normalizeModel(name: string): string {
  let m = name.trim().toLowerCase();
  m = m.slice(m.lastIndexOf('/') + 1);
  m = m.replace(/^(?:[a-z]{2,4}\.)?(?:anthropic|openai|meta|amazon|mistral|cohere)\./, '');
  m = m.replace(/@.*$/, '').replace(/-v\d+(?::\d+)?$/, '');
  m = m.replace(/-latest$/, '').replace(/-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4})$/, '');
  if (m.startsWith('claude-')) m = m.replaceAll('.', '-');
  return m.replace(ALIAS_ZERO, '$1');
}

/** Where a price came from: the built-in table (with its page and date) or the project's override. */
export type PriceOrigin = { kind: 'table'; source: string; checked: string } | { kind: 'override' };

/** Prices of one project: its overrides (keyed by normalised model) over the built-in table. */
export class PriceBook {
  private readonly overrides: ReadonlyMap<string, ModelPrice>;

  constructor(overrides: Iterable<{ model: string } & ModelPrice> = []) {
    this.overrides = new Map([...overrides].map((o) => [normalizeModel(o.model), o]));
  }

  /** The price of a model as recorded (any spelling normalizeModel accepts), or null when unknown. */
  lookup(model: string | null): { price: ModelPrice; origin: PriceOrigin } | null {
    if (!model) return null;
    const key = normalizeModel(model);
    const own = this.overrides.get(key);
    if (own) return { price: own, origin: { kind: 'override' } };
    const e = TABLE.get(key);
    return e ? { price: e, origin: { kind: 'table', source: e.source, checked: e.checked } } : null;
  }
}

/** Tokens of one or more model calls of one model. Cached input tokens are part of the input tokens. */
export interface ModelTokens {
  model: string | null;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

/**
 * USD of tokens at a price: the input not served from cache at the input price, the cached input
 * at the cached price, the output at the output price. The collector stores a call whose cache
 * tokens were reported beside its input with the input as their sum; cached tokens above the input
 * (none stored since migration model_call_input_with_cache) leave no uncached input.
 */
export function costOf(t: Omit<ModelTokens, 'model'>, p: ModelPrice): number {
  const uncached = Math.max(t.inputTokens - t.cachedInputTokens, 0);
  return (uncached * p.inputPerMTok + t.cachedInputTokens * p.cachedInputPerMTok + t.outputTokens * p.outputPerMTok) / 1_000_000;
}

/** Name shown for model calls that recorded no model. */
export const UNNAMED_MODEL = '(no model name)';

/** An estimated cost: the dollars of the priced tokens, and the models that could not be priced. */
export interface CostEstimate {
  usd: number;
  /** Tokens that were priced; 0 with unknown models: nothing could be estimated. */
  pricedTokens: number;
  /** Models with tokens but no price (as recorded, sorted); the estimate is partial when any. */
  unknownModels: string[];
}

/** The estimated cost of tokens per model (rows may repeat a model), each row scaled by its weight. */
export function estimateCost(rows: Iterable<ModelTokens & { weight?: number }>, book: PriceBook): CostEstimate {
  let usd = 0;
  let pricedTokens = 0;
  const unknown = new Set<string>();
  for (const r of rows) {
    const w = r.weight ?? 1;
    const tokens = r.inputTokens + r.outputTokens;
    if (tokens === 0) continue;
    const found = book.lookup(r.model);
    if (!found) {
      unknown.add(r.model ?? UNNAMED_MODEL);
      continue;
    }
    usd += w * costOf(r, found.price);
    pricedTokens += w * tokens;
  }
  return { usd, pricedTokens, unknownModels: [...unknown].sort() };
}
