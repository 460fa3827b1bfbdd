import 'server-only';
import type { PrismaClient } from '@guardtrace/db';

// Ranges offered on the analytics page; 30 days by default: a month of trends at a glance.
export const ANALYTICS_RANGES = [7, 30, 90] as const;
export type AnalyticsRange = (typeof ANALYTICS_RANGES)[number];
export const DEFAULT_RANGE: AnalyticsRange = 30;

/** One day of repair tokens, one key per failure class (the shape recharts stacks). */
export interface RepairDayDto {
  day: string;
  byClass: Record<string, number>;
}

export interface ClassSummaryDto {
  failureClass: string;
  attempts: number;
  sessions: number;
  /** Tokens of model turns that repaired an attempt of this class, scaled by sampling weight. */
  repairTokens: number;
  /** Attempts per decision taken after an attempt of this class. */
  decisions: Record<string, number>;
}

export interface TokenTotalsDto {
  /** Sessions scaled back up by their sampling weight. */
  estimatedSessions: number;
  storedSessions: number;
  tokens: number;
  repairTokens: number;
}

function sinceDate(now: Date, rangeDays: number): Date {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  d.setUTCDate(d.getUTCDate() - (rangeDays - 1));
  return d;
}

/** Repair tokens per day and class, in UTC days, with every day of the range present. */
export async function getRepairTokensByDay(
  db: PrismaClient,
  projectId: string,
  rangeDays: number,
  now = new Date(),
): Promise<RepairDayDto[]> {
  const since = sinceDate(now, rangeDays);
  const rows = await db.$queryRaw<{ day: string; cls: string; tokens: number }[]>`
    SELECT to_char(date_trunc('day', m.started_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day,
           m.repair_failure_class AS cls,
           sum((m.input_tokens + m.output_tokens) * coalesce(s.sampling_weight, 1))::float8 AS tokens
    FROM model_calls m
    LEFT JOIN sessions s ON s.project_id = m.project_id AND s.id = m.session_id
    WHERE m.project_id = ${projectId}::uuid
      AND m.repair_failure_class IS NOT NULL
      AND m.started_at >= ${since}
    GROUP BY 1, 2
    ORDER BY 1, 2`;
  const days: RepairDayDto[] = [];
  const index = new Map<string, RepairDayDto>();
  for (let i = 0; i < rangeDays; i++) {
    const d = new Date(since);
    d.setUTCDate(d.getUTCDate() + i);
    const entry = { day: d.toISOString().slice(0, 10), byClass: {} };
    days.push(entry);
    index.set(entry.day, entry);
  }
  for (const r of rows) {
    const entry = index.get(r.day);
    if (entry) entry.byClass[r.cls] = Math.round(Number(r.tokens));
  }
  return days;
}

/** Per failure class: attempts, sessions, decisions taken and repair tokens. */
export async function getClassSummary(
  db: PrismaClient,
  projectId: string,
  rangeDays: number,
  now = new Date(),
): Promise<ClassSummaryDto[]> {
  const since = sinceDate(now, rangeDays);
  const [decisionRows, sessionRows, repairRows] = await Promise.all([
    db.attempt.groupBy({
      by: ['failureClass', 'decision'],
      where: { projectId, failureClass: { not: null }, startedAt: { gte: since } },
      _count: { _all: true },
    }),
    db.$queryRaw<{ cls: string; n: bigint }[]>`
      SELECT failure_class AS cls, count(DISTINCT session_id)::bigint AS n
      FROM attempts
      WHERE project_id = ${projectId}::uuid AND failure_class IS NOT NULL AND started_at >= ${since}
      GROUP BY 1`,
    db.$queryRaw<{ cls: string; tokens: number }[]>`
      SELECT m.repair_failure_class AS cls,
             sum((m.input_tokens + m.output_tokens) * coalesce(s.sampling_weight, 1))::float8 AS tokens
      FROM model_calls m
      LEFT JOIN sessions s ON s.project_id = m.project_id AND s.id = m.session_id
      WHERE m.project_id = ${projectId}::uuid AND m.repair_failure_class IS NOT NULL AND m.started_at >= ${since}
      GROUP BY 1`,
  ]);
  const byClass = new Map<string, ClassSummaryDto>();
  const get = (cls: string) => {
    let entry = byClass.get(cls);
    if (!entry) {
      entry = { failureClass: cls, attempts: 0, sessions: 0, repairTokens: 0, decisions: {} };
      byClass.set(cls, entry);
    }
    return entry;
  };
  for (const r of decisionRows) {
    if (!r.failureClass) continue;
    const entry = get(r.failureClass);
    entry.attempts += r._count._all;
    const decision = r.decision ?? 'none';
    entry.decisions[decision] = (entry.decisions[decision] ?? 0) + r._count._all;
  }
  for (const r of sessionRows) get(r.cls).sessions = Number(r.n);
  for (const r of repairRows) get(r.cls).repairTokens = Math.round(Number(r.tokens));
  return [...byClass.values()].sort(
    (a, b) => b.repairTokens - a.repairTokens || b.attempts - a.attempts || a.failureClass.localeCompare(b.failureClass),
  );
}

/** Token totals of the sessions started in the range, scaled by sampling weight. */
export async function getTokenTotals(
  db: PrismaClient,
  projectId: string,
  rangeDays: number,
  now = new Date(),
): Promise<TokenTotalsDto> {
  const since = sinceDate(now, rangeDays);
  const rows = await db.$queryRaw<{ stored: bigint; est: number; tokens: number; repair: number }[]>`
    SELECT count(*)::bigint AS stored,
           coalesce(sum(sampling_weight), 0)::float8 AS est,
           coalesce(sum((input_tokens + output_tokens) * sampling_weight), 0)::float8 AS tokens,
           coalesce(sum(repair_tokens * sampling_weight), 0)::float8 AS repair
    FROM sessions
    WHERE project_id = ${projectId}::uuid AND started_at >= ${since}`;
  const r = rows[0];
  return {
    storedSessions: Number(r?.stored ?? 0),
    estimatedSessions: Math.round(Number(r?.est ?? 0)),
    tokens: Math.round(Number(r?.tokens ?? 0)),
    repairTokens: Math.round(Number(r?.repair ?? 0)),
  };
}

export function rangeStart(rangeDays: number, now = new Date()): string {
  return sinceDate(now, rangeDays).toISOString();
}
