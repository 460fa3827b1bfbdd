/**
 * The explorer's query (session-query.ts) as SQL over `sessions s`: the WHERE clause of the
 * sessions a query matches, shared by the web app's explorer and the datasets made from a query
 * (datasets.ts, the collector's `POST /v1/datasets`), so both mean the same sessions.
 */
import { type Comparison, periodOf, type SessionQueryFilters } from './session-query.ts';

/**
 * A SQL template tag whose fragments nest (`sql\`a ${fragment} b\``): Prisma.sql in the web app
 * (its $queryRaw templates embed the fragments), plainSql (plain-sql.ts) with pg in the collector,
 * which does not load Prisma.
 */
export type SqlTag<S> = (strings: readonly string[], ...values: unknown[]) => S;

// Up to this many matching session texts a word counts as rare (its sessions are listed up front).
// Past it, a word is in at least 1 of every (sessions / 5,000) sessions, so counting 1,000 of its
// sessions one by one checks at most about (sessions / 5) of them.
export const RARE_TERM_SESSIONS = 5000;

export interface TermPlan {
  term: string;
  /** Sessions whose attempts contain a rare term; undefined for a common one. */
  sessionIds?: string[];
  /** Distinct sessions among the matches the lookup read (all of them for a rare term). */
  sessionsSeen: number;
}

/** `%text%` for ILIKE with the pattern characters of the text taken literally. */
const containsPattern = (t: string) => `%${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The explorer's SQL built with the tag `sql`: planTerm and whereClause. */
export function sessionFilter<Sql>(sql: SqlTag<Sql>) {

const COMPARE: Record<Comparison, Sql> = { '>': sql`>`, '>=': sql`>=`, '<': sql`<`, '<=': sql`<=`, '=': sql`=` };

const concat = (parts: Sql[]): Sql => parts.reduce((acc, p) => sql`${acc} ${p}`, sql``);

/** Runs a query: `(q) => prisma.$queryRaw(q)` in the web app, `(q) => pool.query(q.text, q.values)` rows with pg. */
type RowsOf = <T>(q: Sql) => Promise<T[]>;

/**
 * Looks a free-text term up in the trigram index of the sessions' search text (session_search:
 * each session's attempts' tool names, arguments and feedback, kept by triggers on attempts),
 * stopping once it is clearly common.
 */
async function planTerm(run: RowsOf, projectId: string, term: string, rare: number): Promise<TermPlan> {
  const rows = await run<{ session_id: string }>(sql`
    SELECT d.session_id FROM session_search d
    WHERE d.project_id = ${projectId}::uuid AND d.text ILIKE ${containsPattern(term)}::text
    LIMIT ${rare + 1}`);
  const sessionIds = [...new Set(rows.map((r) => r.session_id))];
  return rows.length > rare ? { term, sessionsSeen: sessionIds.length } : { term, sessionIds, sessionsSeen: sessionIds.length };
}

/** `column`'s UTC day (or minute: periodOf) compared by `op` with `day`, as a range on the timestamp (index-friendly). */
function onDay(column: Sql, op: Comparison, day: string): Sql {
  const period = periodOf(day);
  const midnight = sql`${period.start.toISOString()}::timestamptz`;
  const nextMidnight = sql`${period.next.toISOString()}::timestamptz`;
  switch (op) {
    case '>=':
      return sql`AND ${column} >= ${midnight}`;
    case '>':
      return sql`AND ${column} >= ${nextMidnight}`;
    case '<':
      return sql`AND ${column} < ${midnight}`;
    case '<=':
      return sql`AND ${column} < ${nextMidnight}`;
    case '=':
      return sql`AND ${column} >= ${midnight} AND ${column} < ${nextMidnight}`;
  }
}

/**
 * `class:`, `tool:`, `failed:`, `decision:`, `budget:` and `unfixed:` together name one kind of failed attempt, as analytics counts
 * it (analytics_session_parts: the attempt's class, its tool or its tool call's, its UTC day):
 * each class must occur on such an attempt and each tool must have one. So `class:transient
 * tool:read_file` is a read_file call that failed transiently, not such a failure anywhere beside a read_file
 * call, and `failed:>=D` holds for a session that started before D and failed after it.
 * With `repaired:`, they name the failure a repair turn of the session answered (the turn's
 * attempt, `a`, when it is stored; its class, else the class the turn names), as the Repair
 * tokens alert counts the turn.
 */
function failureFilter(f: Partial<SessionQueryFilters>): Sql[] {
  const classes = f.classes ?? [];
  const tools = f.tools ?? [];
  const days = f.failed ?? [];
  const repaired = f.repaired;
  // What each EXISTS reads: the session's attempts, or its repair turns `m` with the attempt each
  // answers (as guardtrace_update_alert_minutes finds it: by span id in the project).
  const from = repaired
    ? sql`model_calls m LEFT JOIN LATERAL (SELECT x.* FROM attempts x
        WHERE x.project_id = m.project_id AND x.span_id = m.repair_attempt_span_id LIMIT 1) a ON true`
    : sql`attempts a`;
  const classOf = repaired ? sql`coalesce(a.failure_class, m.repair_failure_class)` : sql`a.failure_class`;
  const conditions = repaired
    ? [sql`m.project_id = s.project_id AND m.session_id = s.id AND (m.repair_attempt_span_id IS NOT NULL OR m.repair_failure_class IS NOT NULL)`]
    : [sql`a.project_id = s.project_id AND a.session_id = s.id`];
  // repaired: the turn started on the days (or minutes), as the repair alerts count its tokens.
  for (const d of repaired ?? []) conditions.push(onDay(sql`m.started_at`, d.op, d.day));
  if (classes.length > 0) conditions.push(sql`AND ${classOf} = ANY(${classes}::text[])`);
  // unfixed:, repaired: and budget: name their own kind of failure (as their alerts and analytics
  // count it: an attempt that names the budget that ran out, whatever its outcome); otherwise any failed attempt.
  else if (f.unfixed === undefined && repaired === undefined && !f.budgets?.length) conditions.push(sql`AND a.outcome IS DISTINCT FROM 'success'`);
  for (const d of days) conditions.push(onDay(sql`a.started_at`, d.op, d.day));
  // unfixed: a rejection whose correction failed, on the days (or minutes) it did: the minute the
  // Rejections not fixed next alert counts it at (attempts.alert_unfixed_at, kept by its rollup).
  if (f.unfixed !== undefined) {
    conditions.push(sql`AND a.alert_unfixed_at IS NOT NULL`);
    for (const d of f.unfixed) conditions.push(onDay(sql`a.alert_unfixed_at`, d.op, d.day));
  }
  // decision: a failed attempt whose policy decision is one of them (as the Escalations alert counts).
  if (f.decisions?.length) conditions.push(sql`AND a.outcome IS DISTINCT FROM 'success' AND a.decision = ANY(${f.decisions}::text[])`);
  // budget: an attempt that names the budget that ran out (as the exhaustion alert and analytics' retry exhaustion count).
  if (f.budgets?.length) {
    const named = f.budgets.filter((b) => b !== 'any');
    conditions.push(
      f.budgets.includes('any') ? sql`AND a.budget_exhausted IS NOT NULL` : sql`AND a.budget_exhausted = ANY(${named}::text[])`,
    );
  }
  // The attempt's tool: its own name, else its tool call's (as the analytics rollup reads it).
  const toolOf = (names: Sql) => sql`AND (a.tool_name = ANY(${names}) OR (a.tool_name IS NULL AND EXISTS (SELECT 1 FROM tool_calls c
      WHERE c.project_id = a.project_id AND c.trace_id = a.trace_id AND c.span_id = a.tool_call_span_id AND c.tool_name = ANY(${names}))))`;
  if (tools.length > 0) conditions.push(toolOf(sql`${tools}::text[]`));
  const attempt = concat(conditions);
  const parts: Sql[] = [];
  for (const c of classes) parts.push(sql`AND EXISTS (SELECT 1 FROM ${from} WHERE ${attempt} AND ${classOf} = ${c}::text)`);
  // One class and one tool: the class's attempt is already the tool's.
  if (!(classes.length > 0 && tools.length === 1)) {
    for (const t of tools) parts.push(sql`AND EXISTS (SELECT 1 FROM ${from} WHERE ${attempt} ${toolOf(sql`ARRAY[${t}::text]`)})`);
  }
  if (classes.length === 0 && tools.length === 0) parts.push(sql`AND EXISTS (SELECT 1 FROM ${from} WHERE ${attempt})`);
  return parts;
}

function whereClause(projectId: string, f: Partial<SessionQueryFilters>, terms: TermPlan[]): Sql {
  const parts: Sql[] = [sql`WHERE s.project_id = ${projectId}::uuid`];
  // A session held at weight 0 is one every process would drop, kept only until the collector's
  // decision wait ends: not a kept session, so listed and counted only when asked for.
  if (f.sampling === 'pending') parts.push(sql`AND s.sampling_weight = 0`);
  else if (f.sampling !== 'all') parts.push(sql`AND s.sampling_weight > 0`);
  if (f.status !== undefined) parts.push(sql`AND coalesce(s.outcome, '') = ${f.status}::text`);
  // has:errors: a failed attempt (any instrumentation's: the collector stores each failed tool call as one) or a failed root.
  if (f.has?.includes('errors')) parts.push(sql`AND (s.failed_attempt_count > 0 OR s.error_span_count > 0 OR s.outcome = 'failed')`);
  if (f.user !== undefined) parts.push(sql`AND coalesce(s.user_id, '') = ${f.user}::text`);
  if (f.agent !== undefined) parts.push(sql`AND coalesce(s.agent_name, '') = ${f.agent}::text`);
  for (const a of f.attempts ?? []) parts.push(sql`AND s.attempt_count ${COMPARE[a.op]} ${a.value}::int`);
  for (const t of f.tokens ?? []) parts.push(sql`AND (s.input_tokens + s.output_tokens) ${COMPARE[t.op]} ${t.value}::bigint`);
  // A day is [its midnight, the next midnight) in UTC: started:<=D keeps all of D, started:>D starts at D + 1.
  for (const d of f.started ?? []) parts.push(onDay(sql`s.started_at`, d.op, d.day));
  if (
    (f.classes?.length ?? 0) > 0 ||
    (f.failed?.length ?? 0) > 0 ||
    (f.decisions?.length ?? 0) > 0 ||
    (f.budgets?.length ?? 0) > 0 ||
    f.unfixed !== undefined ||
    f.repaired !== undefined
  )
    parts.push(...failureFilter(f));
  else {
    // A call of the tool: its tool call span, or an attempt that named it: one the instrumented
    // library refused without a tool call (a hallucinated tool name, arguments it could not
    // parse), or a made-up name the model then corrected within the same call.
    for (const t of f.tools ?? []) {
      parts.push(sql`AND (EXISTS (SELECT 1 FROM tool_calls t
          WHERE t.project_id = s.project_id AND t.tool_name = ${t}::text AND t.session_id = s.id)
        OR EXISTS (SELECT 1 FROM attempts a
          WHERE a.project_id = s.project_id AND a.tool_name = ${t}::text AND a.session_id = s.id))`);
    }
  }
  for (const { term, sessionIds } of terms) {
    const lower = term.toLowerCase();
    // A rare word: the sessions whose text has it, found through the trigram index up front.
    // A common one: each session's own text is checked (OFFSET 0 keeps Postgres from hashing
    // every match first), and the page fills after a few sessions.
    const inAttempts = sessionIds
      ? sql`s.id IN (SELECT jsonb_array_elements_text(${JSON.stringify(sessionIds)}::jsonb))`
      : sql`EXISTS (SELECT 1 FROM session_search d WHERE d.project_id = s.project_id AND d.session_id = s.id
          AND d.text ILIKE ${containsPattern(term)}::text OFFSET 0)`;
    parts.push(sql`AND (strpos(lower(s.id), ${lower}::text) > 0
      OR strpos(lower(coalesce(s.agent_name, '')), ${lower}::text) > 0
      OR strpos(lower(coalesce(s.user_id, '')), ${lower}::text) > 0
      OR ${inAttempts})`);
  }
  return concat(parts);
}

return { planTerm, whereClause };
}
