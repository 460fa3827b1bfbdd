/**
 * The ingest SQL. Rows are streamed with COPY straight into their tables once the batch is
 * known to hold no stored span (checked first; retries are filtered out). Should a concurrent
 * writer insert one of them meanwhile, the batch is redone through per-connection stages and
 * INSERT ... ON CONFLICT DO NOTHING. Either way ingest is idempotent: a span is keyed by
 * (project, trace start, trace id, span id), where the trace start is its trace's, fixed in
 * the trace index when the trace is first stored, so a re-send with another start time of its
 * own has the same key.
 */

/** A target table: its columns in COPY order (the keys of the row objects writer.ts builds). */
export interface Target {
  table: string;
  /**
   * COPY column order; session_id (and for spans trace_start) last, so a row's text can be
   * built before its session (and its trace's start) is known.
   */
  columns: readonly string[];
  /** The columns before session_id. */
  head: readonly string[];
  /** Per-connection stage for the ON CONFLICT path (same columns, emptied at commit). */
  stage: string;
  createStage: string;
  /** Move staged rows, ignoring any already stored (retries, concurrent collectors). */
  insertStaged: string;
}

function target(table: string, columns: string, tail: readonly string[] = []): Target {
  const head = columns
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c && c !== 'session_id');
  const cols = [...head, 'session_id', ...tail];
  const stage = `gt_stage_${table}`;
  return {
    table,
    columns: cols,
    head,
    stage,
    createStage: `CREATE TEMP TABLE IF NOT EXISTS ${stage} (LIKE ${table} INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`,
    insertStaged: `INSERT INTO ${table} (${cols.join(', ')}) SELECT ${cols.join(', ')} FROM ${stage} ON CONFLICT DO NOTHING`,
  };
}

export const SPANS = target(
  'spans',
  `project_id, start_time, trace_id, span_id, parent_span_id, session_id, name, kind, start_time_unix_nano,
   end_time_unix_nano, status_code, status_message, service_name, scope_name, scope_version, attributes,
   resource, events, links, role`,
  ['trace_start'],
);
export const TOOL_CALLS = target(
  'tool_calls',
  `project_id, trace_id, span_id, session_id, started_at, parent_span_id, tool_name, call_id, duration_ms,
   outcome, failure_class, decision, attempts, read_only, idempotent, destructive, external, idempotency_key,
   arguments, failure_reason, step_sequence, definition_hash`,
);
export const ATTEMPTS = target(
  'attempts',
  `project_id, trace_id, span_id, session_id, started_at, tool_call_span_id, tool_name, number, duration_ms,
   outcome, failure_class, decision, feedback, backoff_ms, attempts_left, session_retries_left,
   budget_exhausted, arguments, error_type, failure_reason, auto_repair_kind, auto_repair_pointers, auto_repair_tool`,
);
export const GUARD_CHECKS = target(
  'guard_checks',
  `project_id, trace_id, span_id, session_id, started_at, attempt_span_id, guard_name, stage, verdict, reason,
   decision, failure_class, duration_us, failed_pointers, guardrail_results`,
);
export const MODEL_CALLS = target(
  'model_calls',
  `project_id, trace_id, span_id, session_id, started_at, parent_span_id, model, provider, duration_ms,
   input_tokens, output_tokens, repair_attempt_span_id, repair_failure_class, step_sequence, cached_input_tokens`,
);

export const TARGETS = [SPANS, TOOL_CALLS, ATTEMPTS, GUARD_CHECKS, MODEL_CALLS] as const;
export const DERIVED_TARGETS = [TOOL_CALLS, ATTEMPTS, GUARD_CHECKS, MODEL_CALLS] as const;

/**
 * The batch's new traces and re-keyed traces written to the trace index (`traces`), then the
 * locks of the touched sessions taken (`keys`, a text[]): one statement. Upserted, so the
 * fallback path and a re-key both land; a stored trace keeps its start time (its spans' key).
 */
export function upsertTracesAndLock(
  projectIds: string,
  traceIds: string,
  sessionIds: string,
  startTimes: string,
  keys: string,
): string {
  return `WITH tr AS (
  INSERT INTO traces (project_id, trace_id, session_id, start_time)
  SELECT * FROM unnest(${projectIds}::uuid[], ${traceIds}::text[], ${sessionIds}::text[], ${startTimes}::timestamptz[])
  ON CONFLICT (project_id, trace_id) DO UPDATE SET session_id = EXCLUDED.session_id
)${lockKeys(keys)}`;
}

/**
 * Transaction-scoped advisory locks on a set of keys, taken in lock-key order so two
 * transactions can never wait on each other in a cycle. (A 64-bit hash collision only
 * serialises two unrelated batches.)
 */
export const lockKeys = (keys: string) => `
SELECT count(pg_advisory_xact_lock(k)) AS locked
FROM (SELECT DISTINCT hashtextextended(key, 0) AS k FROM unnest(${keys}::text[]) AS key ORDER BY 1) AS keys`;

/**
 * A text[] literal of `values`, safe to inline (simple-protocol statements take no parameters):
 * array elements quoted (undefined and null as NULL), then the whole literal quoted as pg does
 * for escapeLiteral.
 */
export function textArray(values: readonly (string | null | undefined)[]): string {
  let body = '';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) body += ',';
    const v = values[i];
    // Most values are ids: a substring search is far cheaper than a regex replace on each.
    body += v == null ? 'NULL' : v.includes('"') || v.includes('\\') ? `"${v.replace(/[\\"]/g, '\\$&')}"` : `"${v}"`;
  }
  return quote(`{${body}}`);
}

const DOLLAR_TAG = '$gt$';

/**
 * A string literal, safe to inline: dollar-quoted (nothing inside is escaped or interpreted, so
 * a big JSON literal costs one scan) unless the text holds `$gt` (then a `$gt$` could end it
 * early, also across its end), else quoted as pg's escapeLiteral does (right whatever
 * standard_conforming_strings says).
 */
export function quote(s: string): string {
  if (!s.includes('$gt')) return `${DOLLAR_TAG}${s}${DOLLAR_TAG}`;
  const lit = s.replace(/'/g, "''");
  return lit.includes('\\') ? `E'${lit.replace(/\\/g, '\\\\')}'` : `'${lit}'`;
}

/**
 * The batch's traces that have stored spans, each with the session its spans without a
 * conversation id went to (the trace id itself while none was seen) and its start time (the
 * partition key of its spans, as text: exact to the microsecond): primary-key lookups in
 * `traces`, however many span partitions there are. One lookup per trace (LIMIT 1 keeps the
 * subquery from being joined as a whole): as a join, the planner hashed the whole `traces` table
 * per batch (4 ms at 30,000 traces, growing with the project).
 */
export const traceState = (projectIds: string, traceIds: string) => `
SELECT t.project_id::text AS project_id, t.trace_id, t.session_id, t.start_time::text AS start_time
FROM unnest(${projectIds}::uuid[], ${traceIds}::text[]) AS b(project_id, trace_id)
CROSS JOIN LATERAL (
  SELECT t.* FROM traces t WHERE t.project_id = b.project_id AND t.trace_id = b.trace_id LIMIT 1
) t`;

/**
 * Spans of the batch that are already stored (retried exports, whatever start time they carry
 * now), among traces that have stored spans: looked up by the full primary key (the trace's
 * start time, not the span's), so only the partition of each trace is read.
 */
export const EXISTING_SPANS = `
SELECT s.project_id::text AS project_id, s.trace_id, s.span_id
FROM unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::text[]) AS t(project_id, trace_start, trace_id, span_id)
JOIN spans s ON s.project_id = t.project_id AND s.trace_start = t.trace_start AND s.trace_id = t.trace_id
  AND s.span_id = t.span_id`;

/**
 * The stored model calls of these traces (`$1` projects, `$2` trace starts, `$3` trace ids), with
 * what same-call.ts reads of their spans: scope and exact times.
 */
export const STORED_MODEL_CALLS = `
SELECT m.project_id::text AS project_id, m.trace_id, m.span_id, m.session_id, m.parent_span_id, m.model, m.input_tokens,
  m.output_tokens, (m.repair_attempt_span_id IS NOT NULL OR m.repair_failure_class IS NOT NULL) AS repair,
  s.start_time_unix_nano::text AS start_ns, s.end_time_unix_nano::text AS end_ns, s.scope_name
FROM unnest($1::uuid[], $2::timestamptz[], $3::text[]) AS t(project_id, trace_start, trace_id)
JOIN model_calls m ON m.project_id = t.project_id AND m.trace_id = t.trace_id
JOIN spans s ON s.project_id = m.project_id AND s.trace_start = t.trace_start AND s.trace_id = m.trace_id
  AND s.span_id = m.span_id AND s.start_time = m.started_at`;

/** Model-call rows by key (`$1` projects, `$2` trace ids, `$3` span ids): another span records the call. */
export const DELETE_MODEL_CALLS = `
DELETE FROM model_calls m USING unnest($1::uuid[], $2::text[], $3::text[]) AS t(project_id, trace_id, span_id)
WHERE m.project_id = t.project_id AND m.trace_id = t.trace_id AND m.span_id = t.span_id`;

/**
 * Traces stored under their trace id whose conversation id this batch reveals: move their
 * spans (found through the session index: their session id is the trace id).
 */
export const REKEY_SPANS = `
UPDATE spans s SET session_id = t.session_id
FROM unnest($1::uuid[], $2::text[], $3::text[]) AS t(project_id, trace_id, session_id)
WHERE s.project_id = t.project_id AND s.session_id = t.trace_id AND s.trace_id = t.trace_id`;

/**
 * Same move for a derived table (only run for traces whose spans moved). The moved attempts are
 * returned: the alerts' rollup counts them at their new session's weight.
 */
export const rekeyDerived = (table: string) => `
UPDATE ${table} d SET session_id = t.session_id
FROM unnest($1::uuid[], $2::text[], $3::text[]) AS t(project_id, trace_id, session_id)
WHERE d.project_id = t.project_id AND d.trace_id = t.trace_id AND d.session_id = d.trace_id${
  table === 'attempts' ? '\nRETURNING d.project_id::text AS project_id, d.trace_id, d.span_id' : ''
}`;

/**
 * The weight the alerts' rollup counts each of these sessions' attempts at (`$1` projects, `$2` ids;
 * sessions.alert_weight, else its sampling weight): read before a re-key moves their rows away.
 */
export const ALERT_WEIGHTS = `
SELECT s.project_id::text AS project_id, s.id, coalesce(s.alert_weight, s.sampling_weight)::float8 AS weight
FROM unnest($1::uuid[], $2::text[]) AS t(project_id, id)
JOIN sessions s ON s.project_id = t.project_id AND s.id = t.id`;

/**
 * The share of the alerts' rollup of sessions whose rows are about to be deleted (`$1` projects,
 * `$2` session ids), taken out (guardtrace_alert_minutes_remove, migration alert_minutes_removed_sessions).
 */
export const REMOVE_ALERT_SHARE = 'SELECT guardtrace_alert_minutes_remove($1::uuid[], $2::text[])';

/** A boolean[] literal. */
const boolArray = (values: readonly boolean[]) => `'{${values.map((l) => (l ? 't' : 'f')).join(',')}}'`;

/**
 * The session rows of the sessions a batch touched (`projectIds`/`ids`, text[] literals), by the
 * function of the session_totals_in_sql migration, under the sessions' locks: a `listed` session
 * (every new row of it in this batch is among `rows`, see TotalsRows in batch-rows.ts) gets the
 * totals of those rows, found by key, inserted as its row or merged into its stored row when the
 * stored row decides every value; any other is recomputed from all its stored rows by the same
 * aggregate (guardtrace_session_totals). Run after the batch's rows are written.
 */
export const updateSessions = (
  projectIds: string,
  ids: string,
  listed: readonly boolean[],
  rows: { sessions: readonly number[]; kinds: string; times: string; starts: string; traces: string; spans: string },
) =>
  `SELECT guardtrace_update_sessions(${projectIds}::uuid[], ${ids}::text[], ${boolArray(listed)}::boolean[],
  '{${rows.sessions.join(',')}}'::int[], ${rows.kinds}::text[], ${rows.times}::timestamptz[], ${rows.starts}::timestamptz[],
  ${rows.traces}::text[], ${rows.spans}::text[]) AS sessions`;

/** Every total of these sessions recomputed from all their stored rows (guardtrace_refresh_sessions). */
export const refreshSessions = (projectIds: string, ids: string) =>
  `SELECT guardtrace_refresh_sessions(${projectIds}::uuid[], ${ids}::text[]) AS sessions`;

/**
 * The analytics rollups (analytics_daily, analytics_cost_daily) of the touched sessions, by the
 * function of the analytics_per_batch migration: a `listed` session (every new row of it in
 * this batch is among the `row*` arrays, see AnalyticsRows) is updated by the rows the batch
 * can change only, whatever the session's size; any other is replaced whole. Run after the
 * session totals (it reads their sampling weight), under the sessions' locks.
 */
export const updateAnalytics = (
  projectIds: string,
  ids: string,
  listed: readonly boolean[],
  rows: { kinds: string; projects: string; traces: string; spans: string },
) =>
  `SELECT guardtrace_update_analytics(${projectIds}::uuid[], ${ids}::text[], ${boolArray(listed)}::boolean[],
  ${rows.kinds}::text[], ${rows.projects}::uuid[], ${rows.traces}::text[], ${rows.spans}::text[]) AS analytics`;

/**
 * The analytics rollup's change of its shared daily rows (analytics_daily, analytics_cost_daily),
 * which guardtrace_update_analytics keeps for the end of the transaction, added to them: the
 * writer's last step before COMMIT, so a second write transaction of the project waits for this
 * step and the COMMIT only, not for the steps between (migration analytics_daily_upserts_last).
 */
export const APPLY_ANALYTICS_PENDING = 'SELECT guardtrace_apply_analytics_pending()';

/**
 * Each rejection of the touched sessions linked to the call that corrects it, after the rollup
 * (guardtrace_link_corrections, migration rejection_fixed_by_correction): the replay and analytics'
 * "Fixed next" read the same stored link. `sinces` (timestamptz[] literal): the earliest start of
 * each session's new spans, NULL to relink a session whole.
 */
export const linkCorrections = (projectIds: string, ids: string, sinces: string) =>
  `SELECT guardtrace_link_corrections(${projectIds}::uuid[], ${ids}::text[], ${sinces}::timestamptz[]) AS links`;

/**
 * The per-model rollup of repair turns (analytics_model_daily) of the touched sessions, by the
 * function of the analytics_model_costs_function migration: each session's part recomputed whole
 * from its stored rows. Run after the session totals (it reads their sampling weight), under the
 * sessions' locks.
 */
export const updateModelCosts = (projectIds: string, ids: string) =>
  `SELECT guardtrace_update_model_costs(${projectIds}::uuid[], ${ids}::text[]) AS model_costs`;
