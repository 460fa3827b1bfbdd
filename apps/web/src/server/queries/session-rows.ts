import 'server-only';
import type { PrismaClient } from '@guardtrace/db';
import type { PreviewDto } from './session-types.ts';

/**
 * A session's derived rows as the replay reads them, each table in one query that Postgres
 * answers as a single JSON array (parsed natively), instead of row objects mapped one by one:
 * for a 5,000-span session that mapping and its garbage were most of the server's time
 * (apps/web/bench/notes.md, "Replay"). Long values arrive cut to previews; timestamps as the
 * ISO strings the page shows (milliseconds, UTC, like `Date#toISOString`).
 */

interface ToolCallRow {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  stepSequence: number | null;
  toolName: string;
  callId: string | null;
  startedAt: string;
  durationMs: number;
  outcome: string | null;
  failureClass: string | null;
  failureReason: string | null;
  decision: string | null;
  readOnly: boolean | null;
  idempotent: boolean | null;
  destructive: boolean | null;
  external: boolean | null;
  idempotencyKey: string | null;
  arguments: PreviewDto | null;
}

interface AttemptRow {
  traceId: string;
  spanId: string;
  toolCallSpanId: string | null;
  toolName: string | null;
  number: number;
  startedAt: string;
  durationMs: number;
  outcome: string | null;
  failureClass: string | null;
  decision: string | null;
  feedback: PreviewDto | null;
  backoffMs: number | null;
  attemptsLeft: number | null;
  sessionRetriesLeft: number | null;
  budgetExhausted: string | null;
  arguments: PreviewDto | null;
  errorType: string | null;
  failureReason: string | null;
}

interface GuardCheckRow {
  traceId: string;
  spanId: string;
  attemptSpanId: string | null;
  guardName: string;
  stage: string | null;
  verdict: string;
  reason: string | null;
  decision: string | null;
  failureClass: string | null;
  failedPointers: unknown;
  startedAt: string;
  durationUs: number;
}

interface ModelCallRow {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  stepSequence: number | null;
  model: string | null;
  provider: string | null;
  startedAt: string;
  durationMs: number;
  inputTokens: number;
  outputTokens: number;
  repairAttemptSpanId: string | null;
  repairFailureClass: string | null;
}

export interface SessionRows {
  toolCalls: ToolCallRow[];
  /** By number, then start, then span id. */
  attempts: AttemptRow[];
  /** By start, then span id. */
  guardChecks: GuardCheckRow[];
  modelCalls: ModelCallRow[];
}

/** The JSON array a query answered as its one text column. */
async function jsonRows<T>(query: Promise<{ rows: string | null }[]>): Promise<T[]> {
  const [r] = await query;
  return r?.rows ? (JSON.parse(r.rows) as T[]) : [];
}

/** Every tool call, attempt, guard check and model call of one session of one project. */
export async function loadSessionRows(db: PrismaClient, projectId: string, sessionId: string, previewChars: number, feedbackChars: number): Promise<SessionRows> {
  // A preview: the value's first characters and its whole length (null stays null).
  const [toolCalls, attempts, guardChecks, modelCalls] = await Promise.all([
    jsonRows<ToolCallRow>(db.$queryRaw`
      SELECT json_agg(json_build_object(
        'traceId', trace_id, 'spanId', span_id, 'parentSpanId', parent_span_id, 'stepSequence', step_sequence,
        'toolName', tool_name, 'callId', call_id,
        'startedAt', to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'durationMs', duration_ms, 'outcome', outcome, 'failureClass', failure_class, 'failureReason', failure_reason,
        'decision', decision, 'readOnly', read_only, 'idempotent', idempotent, 'destructive', destructive, 'external', external,
        'idempotencyKey', idempotency_key,
        'arguments', CASE WHEN arguments IS NULL THEN NULL ELSE json_build_object('text', left(arguments, ${previewChars}::int), 'chars', length(arguments)) END
      ))::text AS rows
      FROM tool_calls WHERE project_id = ${projectId}::uuid AND session_id = ${sessionId}`),
    jsonRows<AttemptRow>(db.$queryRaw`
      SELECT json_agg(json_build_object(
        'traceId', trace_id, 'spanId', span_id, 'toolCallSpanId', tool_call_span_id, 'toolName', tool_name, 'number', number,
        'startedAt', to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'durationMs', duration_ms, 'outcome', outcome, 'failureClass', failure_class, 'decision', decision,
        'feedback', CASE WHEN feedback IS NULL THEN NULL ELSE json_build_object('text', left(feedback, ${feedbackChars}::int), 'chars', length(feedback)) END,
        'backoffMs', backoff_ms, 'attemptsLeft', attempts_left, 'sessionRetriesLeft', session_retries_left,
        'budgetExhausted', budget_exhausted,
        'arguments', CASE WHEN arguments IS NULL THEN NULL ELSE json_build_object('text', left(arguments, ${previewChars}::int), 'chars', length(arguments)) END,
        'errorType', error_type, 'failureReason', failure_reason
      ) ORDER BY number, started_at, span_id)::text AS rows
      FROM attempts WHERE project_id = ${projectId}::uuid AND session_id = ${sessionId}`),
    jsonRows<GuardCheckRow>(db.$queryRaw`
      SELECT json_agg(json_build_object(
        'traceId', trace_id, 'spanId', span_id, 'attemptSpanId', attempt_span_id, 'guardName', guard_name, 'stage', stage,
        'verdict', verdict, 'reason', reason, 'decision', decision, 'failureClass', failure_class,
        'failedPointers', failed_pointers,
        'startedAt', to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'durationUs', duration_us
      ) ORDER BY started_at, span_id)::text AS rows
      FROM guard_checks WHERE project_id = ${projectId}::uuid AND session_id = ${sessionId}`),
    jsonRows<ModelCallRow>(db.$queryRaw`
      SELECT json_agg(json_build_object(
        'traceId', trace_id, 'spanId', span_id, 'parentSpanId', parent_span_id, 'stepSequence', step_sequence,
        'model', model, 'provider', provider,
        'startedAt', to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'durationMs', duration_ms, 'inputTokens', input_tokens, 'outputTokens', output_tokens,
        'repairAttemptSpanId', repair_attempt_span_id, 'repairFailureClass', repair_failure_class
      ))::text AS rows
      FROM model_calls WHERE project_id = ${projectId}::uuid AND session_id = ${sessionId}`),
  ]);
  return { toolCalls, attempts, guardChecks, modelCalls };
}
