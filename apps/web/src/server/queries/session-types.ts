/** DTOs of the session page: plain, serializable, no Prisma types. */

export interface GuardCheckDto {
  spanId: string;
  guardName: string;
  stage: string | null;
  verdict: string;
  reason: string | null;
  decision: string | null;
  failureClass: string | null;
  /** JSON pointers (RFC 6901) into the attempt's arguments of the fields a failed check objects to. */
  failedPointers: string[];
  startedAt: string;
  durationUs: number;
}

export interface AttemptDto {
  spanId: string;
  number: number;
  startedAt: string;
  durationMs: number;
  outcome: string | null;
  failureClass: string | null;
  decision: string | null;
  /** Text shown to the model after this attempt. */
  feedback: string | null;
  backoffMs: number | null;
  attemptsLeft: number | null;
  sessionRetriesLeft: number | null;
  budgetExhausted: string | null;
  /** JSON text as the model produced it. */
  arguments: string | null;
  errorType: string | null;
  /** Why the attempt failed: the exception's `Type: message`, the span's status message or the refusal text. */
  failureReason: string | null;
  guardChecks: GuardCheckDto[];
}

export interface ToolFlagsDto {
  readOnly: boolean | null;
  idempotent: boolean | null;
  destructive: boolean | null;
  external: boolean | null;
}

export interface ToolCallStepDto {
  kind: 'tool';
  /** 1-based position in the timeline (the replay's `?step=`). */
  step: number;
  spanId: string;
  traceId: string;
  toolName: string;
  callId: string | null;
  startedAt: string;
  durationMs: number;
  outcome: string | null;
  failureClass: string | null;
  /** Why the call failed: the exception's `Type: message` or the span's status message. */
  failureReason: string | null;
  decision: string | null;
  flags: ToolFlagsDto;
  idempotencyKey: string | null;
  arguments: string | null;
  attempts: AttemptDto[];
}

export interface ModelCallStepDto {
  kind: 'model';
  step: number;
  spanId: string;
  traceId: string;
  model: string | null;
  provider: string | null;
  startedAt: string;
  durationMs: number;
  inputTokens: number;
  outputTokens: number;
  /** Set when this turn repaired a failed attempt: its tokens count as repair tokens of this class. */
  repairFailureClass: string | null;
  repairAttemptSpanId: string | null;
}

/** A stored span with no Guardtrace-derived row (another instrumentation's span). */
export interface RawSpanStepDto {
  kind: 'span';
  step: number;
  spanId: string;
  traceId: string;
  parentSpanId: string | null;
  name: string;
  serviceName: string | null;
  startedAt: string;
  durationMs: number;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string | null;
  /** Pretty-printed attributes, truncated for very large spans. */
  attributes: string;
  /** Ancestors of this span within the session (0 under the agent root), capped for display. */
  depth: number;
}

/** A guard decision outside any Guardtrace attempt, e.g. an OpenTelemetry GenAI `run_guardrail` / `apply_guardrail` span. */
export interface GuardStepDto extends GuardCheckDto {
  kind: 'guard';
  step: number;
  traceId: string;
}

export type TimelineStepDto = ToolCallStepDto | ModelCallStepDto | GuardStepDto | RawSpanStepDto;

export interface SessionHeaderDto {
  id: string;
  agentName: string | null;
  serviceName: string | null;
  userId: string | null;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  outcome: string | null;
  spanCount: number;
  toolCallCount: number;
  attemptCount: number;
  failedAttemptCount: number;
  modelCallCount: number;
  inputTokens: number;
  outputTokens: number;
  repairTokens: number;
  samplingWeight: number;
  traceIds: string[];
}

export interface SessionDetailDto {
  session: SessionHeaderDto;
  steps: TimelineStepDto[];
  /** True when a per-kind row limit cut the timeline short. */
  truncated: boolean;
}
