import 'server-only';
import { type PrismaClient, type Sql, sql } from '@guardtrace/db';
import { epochMs, isoOf, selectColumns, previewOf } from './row-columns.ts';
import type { PreviewDto } from './session-types.ts';

/**
 * A session's derived rows as the replay reads them, each table in one query of positional rows
 * (row-columns.ts) instead of row objects mapped one by one through Prisma: for a 5,000-span
 * session that mapping and its garbage were most of the server's time (apps/web/bench/notes.md,
 * "Replay"). Long values arrive cut to previews; timestamps as the ISO strings the page shows
 * (milliseconds, UTC, like `Date#toISOString`).
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
  definitionHash: string | null;
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
  /** The stored repair link of a rejection (guardtrace_link_corrections): the replay shows it as analytics counts it. */
  repairSpanId: string | null;
  correctionSpanId: string | null;
  correctionAttempt: number | null;
  /** A repair done in code (attempts.auto_repair_*). */
  autoRepairKind: string | null;
  autoRepairPointers: unknown;
  autoRepairTool: string | null;
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
  guardrailResults: unknown;
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
  cachedInputTokens: number;
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

/** A row as the query answers it: its start as epoch milliseconds, turned into ISO text here. */
type Wire<T extends { startedAt: string }> = Omit<T, 'startedAt'> & { startedAt: number };

async function withIso<T extends { startedAt: string }>(rows: Promise<Wire<T>[]>): Promise<T[]> {
  const out = (await rows) as unknown as T[];
  for (const r of out) r.startedAt = isoOf(r.startedAt as unknown as number);
  return out;
}

/** Every tool call, attempt, guard check and model call of one session of one project. */
export async function loadSessionRows(db: PrismaClient, projectId: string, sessionId: string, previewChars: number, feedbackChars: number): Promise<SessionRows> {
  const where = (table: Sql) => sql`FROM ${table} WHERE project_id = ${projectId}::uuid AND session_id = ${sessionId}`;
  const [toolCalls, attempts, guardChecks, modelCalls] = await Promise.all([
    withIso<ToolCallRow>(
      selectColumns<Wire<ToolCallRow>>(
        db,
        {
          traceId: sql`trace_id`,
          spanId: sql`span_id`,
          parentSpanId: sql`parent_span_id`,
          stepSequence: sql`step_sequence`,
          toolName: sql`tool_name`,
          callId: sql`call_id`,
          startedAt: epochMs(sql`started_at`),
          durationMs: sql`duration_ms`,
          outcome: sql`outcome`,
          failureClass: sql`failure_class`,
          failureReason: sql`failure_reason`,
          definitionHash: sql`definition_hash`,
          decision: sql`decision`,
          readOnly: sql`read_only`,
          idempotent: sql`idempotent`,
          destructive: sql`destructive`,
          external: sql`external`,
          idempotencyKey: sql`idempotency_key`,
          arguments: previewOf(sql`arguments`, previewChars),
        },
        where(sql`tool_calls`),
      ),
    ),
    withIso<AttemptRow>(
      selectColumns<Wire<AttemptRow>>(
        db,
        {
          traceId: sql`trace_id`,
          spanId: sql`span_id`,
          toolCallSpanId: sql`tool_call_span_id`,
          toolName: sql`tool_name`,
          number: sql`number`,
          startedAt: epochMs(sql`started_at`),
          durationMs: sql`duration_ms`,
          outcome: sql`outcome`,
          failureClass: sql`failure_class`,
          decision: sql`decision`,
          feedback: previewOf(sql`feedback`, feedbackChars),
          backoffMs: sql`backoff_ms`,
          attemptsLeft: sql`attempts_left`,
          sessionRetriesLeft: sql`session_retries_left`,
          budgetExhausted: sql`budget_exhausted`,
          arguments: previewOf(sql`arguments`, previewChars),
          errorType: sql`error_type`,
          failureReason: sql`failure_reason`,
          repairSpanId: sql`repair_span_id`,
          correctionSpanId: sql`correction_span_id`,
          correctionAttempt: sql`correction_attempt`,
          autoRepairKind: sql`auto_repair_kind`,
          autoRepairPointers: sql`auto_repair_pointers`,
          autoRepairTool: sql`auto_repair_tool`,
        },
        where(sql`attempts`),
        sql`number, started_at, span_id`,
      ),
    ),
    withIso<GuardCheckRow>(
      selectColumns<Wire<GuardCheckRow>>(
        db,
        {
          traceId: sql`trace_id`,
          spanId: sql`span_id`,
          attemptSpanId: sql`attempt_span_id`,
          guardName: sql`guard_name`,
          stage: sql`stage`,
          verdict: sql`verdict`,
          reason: sql`reason`,
          decision: sql`decision`,
          failureClass: sql`failure_class`,
          failedPointers: sql`failed_pointers`,
          guardrailResults: sql`guardrail_results`,
          startedAt: epochMs(sql`started_at`),
          durationUs: sql`duration_us`,
        },
        where(sql`guard_checks`),
        sql`started_at, span_id`,
      ),
    ),
    withIso<ModelCallRow>(
      selectColumns<Wire<ModelCallRow>>(
        db,
        {
          traceId: sql`trace_id`,
          spanId: sql`span_id`,
          parentSpanId: sql`parent_span_id`,
          stepSequence: sql`step_sequence`,
          model: sql`model`,
          provider: sql`provider`,
          startedAt: epochMs(sql`started_at`),
          durationMs: sql`duration_ms`,
          inputTokens: sql`input_tokens`,
          outputTokens: sql`output_tokens`,
          cachedInputTokens: sql`cached_input_tokens`,
          repairAttemptSpanId: sql`repair_attempt_span_id`,
          repairFailureClass: sql`repair_failure_class`,
        },
        where(sql`model_calls`),
      ),
    ),
  ]);
  return { toolCalls, attempts, guardChecks, modelCalls };
}
