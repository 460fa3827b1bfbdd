import 'server-only';
import type { PrismaClient } from '@guardtrace/db';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GUARDTRACE_BUDGET_LATENCY_LEFT_MS,
  ATTR_GUARDTRACE_BUDGET_REJECTIONS_LEFT,
  ATTR_GUARDTRACE_BUDGET_REPAIR_TOKENS_LEFT,
  ATTR_GUARDTRACE_CIRCUIT_STATE,
  ATTR_GUARDTRACE_DEDUPLICATED,
  ATTR_GUARDTRACE_ESCALATION_REASON,
  ATTR_GUARDTRACE_FALLBACK_TOOL,
  ATTR_GUARDTRACE_RECONCILE_STATUS,
} from '@guardtrace/semconv';
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

interface Row {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  service_name: string | null;
  scope_name: string | null;
  start_time: Date;
  start_ns: bigint;
  end_ns: bigint;
  status_code: number;
  status_message: string | null;
  operation: string | null;
  agent_name: string | null;
  rejections_left: string | null;
  latency_left_ms: string | null;
  repair_tokens_left: string | null;
  escalation_reason: string | null;
  reconcile_status: string | null;
  deduplicated: string | null;
  circuit_state: string | null;
  fallback_tool: string | null;
  result: string | null;
  result_chars: number | null;
  input: string | null;
  input_chars: number | null;
  output: string | null;
  output_chars: number | null;
  event_count: number;
  link_count: number;
}

const num = (v: string | null) => (v === null || v === '' || Number.isNaN(Number(v)) ? null : Number(v));
const pv = (text: string | null, chars: number | null): PreviewDto | null => (text === null ? null : { text, chars: chars ?? text.length });

/**
 * Every span of the session, without its payloads: the database cuts each long value to a
 * preview of `previewChars`, so a 5,000-span session never ships its arguments and prompts.
 */
export async function loadSpanFacts(
  db: PrismaClient,
  projectId: string,
  sessionId: string,
  previewChars: number,
): Promise<SpanFacts[]> {
  const rows = await db.$queryRaw<Row[]>`
    SELECT trace_id, span_id, parent_span_id, name, service_name, scope_name, start_time,
      start_time_unix_nano AS start_ns, end_time_unix_nano AS end_ns, status_code, status_message,
      attributes->>${ATTR_GEN_AI_OPERATION_NAME} AS operation,
      attributes->>${ATTR_GEN_AI_AGENT_NAME} AS agent_name,
      attributes->>${ATTR_GUARDTRACE_BUDGET_REJECTIONS_LEFT} AS rejections_left,
      attributes->>${ATTR_GUARDTRACE_BUDGET_LATENCY_LEFT_MS} AS latency_left_ms,
      attributes->>${ATTR_GUARDTRACE_BUDGET_REPAIR_TOKENS_LEFT} AS repair_tokens_left,
      attributes->>${ATTR_GUARDTRACE_ESCALATION_REASON} AS escalation_reason,
      attributes->>${ATTR_GUARDTRACE_RECONCILE_STATUS} AS reconcile_status,
      attributes->>${ATTR_GUARDTRACE_DEDUPLICATED} AS deduplicated,
      attributes->>${ATTR_GUARDTRACE_CIRCUIT_STATE} AS circuit_state,
      attributes->>${ATTR_GUARDTRACE_FALLBACK_TOOL} AS fallback_tool,
      left(attributes->>${ATTR_GEN_AI_TOOL_CALL_RESULT}, ${previewChars}::int) AS result,
      length(attributes->>${ATTR_GEN_AI_TOOL_CALL_RESULT})::int AS result_chars,
      left(attributes->>${ATTR_GEN_AI_INPUT_MESSAGES}, ${previewChars}::int) AS input,
      length(attributes->>${ATTR_GEN_AI_INPUT_MESSAGES})::int AS input_chars,
      left(attributes->>${ATTR_GEN_AI_OUTPUT_MESSAGES}, ${previewChars}::int) AS output,
      length(attributes->>${ATTR_GEN_AI_OUTPUT_MESSAGES})::int AS output_chars,
      CASE WHEN jsonb_typeof(events) = 'array' THEN jsonb_array_length(events) ELSE 0 END::int AS event_count,
      CASE WHEN jsonb_typeof(links) = 'array' THEN jsonb_array_length(links) ELSE 0 END::int AS link_count
    FROM spans
    WHERE project_id = ${projectId}::uuid AND session_id = ${sessionId}`;
  return rows.map((r) => ({
    traceId: r.trace_id,
    spanId: r.span_id,
    parentSpanId: r.parent_span_id,
    name: r.name,
    serviceName: r.service_name,
    scopeName: r.scope_name,
    startedAt: r.start_time.toISOString(),
    startNs: BigInt(r.start_ns),
    durationMs: Number(BigInt(r.end_ns) - BigInt(r.start_ns)) / 1e6,
    statusCode: r.status_code,
    statusMessage: r.status_message,
    operation: r.operation,
    agentName: r.agent_name,
    rejectionsLeft: num(r.rejections_left),
    latencyLeftMs: num(r.latency_left_ms),
    repairTokensLeft: num(r.repair_tokens_left),
    escalationReason: r.escalation_reason,
    reconcileStatus: r.reconcile_status,
    deduplicated: r.deduplicated === 'true',
    circuitState: r.circuit_state,
    fallbackTool: r.fallback_tool,
    result: pv(r.result, r.result_chars),
    input: pv(r.input, r.input_chars),
    output: pv(r.output, r.output_chars),
    eventCount: r.event_count,
    linkCount: r.link_count,
  }));
}
