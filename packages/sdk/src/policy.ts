import type { Decision, EscalationReason, FailureClass } from '@guardtrace/semconv';
import type { ProgressView } from './progress.ts';
import type { BackoffConfig, ClassPolicy, PolicyOverrides, PolicyTable } from './types.ts';

/**
 * Corrections one call may take while it makes progress: the smallest default loop cap of the
 * frameworks Guardtrace wraps is the OpenAI Agents SDK's `maxTurns` of 10 per run (the AI SDK's
 * `ToolLoopAgent` stops at `stepCountIs(20)`, LangGraph at `recursionLimit` 25 super-steps,
 * about 12 model-and-tool rounds), so a model making progress is never stopped before a
 * framework would stop it: the first call and 9 corrections.
 */
export const FRAMEWORK_CORRECTIONS_CAP = 9;

/**
 * Time an outage lasts before a framework's code-level retries give up: the AI SDK's default
 * `maxRetries` 2 waits 2 s then 4 s (initial delay 2 s, factor 2); the OpenAI client's
 * `maxRetries` 2 waits less (0.5 s base). The longer of the two.
 */
export const FRAMEWORK_RETRY_WINDOW_MS = 6_000;

/**
 * The wait before an automatic retry: its backoff, raised for the last retry the caps allow so
 * that the call's waits reach the class's retry window (never past the latency budget left).
 */
export function windowedBackoff(backoffMs: number, policy: ClassPolicy, o: { lastRetry: boolean; waitedMs: number; latencyLeftMs: number }): number {
  const windowMs = policy.retryWindowMs ?? 0;
  if (!o.lastRetry || windowMs <= 0) return backoffMs;
  return Math.max(backoffMs, Math.min(windowMs - o.waitedMs, o.latencyLeftMs));
}

/** Defaults from the seed articles' "practical budgets from production systems". */
export const DEFAULT_POLICY: PolicyTable = {
  // Schema failures: one retry with structured error details.
  // While the failing pointers shrink, the progress rule replaces the one retry: up to the
  // frameworks' cap; a sideways correction is allowed once (a model rewriting the object often
  // trades one mistake for another), two in a row escalate; an identical call escalates at once.
  invalid_arguments: { retries: 1, decision: 'reject_with_feedback', onExhausted: 'escalate_human', maxCorrections: FRAMEWORK_CORRECTIONS_CAP, noProgressAfter: 2 },
  // Hallucinated tool name: rejecting once with the valid names fixes it; retrying does not.
  unknown_tool: { retries: 1, decision: 'reject_with_feedback', onExhausted: 'escalate_human' },
  // Missing resources: 0 retries, feed the error forward and replan.
  missing_resource: { retries: 0, decision: 'replan', onExhausted: 'replan' },
  // Deterministic violation: will not change without new information.
  guard_violation: { retries: 0, decision: 'replan', onExhausted: 'replan' },
  // Network/I/O transients: 3 retries with exponential backoff (the per-call cap may cut earlier);
  // the last one waits until 6 s of waiting, the AI SDK's maxRetries 2 (2 s, then 4 s).
  // When they run out the outage goes back to the model with the error, as every framework's loop
  // does after its code-level retries (its next call retries again); the session's budgets
  // (retries, added latency) escalate an outage that outlasts them (issue 25: "not before the
  // framework's code-level retries would have succeeded").
  transient: { retries: 3, decision: 'retry_backoff', onExhausted: 'replan', retryWindowMs: FRAMEWORK_RETRY_WINDOW_MS },
  // Compile/lint/test failures: 2 retries with the output in context.
  // (the progress rule applies when its guards name the failing pointers)
  execution_feedback: { retries: 2, decision: 'reject_with_feedback', onExhausted: 'escalate_human', maxCorrections: FRAMEWORK_CORRECTIONS_CAP, noProgressAfter: 2 },
  // A side effect may have happened: never retry, fail and reconcile by idempotency key.
  uncertain_side_effect: { retries: 0, decision: 'fail_reconcile', onExhausted: 'fail_reconcile' },
  // Credentials, configuration: stop.
  fatal: { retries: 0, decision: 'abort', onExhausted: 'abort' },
  budget_exhausted: { retries: 0, decision: 'escalate_human', onExhausted: 'escalate_human' },
  // An error no other class names (the collector's class for other instrumentations' failed
  // tools; the SDK's own classifier never gives it): report it back and replan, as guard_violation.
  tool_error: { retries: 0, decision: 'replan', onExhausted: 'replan' },
};

/** 200 ms base doubles to ~1.6 s by the 4th retry; 10 s ceiling keeps one wait inside the 30 s latency budget. */
export const DEFAULT_BACKOFF: BackoffConfig = { baseMs: 200, maxMs: 10_000, factor: 2 };

export function mergePolicy(base: PolicyTable, ...overrides: (PolicyOverrides | undefined)[]): PolicyTable {
  const out = { ...base };
  for (const o of overrides) {
    if (!o) continue;
    for (const [k, v] of Object.entries(o) as [FailureClass, Partial<ClassPolicy>][]) {
      out[k] = { ...out[k], ...v };
    }
  }
  return out;
}

/** Full-jitter exponential backoff; a Retry-After from the server is a floor. */
export function backoffDelay(cfg: BackoffConfig, retryIndex: number, random: number, retryAfterMs?: number): number {
  const ceiling = Math.min(cfg.maxMs, cfg.baseMs * cfg.factor ** retryIndex);
  const jittered = Math.floor(random * ceiling);
  return retryAfterMs !== undefined ? Math.max(jittered, Math.ceil(retryAfterMs)) : jittered;
}

/** What the budgets allow right now, computed by the session before each decision. */
export interface BudgetView {
  attemptsLeft: number;
  sessionRetriesLeft: number;
  rejectionsLeft: number;
  latencyLeftMs: number;
  repairTokensLeft: number;
}

export interface DecideInput {
  failureClass: FailureClass;
  policy: ClassPolicy;
  /** Failed attempts of this class so far in this call, including the current one. */
  classFailures: number;
  budgets: BudgetView;
  /** The same rejection (tool, arguments, feedback) was already sent once in this session. */
  repeatedRejection: boolean;
  /** How this attempt compares with the call's earlier ones (progress.ts); absent: not measured. */
  progress?: ProgressView | undefined;
  /** Backoff the retry would wait (only for automatic retries). */
  backoffMs: number;
  /** The attempt failed fast because the tool's circuit is open. */
  circuitOpen: boolean;
  /** The tool declares a fallback tool, proposed when the tool itself keeps failing. */
  hasFallback: boolean;
}

export interface DecideOutput {
  decision: Decision;
  escalationReason?: EscalationReason;
  /** True when the call stays open for the model's corrected call. */
  awaitingCorrection: boolean;
}

const RETRY_DECISIONS: ReadonlySet<Decision> = new Set(['retry_backoff', 'reject_with_feedback', 'corrected_retry']);

/** Escalations caused by the tool failing, where a declared fallback tool is the better next step. */
const TOOL_EXHAUSTION: ReadonlySet<EscalationReason> = new Set(['class_retries', 'attempts_per_call', 'circuit_breaker']);

/**
 * The decision function: class policy first, then every budget, checked inside the loop; an
 * open circuit names itself as the reason, and a tool that keeps failing hands over to its
 * declared fallback instead of a human. Its output is used as it is.
 */
export function decide(input: DecideInput): DecideOutput {
  const d = byPolicyAndBudgets(input);
  const reason = input.circuitOpen ? 'circuit_breaker' : d.escalationReason;
  // the tool itself keeps failing (not the model, not a session budget): use the declared fallback
  // (a class retried in code hands its exhaustion back as its policy says: a fallback is the better next step too)
  const handedOver = d.decision === 'escalate_human' || (input.policy.decision === 'retry_backoff' && d.escalationReason !== undefined);
  const fallback = handedOver && input.hasFallback && TOOL_EXHAUSTION.has(reason ?? 'class_retries');
  if (!fallback && reason === d.escalationReason) return d;
  const out: DecideOutput = { decision: fallback ? 'fallback_tool' : d.decision, awaitingCorrection: d.awaitingCorrection };
  if (reason) out.escalationReason = reason;
  return out;
}

function byPolicyAndBudgets(input: DecideInput): DecideOutput {
  const { policy, budgets } = input;
  const wantsRetry = RETRY_DECISIONS.has(policy.decision);
  const modelRetry = wantsRetry && policy.decision !== 'retry_backoff';
  // a replan also hands the rejection text to the model: the same rules apply to it
  const toModel = modelRetry || policy.decision === 'replan';
  // the model sent its own rejected call again: repetition cannot fix it
  if (toModel && input.progress?.repeated) {
    return { decision: 'escalate_human', escalationReason: 'repeated_call', awaitingCorrection: false };
  }
  if (toModel && input.repeatedRejection) {
    return { decision: 'escalate_human', escalationReason: 'repeated_rejection', awaitingCorrection: false };
  }
  if (!wantsRetry) return { decision: policy.decision, awaitingCorrection: false };
  const p = input.progress;
  const progressRule = modelRetry && p?.measured === true && (policy.maxCorrections ?? 0) > 0;
  if (progressRule) {
    if (p.corrections >= (policy.maxCorrections ?? 0)) {
      return { decision: policy.onExhausted, escalationReason: 'corrections_per_call', awaitingCorrection: false };
    }
    if (!p.progressing && p.stalled >= (policy.noProgressAfter ?? 1)) {
      return { decision: policy.onExhausted, escalationReason: 'no_progress', awaitingCorrection: false };
    }
  } else if (input.classFailures > policy.retries) {
    return { decision: policy.onExhausted, escalationReason: 'class_retries', awaitingCorrection: false };
  }
  // the per-call attempt cap ends a class retried in code the way its own retries end: by its policy
  if (budgets.attemptsLeft <= 0 && policy.decision === 'retry_backoff') {
    return { decision: policy.onExhausted, escalationReason: 'attempts_per_call', awaitingCorrection: false };
  }
  let reason: EscalationReason | undefined;
  // under the progress rule the call's own cap is maxCorrections, and the rejection budget
  // (how many times the model may be asked) does not stop a model that is getting closer:
  // such a correction neither spends it nor is stopped by it (a sideways one does both)
  const closer = progressRule && p.progressing;
  if (budgets.attemptsLeft <= 0 && !progressRule) reason = 'attempts_per_call';
  else if (budgets.sessionRetriesLeft <= 0) reason = 'session_retries';
  else if (modelRetry && budgets.rejectionsLeft <= 0 && !closer) reason = 'rejections_per_task';
  else if (input.backoffMs > budgets.latencyLeftMs || budgets.latencyLeftMs <= 0) reason = 'added_latency';
  else if (modelRetry && budgets.repairTokensLeft <= 0) reason = 'repair_tokens';
  if (reason) return { decision: 'escalate_human', escalationReason: reason, awaitingCorrection: false };
  return { decision: policy.decision, awaitingCorrection: modelRetry };
}
