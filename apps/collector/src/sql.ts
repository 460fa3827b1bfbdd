/**
 * The ingest SQL. Rows are streamed with COPY into temp tables (one per target table, kept
 * per connection, emptied at commit), then moved with INSERT ... SELECT ... ON CONFLICT DO
 * NOTHING so retried spans are ignored: COPY's speed with idempotent inserts.
 */

/** Exact timestamptz (microseconds) from a bigint of nanoseconds since the epoch. */
const ts = (col: string) => `(timestamptz 'epoch' + (${col} / 1000) * interval '1 microsecond')`;

/** Rows reach Postgres by COPY into per-connection temp tables, then INSERT ... ON CONFLICT DO NOTHING. */
export interface Staged {
  temp: string;
  /** Column names in COPY order (keys of the row objects). */
  columns: string[];
  create: string;
  insert: string;
}

function staged(temp: string, columnDefs: string, insert: string): Staged {
  const defs = columnDefs.split(',').map((c) => c.trim()).filter(Boolean);
  return {
    temp,
    columns: defs.map((d) => d.split(/\s+/)[0] as string),
    create: `CREATE TEMP TABLE IF NOT EXISTS ${temp} (${defs.join(', ')}) ON COMMIT DELETE ROWS`,
    insert: `${insert} FROM ${temp} ON CONFLICT DO NOTHING`,
  };
}

export const SPANS = staged(
  'gt_stage_spans',
  `project_id uuid, trace_id text, span_id text, parent_span_id text, session_id text, name text, kind int,
   start_ns bigint, end_ns bigint, status_code int, status_message text, service_name text, scope_name text,
   scope_version text, attributes jsonb, resource jsonb, events jsonb, links jsonb`,
  `INSERT INTO spans (project_id, start_time, trace_id, span_id, parent_span_id, session_id, name, kind,
     start_time_unix_nano, end_time_unix_nano, status_code, status_message, service_name, scope_name,
     scope_version, attributes, resource, events, links)
   SELECT project_id, ${ts('start_ns')}, trace_id, span_id, parent_span_id, session_id, name, kind,
     start_ns, end_ns, status_code, status_message, service_name, scope_name, scope_version,
     attributes, resource, events, links`,
);

export const TOOL_CALLS = staged(
  'gt_stage_tool_calls',
  `project_id uuid, trace_id text, span_id text, session_id text, start_ns bigint, parent_span_id text,
   tool_name text, call_id text, duration_ms float8, outcome text, failure_class text, decision text,
   attempts int, read_only bool, idempotent bool, destructive bool, external bool, idempotency_key text,
   arguments text`,
  `INSERT INTO tool_calls (project_id, trace_id, span_id, parent_span_id, session_id, tool_name, call_id,
     started_at, duration_ms, outcome, failure_class, decision, attempts, read_only, idempotent,
     destructive, external, idempotency_key, arguments)
   SELECT project_id, trace_id, span_id, parent_span_id, session_id, tool_name, call_id, ${ts('start_ns')},
     duration_ms, outcome, failure_class, decision, attempts, read_only, idempotent, destructive,
     external, idempotency_key, arguments`,
);

export const ATTEMPTS = staged(
  'gt_stage_attempts',
  `project_id uuid, trace_id text, span_id text, session_id text, start_ns bigint, tool_call_span_id text,
   tool_name text, number int, duration_ms float8, outcome text, failure_class text, decision text,
   feedback text, backoff_ms float8, attempts_left int, session_retries_left int, budget_exhausted text,
   arguments text, error_type text`,
  `INSERT INTO attempts (project_id, trace_id, span_id, tool_call_span_id, session_id, tool_name, number,
     started_at, duration_ms, outcome, failure_class, decision, feedback, backoff_ms, attempts_left,
     session_retries_left, budget_exhausted, arguments, error_type)
   SELECT project_id, trace_id, span_id, tool_call_span_id, session_id, tool_name, number, ${ts('start_ns')},
     duration_ms, outcome, failure_class, decision, feedback, backoff_ms, attempts_left,
     session_retries_left, budget_exhausted, arguments, error_type`,
);

export const GUARD_CHECKS = staged(
  'gt_stage_guard_checks',
  `project_id uuid, trace_id text, span_id text, session_id text, start_ns bigint, attempt_span_id text,
   guard_name text, stage text, verdict text, reason text, decision text, failure_class text,
   duration_us float8`,
  `INSERT INTO guard_checks (project_id, trace_id, span_id, attempt_span_id, session_id, guard_name, stage,
     verdict, reason, decision, failure_class, started_at, duration_us)
   SELECT project_id, trace_id, span_id, attempt_span_id, session_id, guard_name, stage, verdict, reason,
     decision, failure_class, ${ts('start_ns')}, duration_us`,
);

export const MODEL_CALLS = staged(
  'gt_stage_model_calls',
  `project_id uuid, trace_id text, span_id text, session_id text, start_ns bigint, parent_span_id text,
   model text, provider text, duration_ms float8, input_tokens int, output_tokens int,
   repair_attempt_span_id text, repair_failure_class text`,
  `INSERT INTO model_calls (project_id, trace_id, span_id, parent_span_id, session_id, model, provider,
     started_at, duration_ms, input_tokens, output_tokens, repair_attempt_span_id, repair_failure_class)
   SELECT project_id, trace_id, span_id, parent_span_id, session_id, model, provider, ${ts('start_ns')},
     duration_ms, input_tokens, output_tokens, repair_attempt_span_id, repair_failure_class`,
);

export const ALL_STAGED = [SPANS, TOOL_CALLS, ATTEMPTS, GUARD_CHECKS, MODEL_CALLS];

/** Session id already stored for traces this batch has no conversation id for. */
export const STORED_SESSIONS = `
SELECT DISTINCT ON (s.project_id, s.trace_id) s.project_id::text AS project_id, s.trace_id, s.session_id
FROM unnest($1::uuid[], $2::text[]) AS t(project_id, trace_id)
JOIN spans s ON s.project_id = t.project_id AND s.trace_id = t.trace_id AND s.session_id <> s.trace_id
ORDER BY s.project_id, s.trace_id, s.start_time`;

/** Traces stored under their trace id whose conversation id this batch reveals: move their spans. */
export const REKEY_SPANS = `
UPDATE spans s SET session_id = t.session_id
FROM unnest($1::uuid[], $2::text[], $3::text[]) AS t(project_id, trace_id, session_id)
WHERE s.project_id = t.project_id AND s.trace_id = t.trace_id AND s.session_id = s.trace_id
RETURNING s.project_id::text AS project_id, s.trace_id, t.session_id`;

/** Same move for a derived table (only run for traces whose spans moved). */
export const rekeyDerived = (table: string) => `
UPDATE ${table} d SET session_id = t.session_id
FROM unnest($1::uuid[], $2::text[], $3::text[]) AS t(project_id, trace_id, session_id)
WHERE d.project_id = t.project_id AND d.trace_id = t.trace_id AND d.session_id = d.trace_id`;

/**
 * Session rows recomputed from the stored rows of the sessions a batch touched, so totals are
 * right whatever order spans arrive in. Sessions left with no spans (re-keyed) are deleted.
 */
export const RECOMPUTE_SESSIONS = `
WITH t AS (SELECT DISTINCT project_id, id FROM unnest($1::uuid[], $2::text[]) AS t(project_id, id)),
sp AS (
  SELECT s.project_id, s.session_id AS id,
    min(s.start_time) AS started_at,
    max(${ts('s.end_time_unix_nano')}) AS ended_at,
    count(*)::int AS span_count,
    (array_agg(s.attributes->>'gen_ai.agent.name' ORDER BY s.start_time)
      FILTER (WHERE s.attributes ? 'gen_ai.agent.name'))[1] AS agent_name,
    (array_agg(s.service_name ORDER BY s.start_time) FILTER (WHERE s.service_name IS NOT NULL))[1] AS service_name,
    (array_agg(s.attributes->>'guardtrace.user.id' ORDER BY s.start_time)
      FILTER (WHERE s.attributes ? 'guardtrace.user.id'))[1] AS user_id,
    (array_agg(s.attributes->>'guardtrace.session.outcome' ORDER BY s.start_time DESC)
      FILTER (WHERE s.attributes ? 'guardtrace.session.outcome'))[1] AS outcome_attr,
    max(CASE WHEN jsonb_typeof(s.attributes->'guardtrace.sampling.weight') = 'number'
      THEN (s.attributes->>'guardtrace.sampling.weight')::float8 END) AS sampling_weight,
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
    coalesce(sp.sampling_weight, 1), now()
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
