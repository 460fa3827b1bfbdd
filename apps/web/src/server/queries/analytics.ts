import 'server-only';
import type { PrismaClient } from '@guardtrace/db';

/**
 * The analytics page's data layer. Failure figures come from the daily rollup the collector
 * keeps in its write transaction (analytics_daily: project × UTC day × tool × failure class ×
 * feedback template) and analytics_cost_daily (project × day × cost bucket), so they cost the
 * same at 100k sessions as at 100.
 */

// Ranges offered on the analytics page; 30 days by default: a month of trends at a glance.
export const ANALYTICS_RANGES = [7, 30, 90] as const;
export type AnalyticsRange = (typeof ANALYTICS_RANGES)[number];
export const DEFAULT_RANGE: AnalyticsRange = 30;

/** Whole UTC days: `from` inclusive, `to` inclusive (YYYY-MM-DD). */
export interface DayWindow {
  from: string;
  to: string;
}

const day = (d: Date) => d.toISOString().slice(0, 10);
const nextDay = (d: string) => day(new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000));

/** The last `rangeDays` UTC days up to and including today's. */
export function lastDays(rangeDays: number, now = new Date()): DayWindow {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { from: day(new Date(today - (rangeDays - 1) * 86_400_000)), to: day(new Date(today)) };
}

// A custom window spans at most a year: the rollup keeps one row per day and segment, and a
// longer view belongs to an export, not a page.
const MAX_WINDOW_DAYS = 366;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The window a URL asks for: `range` (days up to today) or `from` and `to` (UTC dates). */
export interface WindowChoice {
  window: DayWindow;
  /** The preset range in use, or null for a custom `from`/`to` window. */
  range: AnalyticsRange | null;
  /** What was wrong with the URL's parameters (the default window is shown instead). */
  error: string | null;
}

function parseDate(name: string, v: string): string {
  if (!DATE.test(v) || Number.isNaN(Date.parse(`${v}T00:00:00Z`)) || day(new Date(`${v}T00:00:00Z`)) !== v) {
    throw new Error(`${name}: expected a date as YYYY-MM-DD, got "${v.slice(0, 40)}"`);
  }
  return v;
}

/** Reads `range`, `from` and `to`; bad values fall back to the default range, with the reason. */
export function parseAnalyticsWindow(
  params: { range?: string; from?: string; to?: string },
  now = new Date(),
): WindowChoice {
  const fallback = (error: string): WindowChoice => ({ window: lastDays(DEFAULT_RANGE, now), range: DEFAULT_RANGE, error });
  if (params.from !== undefined || params.to !== undefined) {
    if (params.from === undefined || params.to === undefined) return fallback('from and to: give both dates, or neither');
    try {
      const from = parseDate('from', params.from);
      const to = parseDate('to', params.to);
      if (from > to) return fallback(`from (${from}) is after to (${to})`);
      const span = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
      if (span > MAX_WINDOW_DAYS) return fallback(`from..to spans ${span} days; at most ${MAX_WINDOW_DAYS} are shown`);
      return { window: { from, to }, range: null, error: null };
    } catch (e) {
      return fallback((e as Error).message);
    }
  }
  if (params.range === undefined) return { window: lastDays(DEFAULT_RANGE, now), range: DEFAULT_RANGE, error: null };
  const r = Number(params.range);
  if (!(ANALYTICS_RANGES as readonly number[]).includes(r)) {
    return fallback(`range: expected one of ${ANALYTICS_RANGES.join(', ')} (days), got "${params.range.slice(0, 40)}"`);
  }
  return { window: lastDays(r, now), range: r as AnalyticsRange, error: null };
}

/** Every day of the window, in order. */
function windowDays(w: DayWindow): string[] {
  const out: string[] = [];
  for (let d = w.from; d <= w.to; d = nextDay(d)) out.push(d);
  return out;
}

/** One day of repair tokens, one key per failure class (the shape recharts stacks). */
export interface RepairDayDto {
  day: string;
  byClass: Record<string, number>;
}

/** Repair tokens (tokens spent on failed attempts) per day and class, every day present. */
export async function getRepairTokensByDay(db: PrismaClient, projectId: string, w: DayWindow): Promise<RepairDayDto[]> {
  const rows = await db.$queryRaw<{ day: string; cls: string; tokens: number }[]>`
    SELECT to_char(day, 'YYYY-MM-DD') AS day, failure_class AS cls, sum(failed_tokens)::float8 AS tokens
    FROM analytics_daily
    WHERE project_id = ${projectId}::uuid AND day BETWEEN ${w.from}::date AND ${w.to}::date AND failure_class <> ''
    GROUP BY 1, 2
    HAVING sum(failed_tokens) > 0.5`;
  const days = windowDays(w).map((d) => ({ day: d, byClass: {} as Record<string, number> }));
  const index = new Map(days.map((d) => [d.day, d]));
  for (const r of rows) {
    const entry = index.get(r.day);
    if (entry) entry.byClass[r.cls] = Math.round(Number(r.tokens));
  }
  return days;
}

/** A tool × failure class segment. */
export interface ToolClassDto {
  tool: string;
  failureClass: string;
  /** Tokens of model turns that repaired failed attempts of this segment, scaled by sampling weight. */
  failedTokens: number;
  failedAttempts: number;
  /** Distinct sessions with a failed attempt or repair turn of this segment in the window. */
  sessions: number;
}

// The ranked tables show the top segments; 25 rows fit a screen and hold the long tail's head.
const TOP = 25;

/** Tool × failure class, ranked by tokens spent on failed attempts (then failed attempts). */
export async function getToolClassCosts(db: PrismaClient, projectId: string, w: DayWindow): Promise<ToolClassDto[]> {
  const rows = await db.$queryRaw<{ tool: string; cls: string; tokens: number; failed: number; sessions: number }[]>`
    SELECT t.tool, t.cls, t.tokens, t.failed, (
      -- Distinct sessions: once whatever the templates and days of its parts (analytics_daily counts
      -- a session per part, which cannot be summed to that), from the parts' index alone.
      SELECT count(DISTINCT p.session_id)::int FROM analytics_session_parts p
      WHERE p.project_id = ${projectId}::uuid AND p.failure_class = t.cls AND p.tool_name = t.tool
        AND p.day BETWEEN ${w.from}::date AND ${w.to}::date
    ) AS sessions
    FROM (
      SELECT tool_name AS tool, failure_class AS cls, sum(failed_tokens)::float8 AS tokens, sum(failed_attempts)::int AS failed
      FROM analytics_daily
      WHERE project_id = ${projectId}::uuid AND day BETWEEN ${w.from}::date AND ${w.to}::date AND failure_class <> ''
      GROUP BY 1, 2
      HAVING sum(failed_tokens) > 0.5 OR sum(failed_attempts) > 0
      ORDER BY 3 DESC, 4 DESC, 1, 2
      LIMIT ${TOP}
    ) t
    ORDER BY t.tokens DESC, t.failed DESC, t.tool, t.cls`;
  return rows.map((r) => ({
    tool: r.tool,
    failureClass: r.cls,
    failedTokens: Math.round(Number(r.tokens)),
    failedAttempts: Number(r.failed),
    sessions: Number(r.sessions),
  }));
}

/** A tool ranked by retry exhaustion, with the classes its exhausted calls failed with. */
export interface ExhaustionDto {
  tool: string;
  exhausted: number;
  /** The tool's attempts scaled back up by their sessions' sampling weight (an estimate). */
  attempts: number;
  byClass: { failureClass: string; exhausted: number }[];
}

/** Tools ranked by calls that ran out of a retry budget. */
export async function getRetryExhaustion(db: PrismaClient, projectId: string, w: DayWindow): Promise<ExhaustionDto[]> {
  const rows = await db.$queryRaw<{ tool: string; cls: string; exhausted: number; attempts: number }[]>`
    SELECT tool_name AS tool, failure_class AS cls, sum(retry_exhausted)::int AS exhausted, sum(weighted_attempts)::float8 AS attempts
    FROM analytics_daily
    WHERE project_id = ${projectId}::uuid AND day BETWEEN ${w.from}::date AND ${w.to}::date
    GROUP BY 1, 2`;
  const byTool = new Map<string, ExhaustionDto>();
  for (const r of rows) {
    let t = byTool.get(r.tool);
    if (!t) {
      t = { tool: r.tool, exhausted: 0, attempts: 0, byClass: [] };
      byTool.set(r.tool, t);
    }
    t.exhausted += Number(r.exhausted);
    t.attempts += Number(r.attempts);
    if (Number(r.exhausted) > 0) t.byClass.push({ failureClass: r.cls, exhausted: Number(r.exhausted) });
  }
  return [...byTool.values()]
    .filter((t) => t.exhausted > 0)
    .map((t) => ({
      ...t,
      attempts: Math.round(t.attempts),
      byClass: t.byClass.sort((a, b) => b.exhausted - a.exhausted || a.failureClass.localeCompare(b.failureClass)),
    }))
    .sort((a, b) => b.exhausted - a.exhausted || a.tool.localeCompare(b.tool))
    .slice(0, TOP);
}

/** Rejections of one tool, class and feedback template, and how many their corrections fixed. */
export interface RejectionDto {
  tool: string;
  failureClass: string;
  template: string;
  /** Failed attempts whose feedback went back to the model (see README, "Analytics"). */
  rejections: number;
  /**
   * Rejections whose correction succeeded at once: the same call's next attempt, or the first call
   * the model made after its repair turn (the replay's "→ corrected call" link, stored by the collector).
   */
  fixed: number;
}

/** Rejection effectiveness per tool, class and feedback template, most rejections first. */
export async function getRejectionEffectiveness(db: PrismaClient, projectId: string, w: DayWindow): Promise<RejectionDto[]> {
  // From the session parts (a partial index holds those with rejections): the collector keeps each
  // session's fixed count there as it links corrections, under that session's lock only.
  const rows = await db.$queryRaw<{ tool: string; cls: string; template: string; rejections: number; fixed: number }[]>`
    SELECT tool_name AS tool, failure_class AS cls, feedback_template AS template,
      sum(rejections)::int AS rejections, sum(rejections_fixed)::int AS fixed
    FROM analytics_session_parts
    WHERE project_id = ${projectId}::uuid AND day BETWEEN ${w.from}::date AND ${w.to}::date AND rejections > 0
    GROUP BY 1, 2, 3
    ORDER BY 4 DESC, 5 DESC, 1, 2, 3
    LIMIT ${TOP}`;
  return rows.map((r) => ({
    tool: r.tool,
    failureClass: r.cls,
    template: r.template,
    rejections: Number(r.rejections),
    fixed: Number(r.fixed),
  }));
}

/**
 * Upper bounds of the cost-per-session buckets, in tokens (1-2-5 steps; the last is open): the
 * labels of the buckets guardtrace_cost_bucket() (analytics_rollup migration) counts sessions in.
 */
const COST_BUCKETS = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000] as const;

interface CostBucketDto {
  /** Inclusive lower bound, exclusive upper bound (null: no upper bound). */
  min: number;
  max: number | null;
  /** Sessions in the bucket, scaled back up by their sampling weight. */
  sessions: number;
}

export interface SessionCostsDto {
  /** Sessions scaled back up by their sampling weight. */
  estimatedSessions: number;
  /**
   * Sessions stored and kept: the ones the explorer lists for the window by default (sessions held
   * at weight 0 for a sampling decision left out, as their link leaves them out).
   */
  storedSessions: number;
  tokens: number;
  repairTokens: number;
  histogram: CostBucketDto[];
}

/** Token totals and the cost-per-session histogram of the sessions started in the window. */
export async function getSessionCosts(db: PrismaClient, projectId: string, w: DayWindow): Promise<SessionCostsDto> {
  const rows = await db.$queryRaw<{ bucket: number; stored: bigint; est: number; tokens: number; repair: number }[]>`
    SELECT bucket, sum(sessions)::bigint AS stored, sum(estimated_sessions)::float8 AS est,
      sum(tokens)::float8 AS tokens, sum(repair_tokens)::float8 AS repair
    FROM analytics_cost_daily
    WHERE project_id = ${projectId}::uuid AND day BETWEEN ${w.from}::date AND ${w.to}::date
    GROUP BY 1`;
  // Held for a sampling decision (weight 0): counted in the rollup's stored sessions, not kept (sessions_held_idx).
  const held = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM sessions
    WHERE project_id = ${projectId}::uuid AND sampling_weight = 0
      AND started_at >= ${w.from}::date::timestamp AT TIME ZONE 'UTC' AND started_at < (${w.to}::date + 1)::timestamp AT TIME ZONE 'UTC'`;
  const histogram: CostBucketDto[] = [0, ...COST_BUCKETS].map((min, i) => ({ min, max: COST_BUCKETS[i] ?? null, sessions: 0 }));
  const out: SessionCostsDto = { estimatedSessions: 0, storedSessions: 0, tokens: 0, repairTokens: 0, histogram };
  for (const r of rows) {
    out.storedSessions += Number(r.stored);
    out.estimatedSessions += Number(r.est);
    out.tokens += Number(r.tokens);
    out.repairTokens += Number(r.repair);
    const b = histogram[Number(r.bucket)];
    if (b) b.sessions += Math.round(Number(r.est));
  }
  out.storedSessions -= Number(held[0]?.n ?? 0);
  out.estimatedSessions = Math.round(out.estimatedSessions);
  out.tokens = Math.round(out.tokens);
  out.repairTokens = Math.round(out.repairTokens);
  return out;
}

/** A failure class's tokens spent on failed attempts (its share is of every class's, in the same window). */
export interface ClassShareDto {
  failureClass: string;
  failedTokens: number;
  failedAttempts: number;
  sessions: number;
}

/** Per failure class: tokens spent on its failed attempts, failed attempts, distinct sessions. */
export async function getClassShares(db: PrismaClient, projectId: string, w: DayWindow): Promise<ClassShareDto[]> {
  const rows = await db.$queryRaw<{ cls: string; tokens: number; failed: number; sessions: number }[]>`
    SELECT c.cls, c.tokens, c.failed, (
      SELECT count(DISTINCT p.session_id)::int FROM analytics_session_parts p
      WHERE p.project_id = ${projectId}::uuid AND p.failure_class = c.cls AND p.day BETWEEN ${w.from}::date AND ${w.to}::date
    ) AS sessions
    FROM (
      SELECT failure_class AS cls, sum(failed_tokens)::float8 AS tokens, sum(failed_attempts)::int AS failed
      FROM analytics_daily
      WHERE project_id = ${projectId}::uuid AND day BETWEEN ${w.from}::date AND ${w.to}::date AND failure_class <> ''
      GROUP BY 1
      HAVING sum(failed_tokens) > 0.5 OR sum(failed_attempts) > 0
    ) c
    ORDER BY 2 DESC, 3 DESC, 1`;
  return rows.map((r) => ({
    failureClass: r.cls,
    failedTokens: Math.round(Number(r.tokens)),
    failedAttempts: Number(r.failed),
    sessions: Number(r.sessions),
  }));
}

/** Repairs of one failure class: done in code by the SDK (auto-repair) and left to the model (rejections). */
export interface RepairSplitDto {
  failureClass: string;
  /** Failed attempts the SDK corrected in code and ran again, without a model turn (decision `auto_repair`). */
  inCode: number;
  /** Failed attempts whose feedback went back to the model: the rejections of "Rejection effectiveness". */
  byModel: number;
  /**
   * Tokens the repairs in code saved, estimated: each one a repair turn not spent, at the mean
   * tokens of the window's repair turns of its class (`class`), else of all classes (`all`); null
   * when the window has no repair turn to measure.
   */
  savedTokens: number | null;
  savedBasis: 'class' | 'all' | null;
}

/** Repairs in code vs by the model, per failure class, most repairs first. */
export async function getRepairSplit(db: PrismaClient, projectId: string, w: DayWindow): Promise<RepairSplitDto[]> {
  // Repair turns' tokens only where their count is stored too (parts counted before it was are left out).
  const rows = await db.$queryRaw<{ cls: string; in_code: number; by_model: number; tokens: number; turns: number; all_tokens: number; all_turns: number }[]>`
    SELECT failure_class AS cls, sum(repairs_in_code)::int AS in_code, sum(rejections)::int AS by_model,
      coalesce(sum(failed_tokens) FILTER (WHERE repair_turns > 0), 0)::float8 AS tokens, sum(repair_turns)::float8 AS turns,
      sum(coalesce(sum(failed_tokens) FILTER (WHERE repair_turns > 0), 0)) OVER ()::float8 AS all_tokens,
      sum(sum(repair_turns)) OVER ()::float8 AS all_turns
    FROM analytics_session_parts
    WHERE project_id = ${projectId}::uuid AND day BETWEEN ${w.from}::date AND ${w.to}::date
      AND (repairs_in_code > 0 OR rejections > 0 OR repair_turns > 0)
    GROUP BY 1
    ORDER BY sum(repairs_in_code) + sum(rejections) DESC, 1
    LIMIT ${TOP}`;
  return rows
    .filter((r) => Number(r.in_code) > 0 || Number(r.by_model) > 0)
    .map((r) => {
      const inCode = Number(r.in_code);
      const [perTurn, basis] =
        Number(r.turns) > 0 ? [Number(r.tokens) / Number(r.turns), 'class' as const] : Number(r.all_turns) > 0 ? [Number(r.all_tokens) / Number(r.all_turns), 'all' as const] : [null, null];
      return {
        failureClass: r.cls,
        inCode,
        byModel: Number(r.by_model),
        savedTokens: perTurn === null ? null : Math.round(inCode * perTurn),
        savedBasis: basis,
      };
    });
}
