import 'server-only';
import { type PrismaClient, sql } from '@guardtrace/db';
import type { FailureClass, SessionOutcome } from '@guardtrace/semconv';

// 25 rows: a screenful of sessions without scrolling past the filters on a laptop.
export const SESSIONS_PAGE_SIZE = 25;

export interface SessionFilters {
  outcome?: SessionOutcome;
  /** Sessions with at least one attempt of this class. */
  failureClass?: FailureClass;
  /** Case-insensitive substring of the session id or agent name. */
  search?: string;
  /** 1-based. */
  page?: number;
  pageSize?: number;
}

export interface SessionRowDto {
  id: string;
  agentName: string | null;
  serviceName: string | null;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  outcome: string | null;
  toolCallCount: number;
  attemptCount: number;
  failedAttemptCount: number;
  modelCallCount: number;
  /** Input + output tokens of every model call. */
  tokens: number;
  repairTokens: number;
  samplingWeight: number;
  /** Distinct failure classes of the session's attempts, alphabetical. */
  failureClasses: string[];
}

export interface SessionListDto {
  rows: SessionRowDto[];
  total: number;
  page: number;
  pageSize: number;
  pageCount: number;
}

interface SessionRow {
  id: string;
  agent_name: string | null;
  service_name: string | null;
  started_at: Date;
  ended_at: Date | null;
  outcome: string | null;
  tool_call_count: number;
  attempt_count: number;
  failed_attempt_count: number;
  model_call_count: number;
  input_tokens: bigint;
  output_tokens: bigint;
  repair_tokens: bigint;
  sampling_weight: number;
}

/** Sessions of one project, newest first, filtered and paged. */
export async function listSessions(
  db: PrismaClient,
  projectId: string,
  filters: SessionFilters = {},
): Promise<SessionListDto> {
  const pageSize = filters.pageSize ?? SESSIONS_PAGE_SIZE;
  const outcome = filters.outcome ?? null;
  const failureClass = filters.failureClass ?? null;
  const search = filters.search?.trim().toLowerCase() || null;

  // One static statement per query: NULL parameters switch a filter off.
  const where = sql`
      WHERE s.project_id = ${projectId}::uuid
        AND (${outcome}::text IS NULL OR s.outcome = ${outcome}::text)
        AND (${search}::text IS NULL OR strpos(lower(s.id), ${search}::text) > 0
             OR strpos(lower(coalesce(s.agent_name, '')), ${search}::text) > 0)
        AND (${failureClass}::text IS NULL OR EXISTS (
          SELECT 1 FROM attempts a
          WHERE a.project_id = s.project_id AND a.session_id = s.id AND a.failure_class = ${failureClass}::text))`;
  const count = (): Promise<number> =>
    db.$queryRaw<{ n: bigint }[]>`SELECT count(*)::bigint AS n FROM sessions s ${where}`.then((r) => Number(r[0]?.n ?? 0));
  const pageRows = (page: number): Promise<SessionRow[]> =>
    db.$queryRaw<SessionRow[]>`
      SELECT s.id, s.agent_name, s.service_name, s.started_at, s.ended_at, s.outcome,
             s.tool_call_count, s.attempt_count, s.failed_attempt_count, s.model_call_count,
             s.input_tokens, s.output_tokens, s.repair_tokens, s.sampling_weight
      FROM sessions s ${where}
      ORDER BY s.started_at DESC, s.id DESC
      LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`;

  // Count and page in parallel; a page past the end (a stale link) is re-read as the last page.
  const requested = Math.max(1, filters.page ?? 1);
  const [total, firstTry] = await Promise.all([count(), pageRows(requested)]);
  const pageCount = Math.max(1, Math.ceil(total / pageSize));
  const page = Math.min(requested, pageCount);
  const rows = page === requested ? firstTry : await pageRows(page);

  const classes = rows.length
    ? await db.attempt.groupBy({
        by: ['sessionId', 'failureClass'],
        where: { projectId, sessionId: { in: rows.map((r) => r.id) }, failureClass: { not: null } },
      })
    : [];
  const classesBySession = new Map<string, string[]>();
  for (const c of classes) {
    if (!c.failureClass) continue;
    const list = classesBySession.get(c.sessionId) ?? [];
    list.push(c.failureClass);
    classesBySession.set(c.sessionId, list);
  }

  return {
    rows: rows.map((r) => ({
      id: r.id,
      agentName: r.agent_name,
      serviceName: r.service_name,
      startedAt: r.started_at.toISOString(),
      endedAt: r.ended_at?.toISOString() ?? null,
      durationMs: r.ended_at ? r.ended_at.getTime() - r.started_at.getTime() : null,
      outcome: r.outcome,
      toolCallCount: Number(r.tool_call_count),
      attemptCount: Number(r.attempt_count),
      failedAttemptCount: Number(r.failed_attempt_count),
      modelCallCount: Number(r.model_call_count),
      tokens: Number(r.input_tokens) + Number(r.output_tokens),
      repairTokens: Number(r.repair_tokens),
      samplingWeight: Number(r.sampling_weight),
      failureClasses: (classesBySession.get(r.id) ?? []).sort(),
    })),
    total,
    page,
    pageSize,
    pageCount,
  };
}
