/**
 * The ingest SQL. Rows are streamed with COPY straight into their tables once the batch is
 * known to hold no stored span (checked first; retries are filtered out). Should a concurrent
 * writer insert one of them meanwhile, the batch is redone through per-connection stages and
 * INSERT ... ON CONFLICT DO NOTHING. Either way ingest is idempotent: a span is keyed by
 * (project, trace start, trace id, span id), where the trace start is its trace's, fixed in
 * the trace index when the trace is first stored, so a re-send with another start time of its
 * own has the same key.
 */

/** Exact timestamptz (microseconds) from a bigint of nanoseconds since the epoch. */
const ts = (col: string) => `(timestamptz 'epoch' + (${col} / 1000) * interval '1 microsecond')`;

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
   resource, events, links`,
  ['trace_start'],
);
export const TOOL_CALLS = target(
  'tool_calls',
  `project_id, trace_id, span_id, session_id, started_at, parent_span_id, tool_name, call_id, duration_ms,
   outcome, failure_class, decision, attempts, read_only, idempotent, destructive, external, idempotency_key,
   arguments, failure_reason, step_sequence`,
);
export const ATTEMPTS = target(
  'attempts',
  `project_id, trace_id, span_id, session_id, started_at, tool_call_span_id, tool_name, number, duration_ms,
   outcome, failure_class, decision, feedback, backoff_ms, attempts_left, session_retries_left,
   budget_exhausted, arguments, error_type, failure_reason`,
);
export const GUARD_CHECKS = target(
  'guard_checks',
  `project_id, trace_id, span_id, session_id, started_at, attempt_span_id, guard_name, stage, verdict, reason,
   decision, failure_class, duration_us, failed_pointers`,
);
export const MODEL_CALLS = target(
  'model_calls',
  `project_id, trace_id, span_id, session_id, started_at, parent_span_id, model, provider, duration_ms,
   input_tokens, output_tokens, repair_attempt_span_id, repair_failure_class, step_sequence`,
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
 * array elements quoted, then the whole literal quoted as pg does for escapeLiteral.
 */
export function textArray(values: readonly string[]): string {
  let body = '';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) body += ',';
    body += `"${(values[i] as string).replace(/[\\"]/g, '\\$&')}"`;
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
 * `traces`, however many span partitions there are.
 */
export const traceState = (projectIds: string, traceIds: string) => `
SELECT t.project_id::text AS project_id, t.trace_id, t.session_id, t.start_time::text AS start_time
FROM traces t JOIN unnest(${projectIds}::uuid[], ${traceIds}::text[]) AS b(project_id, trace_id)
  ON t.project_id = b.project_id AND t.trace_id = b.trace_id`;

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
 * Traces stored under their trace id whose conversation id this batch reveals: move their
 * spans (found through the session index: their session id is the trace id).
 */
export const REKEY_SPANS = `
UPDATE spans s SET session_id = t.session_id
FROM unnest($1::uuid[], $2::text[], $3::text[]) AS t(project_id, trace_id, session_id)
WHERE s.project_id = t.project_id AND s.session_id = t.trace_id AND s.trace_id = t.trace_id`;

/** Same move for a derived table (only run for traces whose spans moved). */
export const rekeyDerived = (table: string) => `
UPDATE ${table} d SET session_id = t.session_id
FROM unnest($1::uuid[], $2::text[], $3::text[]) AS t(project_id, trace_id, session_id)
WHERE d.project_id = t.project_id AND d.trace_id = t.trace_id AND d.session_id = d.trace_id`;

/** Columns of a session row computed by the writer from a batch (sessions new in it). */
export const FRESH_SESSION_COLUMNS =
  'project_id, id, agent_name, service_name, user_id, started_at, ended_at, outcome, span_count, tool_call_count, ' +
  'attempt_count, failed_attempt_count, model_call_count, input_tokens, output_tokens, repair_tokens, sampling_weight';

/** The fields of a batch's totals (session-totals.ts, row()): the row's columns, then what merging needs. */
const BATCH_TOTALS = `project_id uuid, id text, agent_name text, service_name text, user_id text, started_at timestamptz,
  ended_at timestamptz, outcome text, span_count int, tool_call_count int, attempt_count int, failed_attempt_count int,
  model_call_count int, input_tokens bigint, output_tokens bigint, repair_tokens bigint, sampling_weight float8,
  agent_at timestamptz, service_at timestamptz, outcome_attr text, outcome_attr_at timestamptz, escalated boolean,
  root_error boolean, has_root boolean, derived_outcome text, user_any boolean, user_one text, batch_failure boolean, batch_weight float8,
  mergeable boolean`;

/**
 * Session rows of the sessions a batch touched, so totals are right whatever order spans
 * arrive in. Run after the sessions' locks are held, so every other writer of them has
 * committed or not started its totals yet.
 *
 * `fresh` (a JSON array, BATCH_TOTALS) are totals the writer computed from the batch's own
 * rows, all of them new (the direct path, no re-keyed session). A session that has no row yet
 * has no stored rows either (whoever stores a session's rows writes its row in the same
 * transaction, under the same lock): its totals are inserted as given. A session with a row
 * gets the batch's totals merged into it (counts added, times widened, first and last values
 * compared by time) when the stored row decides every value; so a long session costs the same
 * per batch at its end as at its start. Every other touched session (the row cannot tell, or
 * the batch is not in `fresh`) is recomputed from the stored rows. Sessions left with no spans
 * (re-keyed) are deleted.
 */
export const recomputeSessions = (projectIds: string, ids: string, fresh: string) => `
WITH d AS (
  SELECT * FROM json_to_recordset(${fresh}::json) AS d(${BATCH_TOTALS})
),
f AS (
  SELECT d.* FROM d WHERE NOT EXISTS (SELECT 1 FROM sessions x WHERE x.project_id = d.project_id AND x.id = d.id)
),
inserted AS (
  INSERT INTO sessions (${FRESH_SESSION_COLUMNS}, updated_at)
  SELECT ${FRESH_SESSION_COLUMNS}, now() FROM f
),
m AS (
  SELECT d.project_id, d.id,
    -- First values by start time: the stored one came from a span at or after started_at.
    CASE WHEN d.agent_at IS NULL THEN x.agent_name
      WHEN x.agent_name IS NULL OR d.agent_at < x.started_at THEN d.agent_name ELSE x.agent_name END AS agent_name,
    CASE WHEN d.service_at IS NULL THEN x.service_name
      WHEN x.service_name IS NULL OR d.service_at < x.started_at THEN d.service_name ELSE x.service_name END AS service_name,
    CASE WHEN d.user_any THEN d.user_one ELSE x.user_id END AS user_id,
    least(x.started_at, d.started_at) AS started_at,
    greatest(x.ended_at, d.ended_at) AS ended_at,
    CASE WHEN d.outcome_attr_at IS NOT NULL THEN d.outcome_attr
      WHEN d.derived_outcome IS NULL THEN x.outcome
      WHEN x.outcome IS NULL THEN d.derived_outcome
      ELSE x.outcome END AS outcome,
    x.span_count + d.span_count AS span_count,
    x.tool_call_count + d.tool_call_count AS tool_call_count,
    x.attempt_count + d.attempt_count AS attempt_count,
    x.failed_attempt_count + d.failed_attempt_count AS failed_attempt_count,
    x.model_call_count + d.model_call_count AS model_call_count,
    x.input_tokens + d.input_tokens AS input_tokens,
    x.output_tokens + d.output_tokens AS output_tokens,
    x.repair_tokens + d.repair_tokens AS repair_tokens,
    -- The weight rule (sessionSamplingWeight, @guardtrace/semconv): a failure anywhere keeps it at 1.
    CASE WHEN d.batch_failure THEN 1 ELSE x.sampling_weight END AS sampling_weight
  FROM d JOIN sessions x ON x.project_id = d.project_id AND x.id = d.id
  WHERE d.mergeable
    -- Each value is decided by the stored row: the same either way, or the batch's is earlier than every stored span.
    AND (d.agent_at IS NULL OR x.agent_name IS NULL OR x.agent_name = d.agent_name OR d.agent_at < x.started_at)
    AND (d.service_at IS NULL OR x.service_name IS NULL OR x.service_name = d.service_name OR d.service_at < x.started_at)
    -- Users: every user value of the batch is the stored one (or none is stored).
    AND (NOT d.user_any OR (d.user_one IS NOT NULL AND (x.user_id IS NULL OR x.user_id = d.user_one)))
    -- Outcome: the batch's attribute is the stored outcome or later than every stored span; without one, the
    -- stored outcome stays whether it came from an attribute or from the escalated > failed > success rule.
    AND CASE WHEN d.outcome_attr_at IS NOT NULL THEN d.outcome_attr = x.outcome OR d.outcome_attr_at > x.ended_at
      WHEN d.derived_outcome IS NULL OR x.outcome IS NULL OR x.outcome = 'escalated' THEN true
      WHEN x.outcome = 'failed' THEN NOT d.escalated
      WHEN x.outcome = 'success' THEN NOT d.escalated AND NOT d.root_error
      ELSE true END
    -- Weight: a batch failure decides it (1); a batch with no weight leaves the stored one; any
    -- other weight depends on every process's (smallest positive, else 0): recomputed.
    AND (d.batch_failure OR d.batch_weight IS NULL)
),
merged AS (
  UPDATE sessions x SET agent_name = m.agent_name, service_name = m.service_name, user_id = m.user_id,
    started_at = m.started_at, ended_at = m.ended_at, outcome = m.outcome, span_count = m.span_count,
    tool_call_count = m.tool_call_count, attempt_count = m.attempt_count, failed_attempt_count = m.failed_attempt_count,
    model_call_count = m.model_call_count, input_tokens = m.input_tokens, output_tokens = m.output_tokens,
    repair_tokens = m.repair_tokens, sampling_weight = m.sampling_weight, updated_at = now()
  FROM m WHERE x.project_id = m.project_id AND x.id = m.id
),
t AS (
  SELECT DISTINCT t.project_id, t.id FROM unnest(${projectIds}::uuid[], ${ids}::text[]) AS t(project_id, id)
  WHERE NOT EXISTS (SELECT 1 FROM f WHERE f.project_id = t.project_id AND f.id = t.id)
    AND NOT EXISTS (SELECT 1 FROM m WHERE m.project_id = t.project_id AND m.id = t.id)
),
sp AS (
  SELECT s.project_id, s.session_id AS id,
    min(s.start_time) AS started_at,
    max(${ts('s.end_time_unix_nano')}) AS ended_at,
    count(*)::int AS span_count,
    (array_agg(s.attributes->>'gen_ai.agent.name' ORDER BY s.start_time)
      FILTER (WHERE s.attributes ? 'gen_ai.agent.name'))[1] AS agent_name,
    (array_agg(s.service_name ORDER BY s.start_time) FILTER (WHERE s.service_name IS NOT NULL))[1] AS service_name,
    coalesce(
      (array_agg(s.attributes->>'guardtrace.user.id' ORDER BY s.start_time) FILTER (WHERE s.attributes ? 'guardtrace.user.id'))[1],
      (array_agg(s.attributes->>'user.id' ORDER BY s.start_time) FILTER (WHERE s.attributes ? 'user.id'))[1],
      (array_agg(s.attributes->>'ai.telemetry.metadata.userId' ORDER BY s.start_time)
        FILTER (WHERE s.attributes ? 'ai.telemetry.metadata.userId'))[1]
    ) AS user_id,
    (array_agg(s.attributes->>'guardtrace.session.outcome' ORDER BY s.start_time DESC)
      FILTER (WHERE s.attributes ? 'guardtrace.session.outcome'))[1] AS outcome_attr,
    min(CASE WHEN jsonb_typeof(s.attributes->'guardtrace.sampling.weight') = 'number'
      THEN nullif(greatest((s.attributes->>'guardtrace.sampling.weight')::float8, 0), 0) END) AS kept_weight,
    bool_or(CASE WHEN jsonb_typeof(s.attributes->'guardtrace.sampling.weight') = 'number'
      THEN (s.attributes->>'guardtrace.sampling.weight')::float8 <= 0 END) AS dropped_weight,
    bool_or(s.parent_span_id IS NULL AND s.status_code = 2) AS root_error,
    bool_or(s.parent_span_id IS NULL) AS has_root
  FROM spans s JOIN t ON s.project_id = t.project_id AND s.session_id = t.id
  GROUP BY s.project_id, s.session_id
),
tc AS (
  SELECT d.project_id, d.session_id AS id, count(*)::int AS n, bool_or(d.decision = 'escalate_human') AS escalated
  FROM tool_calls d JOIN t ON d.project_id = t.project_id AND d.session_id = t.id
  GROUP BY d.project_id, d.session_id
),
at AS (
  SELECT d.project_id, d.session_id AS id, count(*)::int AS n,
    (count(*) FILTER (WHERE d.outcome IS DISTINCT FROM 'success'))::int AS failed,
    bool_or(d.decision = 'escalate_human') AS escalated
  FROM attempts d JOIN t ON d.project_id = t.project_id AND d.session_id = t.id
  GROUP BY d.project_id, d.session_id
),
mc AS (
  SELECT d.project_id, d.session_id AS id, count(*)::int AS n,
    sum(d.input_tokens)::bigint AS input_tokens, sum(d.output_tokens)::bigint AS output_tokens,
    coalesce(sum(d.input_tokens + d.output_tokens)
      FILTER (WHERE d.repair_attempt_span_id IS NOT NULL OR d.repair_failure_class IS NOT NULL), 0)::bigint AS repair_tokens
  FROM model_calls d JOIN t ON d.project_id = t.project_id AND d.session_id = t.id
  GROUP BY d.project_id, d.session_id
),
upserted AS (
  INSERT INTO sessions AS x (project_id, id, agent_name, service_name, user_id, started_at, ended_at, outcome,
    span_count, tool_call_count, attempt_count, failed_attempt_count, model_call_count, input_tokens,
    output_tokens, repair_tokens, sampling_weight, updated_at)
  SELECT sp.project_id, sp.id, sp.agent_name, sp.service_name, sp.user_id, sp.started_at, sp.ended_at,
    coalesce(sp.outcome_attr, CASE
      WHEN coalesce(tc.escalated, false) OR coalesce(at.escalated, false) THEN 'escalated'
      WHEN sp.root_error THEN 'failed'
      WHEN sp.has_root THEN 'success' END),
    sp.span_count, coalesce(tc.n, 0), coalesce(at.n, 0), coalesce(at.failed, 0), coalesce(mc.n, 0),
    coalesce(mc.input_tokens, 0), coalesce(mc.output_tokens, 0), coalesce(mc.repair_tokens, 0),
    -- The weight rule (sessionSamplingWeight, @guardtrace/semconv): a failure anywhere keeps it at 1.
    CASE WHEN coalesce(at.failed, 0) > 0 OR coalesce(tc.escalated, false) OR coalesce(at.escalated, false) OR sp.root_error
      THEN 1 ELSE coalesce(sp.kept_weight, CASE WHEN sp.dropped_weight THEN 0 END, 1) END, now()
  FROM sp
  LEFT JOIN tc ON tc.project_id = sp.project_id AND tc.id = sp.id
  LEFT JOIN at ON at.project_id = sp.project_id AND at.id = sp.id
  LEFT JOIN mc ON mc.project_id = sp.project_id AND mc.id = sp.id
  ON CONFLICT (project_id, id) DO UPDATE SET
    agent_name = EXCLUDED.agent_name, service_name = EXCLUDED.service_name, user_id = EXCLUDED.user_id,
    started_at = EXCLUDED.started_at, ended_at = EXCLUDED.ended_at, outcome = EXCLUDED.outcome,
    span_count = EXCLUDED.span_count, tool_call_count = EXCLUDED.tool_call_count,
    attempt_count = EXCLUDED.attempt_count, failed_attempt_count = EXCLUDED.failed_attempt_count,
    model_call_count = EXCLUDED.model_call_count, input_tokens = EXCLUDED.input_tokens,
    output_tokens = EXCLUDED.output_tokens, repair_tokens = EXCLUDED.repair_tokens,
    sampling_weight = EXCLUDED.sampling_weight, updated_at = now()
)
DELETE FROM sessions s USING t
WHERE s.project_id = t.project_id AND s.id = t.id
  AND NOT EXISTS (SELECT 1 FROM sp WHERE sp.project_id = t.project_id AND sp.id = t.id)`;

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
  `SELECT guardtrace_update_analytics(${projectIds}::uuid[], ${ids}::text[], '{${listed.map((l) => (l ? 't' : 'f')).join(',')}}'::boolean[],
  ${rows.kinds}::text[], ${rows.projects}::uuid[], ${rows.traces}::text[], ${rows.spans}::text[]) AS analytics`;
