/** DTOs of the session page: plain, serializable, no Prisma types. */
import type { CostEstimate as CostDto } from '@guardtrace/db';

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
  /** Another instrumentation's guardrail results, in the provider's own values (empty for Guardtrace's guards). */
  results: GuardrailResultDto[];
}

/**
 * One result of a guardrail as the provider reported it (the merged OpenTelemetry GenAI guardrail
 * convention, stored by the collector as it came): only the values it had.
 */
export interface GuardrailResultDto {
  component?: string;
  provider?: string;
  policyId?: string;
  policyVersion?: string;
  ruleId?: string;
  source?: string;
  type?: string;
  value?: string;
  reason?: string;
  riskCategory?: string;
  riskScore?: number;
}

export interface AttemptDto {
  spanId: string;
  number: number;
  startedAt: string;
  durationMs: number;
  outcome: string | null;
  failureClass: string | null;
  decision: string | null;
  /** Tool the model named in this attempt (a correction may name another tool than the call's first attempt). */
  toolName: string | null;
  /** Text shown to the model after this attempt (a preview; the whole text through the payload route). */
  feedback: PreviewDto | null;
  /** True when the SDK retried by itself (backoff): nothing was shown to the model. */
  internalRetry: boolean;
  /**
   * The runtime sent the call again by itself after this attempt: its side effect was uncertain
   * (`fail_reconcile`) and the tool's reconcile hook answered `not_committed`. The error was not
   * shown to the model, and this is no escalation.
   */
  resentAfterReconcile?: boolean;
  backoffMs: number | null;
  budgets: BudgetsDto;
  /** Why the call escalated after this attempt (`guardtrace.escalation.reason`). */
  escalationReason: string | null;
  /** Tool's circuit-breaker state when the attempt started. */
  circuitState: string | null;
  /** Tool proposed instead, when the decision is `fallback_tool`. */
  fallbackTool: string | null;
  /** JSON text as the model produced it (a preview). */
  arguments: PreviewDto | null;
  errorType: string | null;
  /** Why the attempt failed: the exception's `Type: message`, the span's status message or the refusal text. */
  failureReason: string | null;
  guardChecks: GuardCheckDto[];
  /** The model turn that repaired this attempt (`repair_attempt_span_id`), by its step. */
  repairedByStep: number | null;
  /**
   * The link to that turn is the collector's inference (the first model call after a failure of
   * an instrumentation that records no repair), not a recorded repair. Absent when recorded.
   */
  repairedByInferred?: boolean;
  /** Set when the SDK corrected this attempt in code (decision `auto_repair`): no model turn. */
  autoRepair: AutoRepairDto | null;
}

/** A repair done in code (auto-repair.ts): what was corrected, from what to what, the pointers before and after. */
export interface AutoRepairDto {
  /** `argument_name`, `tool_name` or `path`. */
  kind: string;
  /** The argument name(s), tool name or path the model sent; null when unknown. */
  from: string | null;
  /** What the call ran with instead; null when unknown. */
  to: string | null;
  /** Pointers the failed guard objected to, in this attempt's arguments. */
  before: string[];
  /** Pointers of the corrected fields, in the corrected attempt's arguments. */
  after: string[];
  /** The tool the call ran as instead (tool-name repairs). */
  tool: string | null;
  /** The same call's attempt that ran with the correction. */
  correctedAttempt: number | null;
}

/** The start of a long value; the rest is loaded on demand from `/sessions/[id]/payload`. */
export interface PreviewDto {
  text: string;
  /** Length of the whole value in characters. */
  chars: number;
}

/** Every budget the runtime reported after an attempt; null when the span did not carry it. */
interface BudgetsDto {
  attemptsLeft: number | null;
  sessionRetriesLeft: number | null;
  rejectionsLeft: number | null;
  latencyLeftMs: number | null;
  repairTokensLeft: number | null;
  /** Name of the budget that ran out, if any. */
  exhausted: string | null;
}

/** A link from one step to another (and an attempt in it). */
export interface StepRefDto {
  step: number;
  attempt: number | null;
  toolName: string | null;
}

interface ToolFlagsDto {
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
  /** The hash of the tool definition the call was decided under (guardtrace.tool.definition.hash); null or absent when not recorded. */
  definitionHash?: string | null;
  /** Why the call failed: the exception's `Type: message` or the span's status message. */
  failureReason: string | null;
  decision: string | null;
  flags: ToolFlagsDto;
  idempotencyKey: string | null;
  arguments: PreviewDto | null;
  /** The tool's result (`gen_ai.tool.call.result`), a preview. */
  result: PreviewDto | null;
  /** Answer of the tool's reconcile hook after an uncertain side effect. */
  reconcileStatus: string | null;
  /** True when the call was answered from the idempotency store instead of running again. */
  deduplicated: boolean;
  escalationReason: string | null;
  /**
   * Set on a call the runtime ran itself, not the model: the declared discovery tool, run for the
   * call with this call id after it was handed back (guardtrace.discovery.for_call_id). Absent or
   * null otherwise.
   */
  discoveryFor?: string | null;
  /** The tools the model named in the attempts up to this step's last one, in order (`search_codebase`, `search_files`). */
  toolNames: string[];
  /**
   * Set when the call is listed in parts (call-parts.ts): a model turn repaired one of its
   * attempts and the call went on, so the list reads failed attempt → repair turn → corrected
   * attempt. `attempts` then holds this part's attempts; the call's arguments and result are on
   * its first part.
   */
  part: CallPartDto | null;
  attempts: AttemptDto[];
  /** Guardrails another instrumentation ran on this call itself (their spans or result events are under the call's span). */
  guardChecks?: GuardCheckDto[];
}

interface CallPartDto {
  /** 0-based. */
  index: number;
  count: number;
  /** The step of each part of the call, in order. */
  steps: number[];
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
  /** Input tokens served from the provider's prompt cache (part of inputTokens). */
  cachedInputTokens: number;
  /** Estimated cost in US dollars at the project's prices (costs.ts). */
  cost: CostDto;
  /** Set when this turn repaired a failed attempt: its tokens count as repair tokens of this class. */
  repairFailureClass: string | null;
  repairAttemptSpanId: string | null;
  /** The failed attempt this turn repairs. */
  repairs: StepRefDto | null;
  /**
   * The link is the collector's inference (the first model call after a failure of an
   * instrumentation that records no repair), not recorded: the turn's tokens are not counted as
   * repair tokens (only turns naming the attempt or class they repair are).
   */
  repairsInferred: boolean;
  /** The call the model made after this repair turn (the same logical call's next attempt, or the next call). */
  corrected: StepRefDto | null;
  /** Prompt and output, when the agent opted in to content capture. */
  input: PreviewDto | null;
  output: PreviewDto | null;
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
  /** Ancestors of this span within the session (0 under the agent root), capped for display. */
  depth: number;
  eventCount: number;
  linkCount: number;
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
  /** Of those, the calls the runtime ran itself, not the model (a declared discovery tool: guardtrace.discovery.for_call_id). */
  runtimeToolCallCount: number;
  attemptCount: number;
  failedAttemptCount: number;
  /** Spans with status ERROR, of any instrumentation. */
  errorSpanCount: number;
  modelCallCount: number;
  inputTokens: number;
  outputTokens: number;
  repairTokens: number;
  /** Estimated cost in US dollars of the session's own tokens, at the project's prices (costs.ts). */
  cost: CostDto;
  samplingWeight: number;
  traceIds: string[];
  /** Whether its model calls have GenAI events (/v1/logs): the header offers their export beside the spans'. */
  genAiEvents: boolean;
}

/** One node of the session's span tree (every stored span, whoever emitted it). */
export interface SpanNodeDto {
  spanId: string;
  traceId: string;
  parentSpanId: string | null;
  name: string;
  serviceName: string | null;
  scopeName: string | null;
  startedAt: string;
  durationMs: number;
  statusCode: number;
  statusMessage: string | null;
  depth: number;
  eventCount: number;
  linkCount: number;
  /** Step of the replay this span is, when it is one. */
  step: number | null;
}

/** A point where the session escalated (a call handed to a human or to reconciliation). */
export interface EscalationDto {
  step: number;
  attempt: number | null;
  toolName: string;
  decision: string | null;
  reason: string | null;
  failureClass: string | null;
  /** The call's reconcile answer (`fail_reconcile`: the side effect's outcome was uncertain, so the tool's hook was asked). */
  reconcileStatus: string | null;
  /** Why, in words, never empty (escalations.ts): the recorded reason, else the evidence the rows hold, else class and decision. */
  why: string;
  /** What kind of hand-off it was, for the summary line (escalations.ts). */
  kind: EscalationKind;
}

/** A budget ran out; the runtime aborted (fatal, guard violation); a side effect went to reconcile; handed to a human otherwise. */
export type EscalationKind = 'budget' | 'abort' | 'reconcile' | 'human';

export interface SessionDetailDto {
  session: SessionHeaderDto;
  steps: TimelineStepDto[];
  /** Every span in parent/child order (depth first). */
  spanTree: SpanNodeDto[];
  /** Each escalation, in step order: where and why. */
  escalations: EscalationDto[];
}

/** What the replay loads in the browser (`GET /sessions/{id}/replay`): every step and escalation; the header came with the page. */
export interface ReplayStepsDto {
  steps: TimelineStepDto[];
  escalations: EscalationDto[];
}

/** The span tree, loaded when the tree view opens (`GET /sessions/{id}/replay?part=tree`). */
export interface ReplayTreeDto {
  spanTree: SpanNodeDto[];
}
