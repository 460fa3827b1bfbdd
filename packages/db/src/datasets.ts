/**
 * Datasets (guard regression replay): named snapshots of recorded tool calls, each item a
 * DatasetItem (packages/semconv/src/dataset.ts) copied as JSON into dataset_items, so retention
 * never empties a dataset. Shared by the web app (Save as dataset) and the collector
 * (`POST /v1/datasets`, `GET /v1/datasets/{id}`). No Prisma: runs on any `Queryable` (a pg pool,
 * or the web app's Prisma client through $queryRawUnsafe).
 *
 * What a query's dataset holds: the tool calls (tool_calls rows: the SDK's execute_tool spans and
 * other instrumentations' tool calls) of the sessions the explorer lists for the same query (same
 * parser, same WHERE clause: session-filter.ts), narrowed by the query's call-level filters:
 * - `tool:` the call's tool is one of those named (the session, as in the explorer, called each);
 * - `class:`, `failed:`, `decision:`, `budget:`, `unfixed:` and `repaired:` one of the call's own
 *   attempts is what they name together, as the explorer's failed attempt (session-filter.ts): of
 *   one of the classes, failed on the days compared (UTC), answered with one of the decisions, out
 *   of one of the budgets, a rejection its next call did not fix (then), repaired by a model turn
 *   (then); a call with no such attempt is left out even when its session has one;
 * - `started:` the call itself started on the days compared (UTC), not only its session.
 * The other filters (`attempts:`, `tokens:`, `user:`, `agent:`, `status:`, `sampling:`, `has:`)
 * and free text choose sessions only: every call of a matching session is kept. Calls refused by
 * another library without a tool call span of their own (a stand-in in the replay) are not items.
 *
 * Items are copied with set-based SQL (INSERT ... SELECT jsonb_build_object), a chunk of sessions
 * per statement; item_count grows after each chunk (the progress the web app shows) and `status`
 * goes from `building` to `ready` (or `failed`).
 */
import { randomUUID } from 'node:crypto';
import { INEXACT_ARGUMENT_MARKS } from '@guardtrace/semconv';
import { plainSql } from './plain-sql.ts';
import { RARE_TERM_SESSIONS, sessionFilter } from './session-filter.ts';
import { type Comparison, parseSessionQuery, periodOf, type SessionQueryFilters } from './session-query.ts';

/** What datasets.ts needs of a database client: run one statement with $n parameters. */
export interface Queryable {
  query<T>(text: string, values?: unknown[]): Promise<T[]>;
}

/** A pg Pool or Client as a Queryable. */
export function pgQueryable(pool: { query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> }): Queryable {
  return { query: async <T>(text: string, values?: unknown[]) => (await pool.query(text, values)).rows as T[] };
}

export type DatasetSource = { kind: 'query'; query: string } | { kind: 'session'; sessionId: string } | { kind: 'step'; sessionId: string; spanId: string };

export interface CreateDatasetInput {
  projectId: string;
  name: string;
  description?: string | null;
  source: DatasetSource;
  /** The account that makes it (null: an API key). */
  createdBy?: string | null;
  /** Told after each chunk of sessions: items copied so far, sessions done of all. */
  onProgress?: (p: DatasetProgress) => void;
  /** Told the new dataset's id once its row exists (before any item is copied). */
  onCreated?: (id: string) => void;
  /** Sessions per INSERT (default 2,000). */
  chunkSessions?: number;
}

export interface DatasetProgress {
  datasetId: string;
  items: number;
  sessionsDone: number;
  sessions: number;
}

export interface DatasetRow {
  id: string;
  name: string;
  description: string | null;
  sourceKind: string;
  source: string;
  itemCount: number;
  /** `building`, `ready`, `failed`, or `interrupted` (a `building` one whose saving stopped: DATASET_STALL_MINUTES). */
  status: string;
  createdBy: string | null;
  createdAt: string;
}

/** A dataset could not be made from what was given (a bad query, no name): a 400, with what was wrong. */
export class DatasetInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatasetInputError';
  }
}

export const DATASET_NAME_MAX = 200;
const DEFAULT_CHUNK_SESSIONS = 2000;

/** The web path of a recorded call's replay step (DatasetItem.stepPath); the same text as the SQL below makes. */
export function stepPath(projectId: string, sessionId: string, spanId: string): string {
  return `/sessions/${encodeURIComponent(sessionId)}?project=${encodeURIComponent(projectId)}&call=${encodeURIComponent(spanId)}`;
}

/**
 * A SQL condition on the call `t` for the query's call-level filters, with its parameters from `$at` on:
 * the keys that name one failed attempt in the explorer (session-filter.ts failureFilter) name one
 * of the call's own attempts here.
 */
function callFilters(f: SessionQueryFilters, at: number): { sql: string; values: unknown[] } {
  const parts: string[] = [];
  const values: unknown[] = [];
  const param = (v: unknown) => {
    values.push(v);
    return `$${at + values.length - 1}`;
  };
  if (f.tools.length > 0) {
    // the call's tool, or one an attempt of it named: a made-up name the model then corrected
    // within the call (as the explorer's `tool:` finds the session)
    const tools = param(f.tools);
    parts.push(`(t.tool_name = ANY(${tools}::text[]) OR EXISTS (SELECT 1 FROM attempts n WHERE n.project_id = t.project_id
      AND n.trace_id = t.trace_id AND n.tool_call_span_id = t.span_id AND n.tool_name = ANY(${tools}::text[])))`);
  }
  const repaired = f.repaired;
  if (f.classes.length > 0 || f.failed.length > 0 || f.decisions?.length || f.budgets?.length || f.unfixed !== undefined || repaired !== undefined) {
    // One of the call's own attempts `c` failed so: of one of the classes, on the `failed:` days,
    // answered with one of the decisions, out of one of the budgets, a rejection its correction did
    // not fix (on the `unfixed:` days), repaired by a model turn `m` of the session (on the `repaired:` days).
    const conditions: string[] = [];
    const classOf = repaired !== undefined ? 'coalesce(c.failure_class, m.repair_failure_class)' : 'c.failure_class';
    if (f.classes.length > 0) conditions.push(`${classOf} = ANY(${param(f.classes)}::text[])`);
    else if (f.unfixed === undefined && repaired === undefined) conditions.push(`c.outcome IS DISTINCT FROM 'success'`);
    for (const d of f.failed) conditions.push(onDay('c.started_at', d.op, d.day, param));
    if (f.decisions?.length) conditions.push(`c.outcome IS DISTINCT FROM 'success' AND c.decision = ANY(${param(f.decisions)}::text[])`);
    if (f.budgets?.length) {
      conditions.push(
        f.budgets.includes('any') ? 'c.budget_exhausted IS NOT NULL' : `c.budget_exhausted = ANY(${param(f.budgets.filter((b) => b !== 'any'))}::text[])`,
      );
    }
    if (f.unfixed !== undefined) {
      conditions.push('c.alert_unfixed_at IS NOT NULL');
      for (const d of f.unfixed) conditions.push(onDay('c.alert_unfixed_at', d.op, d.day, param));
    }
    for (const d of repaired ?? []) conditions.push(onDay('m.started_at', d.op, d.day, param));
    const turns =
      repaired !== undefined ? ' JOIN model_calls m ON m.project_id = c.project_id AND m.repair_attempt_span_id = c.span_id AND m.session_id = t.session_id' : '';
    parts.push(`EXISTS (SELECT 1 FROM attempts c${turns} WHERE c.project_id = t.project_id AND c.trace_id = t.trace_id
      AND c.tool_call_span_id = t.span_id${conditions.map((c) => ` AND ${c}`).join('')})`);
  }
  for (const d of f.started) parts.push(onDay('t.started_at', d.op, d.day, param));
  return { sql: parts.map((p) => ` AND ${p}`).join(''), values };
}

/** `column`'s UTC day (or minute: periodOf) compared by `op` with `day`, its bounds passed as parameters. */
function onDay(column: string, op: Comparison, day: string, param: (v: unknown) => string): string {
  const period = periodOf(day);
  // Each bound made a parameter only where it is used: the statement has no unused parameter.
  const midnight = () => `${param(period.start.toISOString())}::timestamptz`;
  const next = () => `${param(period.next.toISOString())}::timestamptz`;
  switch (op) {
    case '>=':
      return `${column} >= ${midnight()}`;
    case '>':
      return `${column} >= ${next()}`;
    case '<':
      return `${column} < ${midnight()}`;
    case '<=':
      return `${column} < ${next()}`;
    case '=':
      return `${column} >= ${midnight()} AND ${column} < ${next()}`;
  }
}

/**
 * An argument text holds a mark of what was left out before it was stored (the SDK's redaction and
 * sanitizing, the collector's redaction and shortening: INEXACT_ARGUMENT_MARKS). Text that is not
 * JSON without such a mark is what the model sent (broken JSON): exact, and replayed as text.
 */
const INEXACT_SQL = INEXACT_ARGUMENT_MARKS.map((m) => `strpos(coalesce(a.arguments, t.arguments), '${m.replace(/'/g, "''")}') > 0`).join(' OR ');

/**
 * The items of a chunk of sessions ($3, in order), numbered from $4 + 1: one DatasetItem per
 * tool call, in the order they started (the SDK's step sequence between calls of one
 * millisecond: its clock records whole milliseconds, and a replay of a session's budgets depends
 * on the order), its attempts (by number: the tool each named, its argument text as recorded and parsed)
 * with their guard checks, its definition's summary.
 */
const INSERT_ITEMS = (extra: string) => `
WITH ins AS (
  INSERT INTO dataset_items (dataset_id, ordinal, item_id, item)
  SELECT $1::uuid, $4::int + row_number() OVER (ORDER BY m.n, t.started_at, t.step_sequence, t.span_id)::int, t.trace_id || ':' || t.span_id,
    jsonb_build_object(
      'format', 'guardtrace.dataset-item/v1',
      'id', t.trace_id || ':' || t.span_id,
      'sessionId', t.session_id,
      'traceId', t.trace_id,
      'spanId', t.span_id,
      'stepPath', '/sessions/' || guardtrace_uri_component(t.session_id) || '?project=' || t.project_id || '&call=' || t.span_id,
      'tool', t.tool_name,
      'callId', t.call_id,
      'startedAt', to_char(t.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'definition', jsonb_build_object('hash', t.definition_hash, 'summary', d.summary),
      'outcome', t.outcome,
      'failureClass', t.failure_class,
      'attempts', coalesce(att.list, '[]'::jsonb))
  FROM unnest($3::text[]) WITH ORDINALITY AS m(id, n)
  JOIN tool_calls t ON t.project_id = $2::uuid AND t.session_id = m.id
  LEFT JOIN tool_definitions d ON d.project_id = t.project_id AND d.hash = t.definition_hash
  LEFT JOIN LATERAL (
    SELECT jsonb_agg(jsonb_build_object(
      'number', a.number,
      'tool', a.tool_name,
      'arguments', guardtrace_try_jsonb(coalesce(a.arguments, t.arguments)),
      'argumentsText', coalesce(a.arguments, t.arguments),
      'argumentsInexact', coalesce(a.arguments, t.arguments) IS NOT NULL AND (${INEXACT_SQL}),
      'outcome', a.outcome,
      'decision', a.decision,
      'failureClass', a.failure_class,
      'feedback', a.feedback,
      'budgetExhausted', a.budget_exhausted,
      'checks', coalesce(ck.list, '[]'::jsonb)) ORDER BY a.number, a.started_at, a.span_id) AS list
    FROM attempts a
    LEFT JOIN LATERAL (
      SELECT jsonb_agg(jsonb_build_object(
        'guard', g.guard_name, 'stage', g.stage, 'verdict', g.verdict, 'reason', g.reason,
        'failureClass', g.failure_class, 'pointers', coalesce(g.failed_pointers, '[]'::jsonb)) ORDER BY g.started_at, g.span_id) AS list
      FROM guard_checks g WHERE g.project_id = a.project_id AND g.trace_id = a.trace_id AND g.attempt_span_id = a.span_id
    ) ck ON true
    WHERE a.project_id = t.project_id AND a.trace_id = t.trace_id AND a.tool_call_span_id = t.span_id
  ) att ON true
  WHERE true${extra}
  ON CONFLICT DO NOTHING
  RETURNING 1
)
SELECT count(*)::int AS n FROM ins`;

/** The sessions of the source, in order (started, id). */
async function sourceSessions(db: Queryable, projectId: string, source: DatasetSource): Promise<{ sessions: string[]; filters: SessionQueryFilters | null }> {
  if (source.kind !== 'query') return { sessions: [source.sessionId], filters: null };
  const parsed = parseSessionQuery(source.query);
  if (parsed.errors.length > 0) throw new DatasetInputError(`Bad query: ${parsed.errors.map((e) => e.message).join('; ')}`);
  const { planTerm, whereClause } = sessionFilter(plainSql);
  const run = async <T>(q: { text: string; values: unknown[] }) => db.query<T>(q.text, q.values);
  const terms = await Promise.all(parsed.terms.map((t) => planTerm(run, projectId, t, RARE_TERM_SESSIONS)));
  const where = whereClause(projectId, parsed.filters, terms);
  const rows = await db.query<{ id: string }>(`SELECT s.id FROM sessions s ${where.text} ORDER BY s.started_at, s.id`, where.values);
  return { sessions: rows.map((r) => r.id), filters: parsed.filters };
}

function sourceText(projectId: string, s: DatasetSource): string {
  if (s.kind === 'query') return s.query;
  if (s.kind === 'session') return s.sessionId;
  return stepPath(projectId, s.sessionId, s.spanId);
}

/** Makes a dataset of the source's calls; resolves once every item is copied. Throws DatasetInputError on bad input. */
export async function createDataset(db: Queryable, input: CreateDatasetInput): Promise<DatasetRow> {
  const name = input.name.trim();
  if (!name) throw new DatasetInputError('A dataset needs a name.');
  if (name.length > DATASET_NAME_MAX) throw new DatasetInputError(`The name is ${name.length} characters long; at most ${DATASET_NAME_MAX} are accepted.`);
  const { sessions, filters } = await sourceSessions(db, input.projectId, input.source);
  const id = randomUUID();
  await db.query(
    `INSERT INTO datasets (id, project_id, name, description, source_kind, source, item_count, status, created_by)
     VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6, 0, 'building', $7)`,
    [id, input.projectId, name, input.description ?? null, input.source.kind, sourceText(input.projectId, input.source), input.createdBy ?? null],
  );
  input.onCreated?.(id);
  const call = filters === null ? { sql: '', values: [] } : callFilters(filters, 5);
  if (input.source.kind === 'step') {
    call.sql += ` AND t.span_id = $5`;
    call.values.push(input.source.spanId);
  }
  const chunk = input.chunkSessions ?? DEFAULT_CHUNK_SESSIONS;
  let items = 0;
  try {
    for (let i = 0; i < sessions.length; i += chunk) {
      const part = sessions.slice(i, i + chunk);
      const [row] = await db.query<{ n: number }>(INSERT_ITEMS(call.sql), [id, input.projectId, part, items, ...call.values]);
      items += row?.n ?? 0;
      await db.query('UPDATE datasets SET item_count = $2, updated_at = now() WHERE id = $1::uuid', [id, items]);
      input.onProgress?.({ datasetId: id, items, sessionsDone: Math.min(i + chunk, sessions.length), sessions: sessions.length });
    }
    await db.query(`UPDATE datasets SET status = 'ready', item_count = $2, updated_at = now() WHERE id = $1::uuid`, [id, items]);
  } catch (err) {
    await db.query(`UPDATE datasets SET status = 'failed', updated_at = now() WHERE id = $1::uuid`, [id]).catch(() => {});
    throw err;
  }
  return (await getDataset(db, input.projectId, id)) as DatasetRow;
}

/**
 * How long a `building` dataset may go without progress before it reads as `interrupted`: its
 * saving was cut off (the web app or collector that copied it stopped) and will not finish. A
 * chunk of items takes well under a second (packages/db/bench), so five minutes is never a slow save.
 */
export const DATASET_STALL_MINUTES = 5;

const COLUMNS = `id::text AS id, name, description, source_kind AS "sourceKind", source, item_count AS "itemCount",
  CASE WHEN status = 'building' AND updated_at < now() - interval '${DATASET_STALL_MINUTES} minutes' THEN 'interrupted' ELSE status END AS status,
  created_by AS "createdBy", to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"`;

/** A project's datasets, newest first. */
export async function listDatasets(db: Queryable, projectId: string): Promise<DatasetRow[]> {
  return db.query<DatasetRow>(`SELECT ${COLUMNS} FROM datasets WHERE project_id = $1::uuid ORDER BY created_at DESC, id`, [projectId]);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The project's dataset `id`; null when there is none (another project's is none). */
export async function getDataset(db: Queryable, projectId: string, id: string): Promise<DatasetRow | null> {
  if (!UUID.test(id)) return null;
  const [row] = await db.query<DatasetRow>(`SELECT ${COLUMNS} FROM datasets WHERE project_id = $1::uuid AND id = $2::uuid`, [projectId, id]);
  return row ?? null;
}

/** Deletes the project's dataset `id` with its items; false when there is none. */
export async function deleteDataset(db: Queryable, projectId: string, id: string): Promise<boolean> {
  if (!UUID.test(id)) return false;
  const rows = await db.query(`DELETE FROM datasets WHERE project_id = $1::uuid AND id = $2::uuid RETURNING 1`, [projectId, id]);
  return rows.length > 0;
}

/** Items after ordinal `after` (0: from the first), at most `limit`, in order: their JSON text as stored. */
export async function datasetItemsPage(db: Queryable, datasetId: string, after: number, limit: number): Promise<{ ordinal: number; json: string }[]> {
  return db.query<{ ordinal: number; json: string }>(
    'SELECT ordinal, item::text AS json FROM dataset_items WHERE dataset_id = $1::uuid AND ordinal > $2 ORDER BY ordinal LIMIT $3',
    [datasetId, after, limit],
  );
}

/** Every item of a dataset as JSON text, in order, a page at a time (memory: one page). */
export async function* datasetItemLines(db: Queryable, datasetId: string, pageSize = 1000): AsyncGenerator<string> {
  let after = 0;
  for (;;) {
    const page = await datasetItemsPage(db, datasetId, after, pageSize);
    for (const r of page) yield r.json;
    if (page.length < pageSize) return;
    after = (page[page.length - 1] as { ordinal: number }).ordinal;
  }
}
