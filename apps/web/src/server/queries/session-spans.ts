import 'server-only';
import { type PrismaClient, type Sql, sql } from '@guardtrace/db';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GUARDTRACE_BUDGET_LATENCY_LEFT_MS,
  ATTR_GUARDTRACE_BUDGET_REJECTIONS_LEFT,
  ATTR_GUARDTRACE_BUDGET_REPAIR_TOKENS_LEFT,
  ATTR_GUARDTRACE_CIRCUIT_STATE,
  ATTR_GUARDTRACE_DEDUPLICATED,
  ATTR_GUARDTRACE_DISCOVERY_FOR_CALL_ID,
  ATTR_GUARDTRACE_ESCALATION_REASON,
  ATTR_GUARDTRACE_FALLBACK_TOOL,
  ATTR_GUARDTRACE_RECONCILE_STATUS,
  MODEL_DETAILS_LOG_EVENT,
  MODEL_INPUT_EVENT,
  MODEL_INPUT_INDEXED_PREFIX,
  MODEL_INPUT_KEYS,
  MODEL_INPUT_LOG_EVENTS,
  MODEL_OUTPUT_EVENT,
  MODEL_OUTPUT_INDEXED_PREFIX,
  MODEL_OUTPUT_KEYS,
  MODEL_OUTPUT_LOG_EVENT,
  TOOL_RESULT_KEYS,
} from '@guardtrace/semconv';
import { epochMs, isoOf, previewOf, selectArrays } from './row-columns.ts';
import type { PreviewDto } from './session-types.ts';

/** What the replay reads from a session's raw spans: the span's shape and the attributes the derived rows do not keep. */
export interface SpanFacts {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  serviceName: string | null;
  scopeName: string | null;
  startedAt: string;
  startNs: bigint;
  durationMs: number;
  statusCode: number;
  statusMessage: string | null;
  operation: string | null;
  agentName: string | null;
  rejectionsLeft: number | null;
  latencyLeftMs: number | null;
  repairTokensLeft: number | null;
  escalationReason: string | null;
  /** The call id a runtime-run discovery call was made for (guardtrace.discovery.for_call_id). */
  discoveryFor: string | null;
  reconcileStatus: string | null;
  deduplicated: boolean;
  circuitState: string | null;
  fallbackTool: string | null;
  result: PreviewDto | null;
  input: PreviewDto | null;
  output: PreviewDto | null;
  eventCount: number;
  linkCount: number;
}

/** A span as Postgres answers it; startNs as text (beyond 2^53), startedAt as epoch milliseconds. */
type Row = Omit<SpanFacts, 'startNs' | 'startedAt' | 'rejectionsLeft' | 'latencyLeftMs' | 'repairTokensLeft' | 'deduplicated'> & {
  startNs: string;
  startedAt: number;
  rejectionsLeft: string | null;
  latencyLeftMs: string | null;
  repairTokensLeft: string | null;
  deduplicated: string | null;
};

const empty = sql``;

/**
 * The first of `keys` that the span has, not empty (each convention's content key: semconv's
 * content.ts); `attrs` names the span's attributes column.
 */
function firstAttribute(keys: readonly string[], attrs: Sql = sql`attributes`): Sql {
  const each = keys.map((k) => sql`nullif(${attrs}->>${k}, '')`);
  return sql`coalesce(${each.slice(1).reduce((acc, p) => sql`${acc}, ${p}`, each[0] ?? sql`NULL`)})`;
}
const num = (v: string | null) => (v === null || v === '' || Number.isNaN(Number(v)) ? null : Number(v));

/**
 * The `attribute` of the span's first event named `name` (older GenAI conventions' content
 * events), not empty; a key test on the events first, so spans without one cost no unnest.
 */
function eventAttribute(event: { name: string; attribute: string }): Sql {
  const has = JSON.stringify([{ name: event.name }]);
  return sql`CASE WHEN jsonb_typeof(events) = 'array' AND events @> ${has}::jsonb THEN
    (SELECT nullif(e->'attributes'->>${event.attribute}, '') FROM jsonb_array_elements(events) e WHERE e->>'name' = ${event.name} LIMIT 1) END`;
}

/**
 * OpenLLMetry's indexed messages (`{prefix}.{i}.{field}`) as a JSON array, one object of each
 * index's fields in index order; only for spans that have a message 0.
 */
function indexedMessages(prefix: string): Sql {
  const pattern = `^${prefix.replaceAll('.', '\\.')}\\.(\\d{1,6})\\.(.+)$`;
  return sql`CASE WHEN attributes ? ${`${prefix}.0.content`} OR attributes ? ${`${prefix}.0.role`} THEN
    (SELECT jsonb_agg(m.fields ORDER BY m.i)::text FROM (
      SELECT (x.g)[1]::int AS i, jsonb_object_agg((x.g)[2], x.value) AS fields
      FROM (SELECT regexp_match(key, ${pattern}) AS g, value FROM jsonb_each(attributes)) x
      WHERE x.g IS NOT NULL GROUP BY 1) m) END`;
}

/**
 * A model call's content from the GenAI events the collector kept of its log records
 * (genai_events, by the span's ids, whichever arrived first): the semconv 1.37 operation-details
 * event's messages attribute (`key`; for the input, its system instructions first as a system
 * message), else the older per-message events as a JSON array in their order (time, then arrival):
 * each prompt message `{role, ...body}` (the role from the event's name), each choice its body.
 * Read for model-call spans only (`spans.role`), so no other span costs a lookup.
 */
function logEventsContent(events: readonly string[], key: 'input' | 'output'): Sql {
  const d = MODEL_DETAILS_LOG_EVENT;
  const attr = d[key];
  const detailsValue =
    key === 'input'
      ? sql`CASE WHEN jsonb_typeof(e.attributes->${attr}) = 'array' THEN
          (CASE WHEN jsonb_typeof(e.attributes->${d.instructions}) = 'array'
            THEN jsonb_build_array(jsonb_build_object('role', 'system', 'parts', e.attributes->${d.instructions})) ELSE '[]'::jsonb END
           || (e.attributes->${attr}))::text
        ELSE nullif(e.attributes->>${attr}, '') END`
      : sql`CASE WHEN jsonb_typeof(e.attributes->${attr}) = 'array' THEN (e.attributes->${attr})::text ELSE nullif(e.attributes->>${attr}, '') END`;
  const message =
    key === 'input'
      ? sql`jsonb_build_object('role', split_part(e.event_name, '.', 2)) || CASE WHEN jsonb_typeof(e.body) = 'object' THEN e.body ELSE jsonb_build_object('content', e.body) END`
      : sql`coalesce(e.body, 'null'::jsonb)`;
  return sql`CASE WHEN spans.role = 'model_call' THEN (
    SELECT coalesce(
      (array_agg(${detailsValue} ORDER BY e.time_unix_nano, e.seq) FILTER (WHERE e.event_name = ${d.name} AND e.attributes ? ${attr}))[1],
      (jsonb_agg(${message} ORDER BY e.time_unix_nano, e.seq) FILTER (WHERE e.event_name = ANY(${[...events]}::text[])))::text)
    FROM genai_events e WHERE e.project_id = spans.project_id AND e.trace_id = spans.trace_id AND e.span_id = spans.span_id) END`;
}

/** Where each kind of content is, in each convention (semconv's content.ts), as one SQL value of a `spans` row. */
export const CONTENT_SQL = {
  result: firstAttribute(TOOL_RESULT_KEYS),
  input: sql`coalesce(${firstAttribute(MODEL_INPUT_KEYS)}, ${eventAttribute(MODEL_INPUT_EVENT)}, ${indexedMessages(MODEL_INPUT_INDEXED_PREFIX)},
    ${logEventsContent(MODEL_INPUT_LOG_EVENTS, 'input')})`,
  output: sql`coalesce(${firstAttribute(MODEL_OUTPUT_KEYS)}, ${eventAttribute(MODEL_OUTPUT_EVENT)}, ${indexedMessages(MODEL_OUTPUT_INDEXED_PREFIX)},
    ${logEventsContent([MODEL_OUTPUT_LOG_EVENT], 'output')})`,
} as const;

/** Which of the session's spans to read (default: all). */
export interface SpanSelection {
  /**
   * Leave out the spans the collector made guard checks of (`spans.role`): their rows say what
   * the replay's steps show of them. A 6,629-span session has 2,727 (apps/web/bench/notes.md).
   */
  withoutGuardChecks?: boolean;
  /** Only these span ids (a follow-up read of a few). */
  spanIds?: string[];
}

/**
 * The session's spans, without their payloads: the database cuts each long value to a
 * preview of `previewChars`, so a 5,000-span session never ships its arguments and prompts.
 */
export async function loadSpanFacts(
  db: PrismaClient,
  projectId: string,
  sessionId: string,
  previewChars: number,
  selection: SpanSelection = {},
): Promise<SpanFacts[]> {
  const attr = (name: string) => sql`attributes->>${name}`;
  const { rows, at } = await selectArrays(
    db,
    {
      traceId: sql`trace_id`,
      spanId: sql`span_id`,
      parentSpanId: sql`parent_span_id`,
      name: sql`name`,
      serviceName: sql`service_name`,
      scopeName: sql`scope_name`,
      startedAt: epochMs(sql`start_time`),
      startNs: sql`start_time_unix_nano::text`,
      durationMs: sql`(end_time_unix_nano - start_time_unix_nano)::float8 / 1e6`,
      statusCode: sql`status_code`,
      statusMessage: sql`status_message`,
      operation: attr(ATTR_GEN_AI_OPERATION_NAME),
      agentName: attr(ATTR_GEN_AI_AGENT_NAME),
      rejectionsLeft: attr(ATTR_GUARDTRACE_BUDGET_REJECTIONS_LEFT),
      latencyLeftMs: attr(ATTR_GUARDTRACE_BUDGET_LATENCY_LEFT_MS),
      repairTokensLeft: attr(ATTR_GUARDTRACE_BUDGET_REPAIR_TOKENS_LEFT),
      escalationReason: attr(ATTR_GUARDTRACE_ESCALATION_REASON),
      discoveryFor: attr(ATTR_GUARDTRACE_DISCOVERY_FOR_CALL_ID),
      reconcileStatus: attr(ATTR_GUARDTRACE_RECONCILE_STATUS),
      deduplicated: attr(ATTR_GUARDTRACE_DEDUPLICATED),
      circuitState: attr(ATTR_GUARDTRACE_CIRCUIT_STATE),
      fallbackTool: attr(ATTR_GUARDTRACE_FALLBACK_TOOL),
      result: previewOf(sql`v.result`, previewChars),
      input: previewOf(sql`v.input`, previewChars),
      output: previewOf(sql`v.output`, previewChars),
      eventCount: sql`CASE WHEN jsonb_typeof(events) = 'array' THEN jsonb_array_length(events) ELSE 0 END`,
      linkCount: sql`CASE WHEN jsonb_typeof(links) = 'array' THEN jsonb_array_length(links) ELSE 0 END`,
    },
    sql`FROM spans,
      LATERAL (SELECT ${CONTENT_SQL.result} AS result, ${CONTENT_SQL.input} AS input, ${CONTENT_SQL.output} AS output) v
    WHERE project_id = ${projectId}::uuid AND session_id = ${sessionId}
      ${selection.withoutGuardChecks ? sql`AND role IS DISTINCT FROM 'guard_check'` : empty}
      ${selection.spanIds ? sql`AND span_id = ANY(${selection.spanIds}::text[])` : empty}`,
  );
  // Each span an object literal of one shape (see selectArrays), its values converted on the way.
  return rows.map(
    (r): SpanFacts => ({
      traceId: r[at.traceId] as Row['traceId'],
      spanId: r[at.spanId] as Row['spanId'],
      parentSpanId: r[at.parentSpanId] as Row['parentSpanId'],
      name: r[at.name] as Row['name'],
      serviceName: r[at.serviceName] as Row['serviceName'],
      scopeName: r[at.scopeName] as Row['scopeName'],
      startedAt: isoOf(r[at.startedAt] as Row['startedAt']),
      startNs: BigInt(r[at.startNs] as Row['startNs']),
      durationMs: r[at.durationMs] as Row['durationMs'],
      statusCode: r[at.statusCode] as Row['statusCode'],
      statusMessage: r[at.statusMessage] as Row['statusMessage'],
      operation: r[at.operation] as Row['operation'],
      agentName: r[at.agentName] as Row['agentName'],
      rejectionsLeft: num(r[at.rejectionsLeft] as Row['rejectionsLeft']),
      latencyLeftMs: num(r[at.latencyLeftMs] as Row['latencyLeftMs']),
      repairTokensLeft: num(r[at.repairTokensLeft] as Row['repairTokensLeft']),
      escalationReason: r[at.escalationReason] as Row['escalationReason'],
      discoveryFor: r[at.discoveryFor] as Row['discoveryFor'],
      reconcileStatus: r[at.reconcileStatus] as Row['reconcileStatus'],
      deduplicated: (r[at.deduplicated] as Row['deduplicated']) === 'true',
      circuitState: r[at.circuitState] as Row['circuitState'],
      fallbackTool: r[at.fallbackTool] as Row['fallbackTool'],
      result: r[at.result] as Row['result'],
      input: r[at.input] as Row['input'],
      output: r[at.output] as Row['output'],
      eventCount: r[at.eventCount] as Row['eventCount'],
      linkCount: r[at.linkCount] as Row['linkCount'],
    }),
  );
}
