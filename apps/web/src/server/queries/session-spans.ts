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

/** A span as Postgres answers it (one JSON array per session); startNs as text (beyond 2^53). */
type Row = Omit<SpanFacts, 'startNs' | 'rejectionsLeft' | 'latencyLeftMs' | 'repairTokensLeft' | 'deduplicated'> & {
  startNs: string;
  rejectionsLeft: string | null;
  latencyLeftMs: string | null;
  repairTokensLeft: string | null;
  deduplicated: string | null;
};

const num = (v: string | null) => (v === null || v === '' || Number.isNaN(Number(v)) ? null : Number(v));

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
  // One JSON array, parsed natively: 5,000 rows mapped one by one cost more than the query.
  const [r] = await db.$queryRaw<{ rows: string | null }[]>`
    SELECT json_agg(json_build_object(
      'traceId', trace_id, 'spanId', span_id, 'parentSpanId', parent_span_id, 'name', name,
      'serviceName', service_name, 'scopeName', scope_name,
      'startedAt', to_char(start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'startNs', start_time_unix_nano::text,
      'durationMs', (end_time_unix_nano - start_time_unix_nano)::float8 / 1e6,
      'statusCode', status_code, 'statusMessage', status_message,
      'operation', attributes->>${ATTR_GEN_AI_OPERATION_NAME},
      'agentName', attributes->>${ATTR_GEN_AI_AGENT_NAME},
      'rejectionsLeft', attributes->>${ATTR_GUARDTRACE_BUDGET_REJECTIONS_LEFT},
      'latencyLeftMs', attributes->>${ATTR_GUARDTRACE_BUDGET_LATENCY_LEFT_MS},
      'repairTokensLeft', attributes->>${ATTR_GUARDTRACE_BUDGET_REPAIR_TOKENS_LEFT},
      'escalationReason', attributes->>${ATTR_GUARDTRACE_ESCALATION_REASON},
      'reconcileStatus', attributes->>${ATTR_GUARDTRACE_RECONCILE_STATUS},
      'deduplicated', attributes->>${ATTR_GUARDTRACE_DEDUPLICATED},
      'circuitState', attributes->>${ATTR_GUARDTRACE_CIRCUIT_STATE},
      'fallbackTool', attributes->>${ATTR_GUARDTRACE_FALLBACK_TOOL},
      'result', CASE WHEN v.result IS NULL THEN NULL ELSE json_build_object('text', left(v.result, ${previewChars}::int), 'chars', length(v.result)) END,
      'input', CASE WHEN v.input IS NULL THEN NULL ELSE json_build_object('text', left(v.input, ${previewChars}::int), 'chars', length(v.input)) END,
      'output', CASE WHEN v.output IS NULL THEN NULL ELSE json_build_object('text', left(v.output, ${previewChars}::int), 'chars', length(v.output)) END,
      'eventCount', CASE WHEN jsonb_typeof(events) = 'array' THEN jsonb_array_length(events) ELSE 0 END,
      'linkCount', CASE WHEN jsonb_typeof(links) = 'array' THEN jsonb_array_length(links) ELSE 0 END
    ))::text AS rows
    FROM spans,
      LATERAL (SELECT attributes->>${ATTR_GEN_AI_TOOL_CALL_RESULT} AS result, attributes->>${ATTR_GEN_AI_INPUT_MESSAGES} AS input,
        attributes->>${ATTR_GEN_AI_OUTPUT_MESSAGES} AS output) v
    WHERE project_id = ${projectId}::uuid AND session_id = ${sessionId}`;
  const rows: Row[] = r?.rows ? JSON.parse(r.rows) : [];
  return rows.map((row) => ({
    ...row,
    startNs: BigInt(row.startNs),
    rejectionsLeft: num(row.rejectionsLeft),
    latencyLeftMs: num(row.latencyLeftMs),
    repairTokensLeft: num(row.repairTokensLeft),
    deduplicated: row.deduplicated === 'true',
  }));
}
