import 'server-only';
import { type PriceBook, type PrismaClient, sql } from '@guardtrace/db';
import { RARE_TERM_SESSIONS, sessionFilter } from '@guardtrace/db/session-filter';
import type { SessionQueryFilters } from '@/lib/session-query';
import { defaultDirection, type SessionSort, type SortDirection } from '@/lib/session-sort';
import { type Cursor, decodeCursor, encodeCursor, keysetCondition, orderBy, sortExpr } from './session-sort';
import { type CostDto, estimateSessionCosts } from './costs';

// 25 rows: a screenful of sessions without scrolling past the filters on a laptop.
const SESSIONS_PAGE_SIZE = 25;
/**
 * Matching sessions are counted up to this many; beyond, the total reads "1,000+". Counting
 * stops there, so a broad filter costs about as much as a thousand rows whatever the project's size.
 */
const COUNT_CAP = 1000;

const { planTerm, whereClause } = sessionFilter(sql);


export interface SessionListQuery {
  filters?: Partial<SessionQueryFilters>;
  /** Free-text terms; each must match the session id, agent or user, or a tool name, arguments or feedback of one of its attempts. */
  terms?: string[];
  sort?: SessionSort;
  dir?: SortDirection;
  /** Cursor of the row the page starts after (from `next`). */
  after?: string;
  /** Cursor of the row the page ends before (from `prev`). */
  before?: string;
  pageSize?: number;
  /** Count matching sessions up to this many (default COUNT_CAP). */
  countCap?: number;
  /** A free-text term in more session texts than this is searched session by session (default RARE_TERM_SESSIONS). */
  rareTermSessions?: number;
}

export interface SessionRowDto {
  id: string;
  agentName: string | null;
  serviceName: string | null;
  userId: string | null;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  outcome: string | null;
  /** Counts as recorded in this session. */
  toolCallCount: number;
  attemptCount: number;
  failedAttemptCount: number;
  /** Spans with status ERROR, of any instrumentation (not scaled: a fact of this session). */
  errorSpanCount: number;
  modelCallCount: number;
  /** Input + output tokens of every model call. */
  tokens: number;
  repairTokens: number;
  /** Estimated cost in US dollars of the session's own tokens (not scaled), at the project's prices. */
  cost: CostDto;
  /** How many sessions this one stands for (1 unless the SDK sampled clean sessions out). */
  samplingWeight: number;
  /** Retries (attempts after the first of a call) per tool call. */
  retryRate: number;
  /** Distinct failure classes of the session's attempts, alphabetical. */
  failureClasses: string[];
  /** Failed attempts per class, most first. */
  classCounts: { failureClass: string; count: number }[];
}

export interface SessionListDto {
  rows: SessionRowDto[];
  /** Sessions matching the filters, over every page, counted up to the cap. */
  total: number;
  /** More sessions match than the cap (`total` is then the cap). */
  totalCapped: boolean;
  pageSize: number;
  sort: SessionSort;
  dir: SortDirection;
  /** Cursor for the following page, null on the last one. */
  next: string | null;
  /** Cursor for the preceding page, null on the first one. */
  prev: string | null;
  /** A cursor from the URL that could not be used (the first page is shown instead). */
  cursorError?: string;
}

interface SessionRow {
  id: string;
  agent_name: string | null;
  service_name: string | null;
  user_id: string | null;
  started_at: Date;
  ended_at: Date | null;
  outcome: string | null;
  tool_call_count: number;
  attempt_count: number;
  failed_attempt_count: number;
  error_span_count: number;
  model_call_count: number;
  input_tokens: bigint;
  output_tokens: bigint;
  repair_tokens: bigint;
  sampling_weight: number;
  sort_value: string;
}

/** Sessions of one project, filtered, sorted (ties by id) and paged by keyset; costs at `book` (default: the project's prices read from `db`). */
export async function listSessions(db: PrismaClient, projectId: string, query: SessionListQuery = {}, book?: PriceBook): Promise<SessionListDto> {
  const pageSize = query.pageSize ?? SESSIONS_PAGE_SIZE;
  const countCap = query.countCap ?? COUNT_CAP;
  const sort = query.sort ?? 'started';
  const dir = query.dir ?? defaultDirection(sort);
  const terms = await Promise.all((query.terms ?? []).filter(Boolean).map((t) => planTerm((q) => db.$queryRaw(q), projectId, t, query.rareTermSessions ?? RARE_TERM_SESSIONS)));
  const where = whereClause(projectId, query.filters ?? {}, terms);

  let cursor: Cursor | undefined;
  let forward = true;
  let cursorError: string | undefined;
  const token = query.after ?? query.before;
  if (token) {
    const decoded = decodeCursor(token, sort);
    if ('error' in decoded) cursorError = `${decoded.error} Showing the first page.`;
    else {
      cursor = decoded;
      forward = query.after !== undefined;
    }
  }

  const expr = sortExpr(sort);
  // One word and nothing else, already seen in more sessions than the cap: the total is "cap+"
  // without counting (which would check sessions one by one until past the cap).
  const f = query.filters ?? {};
  const filtered = !!(f.classes?.length || f.tools?.length || f.attempts?.length || f.tokens?.length || f.started?.length || f.failed?.length || f.has?.length || f.user !== undefined || f.agent !== undefined || f.status !== undefined);
  const knownOverCap = !filtered && terms.length === 1 && (terms[0]?.sessionsSeen ?? 0) > countCap;
  const [countRows, fetched] = await Promise.all([
    // Counting stops at the cap: a broad filter over a big project costs no more than a page of it.
    knownOverCap
      ? [{ n: BigInt(countCap + 1) }]
      : db.$queryRaw<{ n: bigint }[]>`SELECT count(*)::bigint AS n FROM (SELECT 1 FROM sessions s ${where} LIMIT ${countCap + 1}) m`,
    db.$queryRaw<SessionRow[]>`
      SELECT s.id, s.agent_name, s.service_name, s.user_id, s.started_at, s.ended_at, s.outcome,
             s.tool_call_count, s.attempt_count, s.failed_attempt_count, s.error_span_count, s.model_call_count,
             s.input_tokens, s.output_tokens, s.repair_tokens, s.sampling_weight,
             (${expr})::text AS sort_value
      FROM sessions s ${where} ${cursor ? keysetCondition(cursor, dir, forward) : sql``}
      ${orderBy(sort, dir, forward)}
      LIMIT ${pageSize + 1}`,
  ]);
  const more = fetched.length > pageSize;
  const page = fetched.slice(0, pageSize);
  if (!forward) page.reverse();
  const hasNext = forward ? more : true;
  const hasPrev = forward ? cursor !== undefined : more;
  const cursorOf = (r: SessionRow | undefined) => (r ? encodeCursor({ sort, value: r.sort_value, id: r.id }) : null);

  const [classes, costs] = await Promise.all([
    page.length
      ? db.attempt.groupBy({
          by: ['sessionId', 'failureClass'],
          where: { projectId, sessionId: { in: page.map((r) => r.id) }, failureClass: { not: null } },
          _count: { _all: true },
        })
      : [],
    estimateSessionCosts(db, projectId, page.map((r) => r.id), book),
  ]);
  const classesBySession = new Map<string, { failureClass: string; count: number }[]>();
  for (const c of classes) {
    if (!c.failureClass) continue;
    const list = classesBySession.get(c.sessionId) ?? [];
    list.push({ failureClass: c.failureClass, count: c._count._all });
    classesBySession.set(c.sessionId, list);
  }

  return {
    rows: page.map((r) => {
      const classCounts = (classesBySession.get(r.id) ?? []).sort(
        (a, b) => b.count - a.count || a.failureClass.localeCompare(b.failureClass),
      );
      const toolCalls = Number(r.tool_call_count);
      const attempts = Number(r.attempt_count);
      return {
        id: r.id,
        agentName: r.agent_name,
        serviceName: r.service_name,
        userId: r.user_id,
        startedAt: r.started_at.toISOString(),
        endedAt: r.ended_at?.toISOString() ?? null,
        durationMs: r.ended_at ? r.ended_at.getTime() - r.started_at.getTime() : null,
        outcome: r.outcome,
        toolCallCount: toolCalls,
        attemptCount: attempts,
        failedAttemptCount: Number(r.failed_attempt_count),
        errorSpanCount: Number(r.error_span_count),
        modelCallCount: Number(r.model_call_count),
        tokens: Number(r.input_tokens) + Number(r.output_tokens),
        repairTokens: Number(r.repair_tokens),
        cost: costs.get(r.id) as CostDto,
        samplingWeight: Number(r.sampling_weight),
        retryRate: toolCalls > 0 ? Math.max(attempts - toolCalls, 0) / toolCalls : 0,
        failureClasses: classCounts.map((c) => c.failureClass).sort(),
        classCounts,
      };
    }),
    total: Math.min(Number(countRows[0]?.n ?? 0), countCap),
    totalCapped: Number(countRows[0]?.n ?? 0) > countCap,
    pageSize,
    sort,
    dir,
    next: hasNext ? cursorOf(page.at(-1)) : null,
    prev: hasPrev ? cursorOf(page[0]) : null,
    cursorError,
  };
}

/** Whether the project has sessions held for a sampling decision (weight 0), which the explorer leaves out unless asked. */
export async function projectHasHeldSessions(db: PrismaClient, projectId: string): Promise<boolean> {
  const rows = await db.$queryRaw<{ one: number }[]>`
    SELECT 1 AS one FROM sessions WHERE project_id = ${projectId}::uuid AND sampling_weight = 0 LIMIT 1`;
  return rows.length > 0;
}

/** Whether the project has any session at all (the explorer's empty state). */
export async function projectHasSessions(db: PrismaClient, projectId: string): Promise<boolean> {
  const rows = await db.$queryRaw<{ one: number }[]>`
    SELECT 1 AS one FROM sessions WHERE project_id = ${projectId}::uuid LIMIT 1`;
  return rows.length > 0;
}
