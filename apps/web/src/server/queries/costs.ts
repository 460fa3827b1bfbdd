import 'server-only';
import { type CostEstimate, estimateCost, type ModelTokens, PriceBook, type PrismaClient } from '@guardtrace/db';
import type { DayWindow } from './analytics.ts';

/**
 * Estimated costs in US dollars: stored tokens per model, priced when the page is read by the
 * project's price book (its overrides over the built-in table, packages/db/src/prices.ts). No
 * dollar figure is stored, so a price change applies to every figure at once.
 */
export type CostDto = CostEstimate;

/** The project's prices: its own (Settings > Model prices) over the built-in table. */
export async function priceBookOf(db: PrismaClient, projectId: string): Promise<PriceBook> {
  const own = await db.modelPrice.findMany({ where: { projectId } });
  return new PriceBook(own);
}

interface TokenRow {
  key: string;
  model: string | null;
  input: bigint | number;
  output: bigint | number;
  cached: bigint | number;
  weight?: number;
}

const tokens = (r: TokenRow): ModelTokens & { weight: number } => ({
  model: r.model,
  inputTokens: Number(r.input),
  outputTokens: Number(r.output),
  cachedInputTokens: Number(r.cached),
  weight: r.weight === undefined ? 1 : Number(r.weight),
});

/** Rows grouped by `key`, each group's cost estimated. */
function byKey(rows: TokenRow[], book: PriceBook): Map<string, CostDto> {
  const groups = new Map<string, TokenRow[]>();
  for (const r of rows) {
    const g = groups.get(r.key);
    if (g) g.push(r);
    else groups.set(r.key, [r]);
  }
  return new Map([...groups].map(([k, g]) => [k, estimateCost(g.map(tokens), book)]));
}

/**
 * Each session's estimated cost (its own tokens, as recorded: not scaled by sampling weight). Its
 * calls' input is summed per call as the larger of its input and its cached input, so the sum
 * prices as its calls priced alone: costOf reads a call's cached input above its input as reported
 * beside it (no uncached input), and summed first, one call's surplus would cancel another's
 * uncached input. The per-model rollups the analytics read are summed so too (the collector's
 * guardtrace_update_model_costs).
 */
export async function estimateSessionCosts(db: PrismaClient, projectId: string, sessionIds: string[], book?: PriceBook): Promise<Map<string, CostDto>> {
  if (sessionIds.length === 0) return new Map();
  const [rows, prices] = await Promise.all([
    db.$queryRaw<TokenRow[]>`
      SELECT session_id AS key, model, sum(greatest(input_tokens, cached_input_tokens))::bigint AS input, sum(output_tokens)::bigint AS output,
        sum(cached_input_tokens)::bigint AS cached
      FROM model_calls
      WHERE project_id = ${projectId}::uuid AND session_id = ANY(${sessionIds}::text[])
      GROUP BY 1, 2`,
    book ?? priceBookOf(db, projectId),
  ]);
  const out = byKey(rows, prices);
  for (const id of sessionIds) if (!out.has(id)) out.set(id, estimateCost([], prices));
  return out;
}

/** Estimated cost of the repair turns per failure class and per tool ('' when unknown). */
export interface RepairCostsDto {
  byClass: Map<string, CostDto>;
  byTool: Map<string, CostDto>;
}

/**
 * The repair turns of the window (model calls that repaired a failed attempt), priced per model:
 * read from the per-model rollup the collector keeps beside analytics_daily (analytics_model_daily:
 * the same attribution to the repaired attempt's day, tool and class, tokens scaled by sampling
 * weight), so it costs the same at 100k sessions as at 100.
 */
export async function getRepairCosts(db: PrismaClient, projectId: string, w: DayWindow, book?: PriceBook): Promise<RepairCostsDto> {
  const [rows, prices] = await Promise.all([
    db.$queryRaw<(TokenRow & { tool: string; cls: string })[]>`
      SELECT tool_name AS tool, failure_class AS cls, '' AS key, nullif(model, '') AS model, sum(input_tokens)::float8 AS input,
        sum(output_tokens)::float8 AS output, sum(cached_input_tokens)::float8 AS cached
      FROM analytics_model_daily
      WHERE project_id = ${projectId}::uuid AND day BETWEEN ${w.from}::date AND ${w.to}::date
      GROUP BY 1, 2, 4
      HAVING sum(input_tokens) + sum(output_tokens) > 0.5`,
    book ?? priceBookOf(db, projectId),
  ]);
  const keyed = (f: (r: (typeof rows)[number]) => string) => byKey(rows.map((r) => ({ ...r, key: f(r) })), prices);
  return {
    byClass: keyed((r) => r.cls),
    byTool: keyed((r) => r.tool),
  };
}

/**
 * Every model call of the sessions started in the window (the sessions analytics' totals count),
 * priced, each scaled by its session's sampling weight: read from the rollup the collector keeps
 * (analytics_model_spend_daily, by the UTC day of the session's start and model).
 */
export async function getWindowSpend(db: PrismaClient, projectId: string, w: DayWindow, book?: PriceBook): Promise<CostDto> {
  const [rows, prices] = await Promise.all([
    db.$queryRaw<TokenRow[]>`
      SELECT '' AS key, nullif(model, '') AS model, sum(input_tokens)::float8 AS input, sum(output_tokens)::float8 AS output,
        sum(cached_input_tokens)::float8 AS cached
      FROM analytics_model_spend_daily
      WHERE project_id = ${projectId}::uuid AND day BETWEEN ${w.from}::date AND ${w.to}::date
      GROUP BY 2
      HAVING sum(input_tokens) + sum(output_tokens) > 0.5`,
    book ?? priceBookOf(db, projectId),
  ]);
  return estimateCost(rows.map(tokens), prices);
}
