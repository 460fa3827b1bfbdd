/** Failure classes: data, not strings scattered through code. */
export const FAILURE_CLASSES = [
  /** Deterministic; will not change without new information. */
  'guard_violation',
  /** Arguments failed the schema: one retry with structured feedback. */
  'invalid_arguments',
  /** The model named a tool that does not exist. */
  'unknown_tool',
  /** A file, row or resource does not exist: 0 retries, feed forward and replan. */
  'missing_resource',
  /** Network, 429, 5xx: retry with exponential backoff and jitter. */
  'transient',
  /** Compile, lint or test output: retry with the output. */
  'execution_feedback',
  /** Non-idempotent call with no confirmed outcome: never retry; fail and reconcile. */
  'uncertain_side_effect',
  /** Credentials, configuration: stop. */
  'fatal',
  /** A budget ran out. */
  'budget_exhausted',
  /**
   * A tool threw or reported an error that no other class names: what the collector gives a
   * failed tool call of another instrumentation (no `guardtrace.*` attributes) whose error it
   * cannot map to a class above (see docs/semantic-conventions.md, "Failed tool calls of other
   * instrumentations").
   */
  'tool_error',
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

/** Decisions the policy takes after an attempt or a guard. */
export const DECISIONS = [
  'proceed',
  'reject_with_feedback',
  'retry_backoff',
  'corrected_retry',
  'replan',
  'fail_reconcile',
  'escalate_human',
  'fallback_tool',
  'abort',
  /**
   * Repaired in code, without a model turn: the attempt's mistake had exactly one sound
   * correction, and the corrected call ran as the call's next attempt. Recorded by the SDK on
   * the failed attempt; never a per-class policy decision.
   */
  'auto_repair',
] as const;
export type Decision = (typeof DECISIONS)[number];

/** What an auto-repair corrected (value of `guardtrace.auto_repair.kind`). */
export const AUTO_REPAIR_KINDS = [
  /** An argument name the schema does not have, renamed to its one close schema field. */
  'argument_name',
  /** An unknown tool name, replaced by the one close tool whose schema the arguments satisfy. */
  'tool_name',
  /** A missing path, replaced by the one candidate the files guard found. */
  'path',
] as const;
export type AutoRepairKind = (typeof AUTO_REPAIR_KINDS)[number];

/** Guard stages, cheapest first. */
export const GUARD_STAGES = ['schema', 'logical', 'execution', 'post_execution'] as const;
export type GuardStage = (typeof GUARD_STAGES)[number];

/** Outcome of an attempt or a tool call. */
export const OUTCOMES = ['success', 'rejected', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Outcome of a whole session. */
export const SESSION_OUTCOMES = ['success', 'failed', 'escalated'] as const;
export type SessionOutcome = (typeof SESSION_OUTCOMES)[number];

/** Guard verdicts. */
export const GUARD_VERDICTS = ['pass', 'fail'] as const;
export type GuardVerdict = (typeof GUARD_VERDICTS)[number];

export function isFailureClass(v: unknown): v is FailureClass {
  return typeof v === 'string' && (FAILURE_CLASSES as readonly string[]).includes(v);
}
export function isDecision(v: unknown): v is Decision {
  return typeof v === 'string' && (DECISIONS as readonly string[]).includes(v);
}

/** Why a call escalated (value of `guardtrace.escalation.reason`): a budget that ran out, or a repeat. */
export const ESCALATION_REASONS = [
  /** Hard cap of attempts for one logical tool call. */
  'attempts_per_call',
  /** Retries across the whole session. */
  'session_retries',
  /** Rejections with feedback in one task. */
  'rejections_per_task',
  /** Added wall-clock latency (backoff and failed attempts). */
  'added_latency',
  /** Repair tokens of the user on the rolling window. */
  'repair_tokens',
  /** The tool's circuit breaker is open. */
  'circuit_breaker',
  /** The model repeated a call that was already rejected with the same feedback. */
  'repeated_rejection',
  /** The failure class allows no more retries. */
  'class_retries',
  /** The model sent the same tool with canonically equal arguments as an earlier rejected attempt of the call. */
  'repeated_call',
  /** The failing JSON pointers of the model's corrections stopped shrinking. */
  'no_progress',
  /** The call's corrections reached the class's cap (`maxCorrections`), progress or not. */
  'corrections_per_call',
] as const;
export type EscalationReason = (typeof ESCALATION_REASONS)[number];

/**
 * The escalation reasons that name a budget running out (value of `guardtrace.budget.exhausted`
 * when the call stopped for one, whatever was decided next: a call handed back to the model
 * after its attempts ran out ran out of them all the same). The others stop a call for what the
 * model did or the class allows, with no budget spent: the class's own retry count, a repeated
 * rejection or call, corrections that stopped making progress.
 */
export const BUDGET_REASONS = [
  'attempts_per_call',
  'session_retries',
  'rejections_per_task',
  'added_latency',
  'repair_tokens',
  'circuit_breaker',
  'corrections_per_call',
] as const satisfies readonly EscalationReason[];
export type BudgetReason = (typeof BUDGET_REASONS)[number];
export function isBudgetReason(v: unknown): v is BudgetReason {
  return typeof v === 'string' && (BUDGET_REASONS as readonly string[]).includes(v);
}

/** Answers of a tool's reconcile hook after an uncertain side effect. */
export const RECONCILE_STATUSES = ['committed', 'not_committed', 'unknown'] as const;
export type ReconcileStatus = (typeof RECONCILE_STATUSES)[number];

/** Circuit-breaker states. */
export const CIRCUIT_STATES = ['closed', 'open', 'half_open'] as const;
export type CircuitState = (typeof CIRCUIT_STATES)[number];
