/**
 * What a span means, whichever convention it follows: the one shape every convention module
 * (guardtrace.ts, genai.ts, vercel-ai.ts, openinference.ts, openllmetry.ts, otel.ts) fills in
 * and the one shape mapping.ts builds rows from. A module fills only fields still null, so
 * the order modules run in (conventions/index.ts) is the order of precedence.
 */
import type { GuardrailResult } from './guardrail.ts';

/** The derived row a span stands for, or null (kept raw only). */
export type SpanRole = 'tool_call' | 'attempt' | 'guard_check' | 'model_call' | null;

/**
 * An attempt a span implies without a `guardtrace.attempt` span of its own: a tool call the
 * instrumented library refused before running it (reported by a later span: the Vercel AI SDK),
 * or the one attempt of another instrumentation's tool call span (every foreign tool call ran
 * once: attempt 1, its outcome and failure class those of the call).
 */
export interface ImpliedAttempt {
  /** A stable 16-hex id for the row: derived from the span that implies it and the call id. */
  spanId: string;
  /** The tool call span it is an attempt of; null for a refused call (it has none). */
  toolCallSpanId: string | null;
  toolName: string;
  callId: string | null;
  arguments: string | null;
  /** `rejected` (refused before running), `failed` or `success`. */
  outcome: string;
  failureClass: string | null;
  reason: string | null;
  errorType: string | null;
}

export interface Meaning {
  role: SpanRole;
  // Tool calls and attempts.
  toolName: string | null;
  callId: string | null;
  arguments: string | null;
  outcome: string | null;
  failureClass: string | null;
  /** Why it failed, as text: the span's error status message or its exception. */
  failureReason: string | null;
  errorType: string | null;
  decision: string | null;
  attempt: number | null;
  readOnly: boolean | null;
  idempotent: boolean | null;
  destructive: boolean | null;
  external: boolean | null;
  idempotencyKey: string | null;
  feedback: string | null;
  backoffMs: number | null;
  attemptsLeft: number | null;
  sessionRetriesLeft: number | null;
  budgetExhausted: string | null;
  /** An attempt repaired in code: what was corrected, the pointers into the corrected call's arguments, the tool used instead. */
  autoRepairKind: string | null;
  autoRepairPointers: string[] | null;
  autoRepairTool: string | null;
  // Guard checks.
  guardName: string | null;
  stage: string | null;
  /** `pass` or `fail`. */
  verdict: string | null;
  reason: string | null;
  guardDurationUs: number | null;
  /** JSON pointers (RFC 6901) of the argument fields a failed guard objects to. */
  failedPointers: string[] | null;
  /** Provider-native results of a guardrail (merged GenAI guardrail convention), as reported. */
  guardrailResults: GuardrailResult[] | null;
  // Model calls.
  model: string | null;
  provider: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** Input tokens served from the provider's prompt cache (part of inputTokens). */
  cachedInputTokens: number | null;
  /** Input tokens written to the provider's prompt cache (part of inputTokens; not stored). */
  cacheWriteInputTokens: number | null;
  repairAttemptSpanId: string | null;
  repairFailureClass: string | null;
  /** Attempts this span implies (see ImpliedAttempt): refused calls it reports, or its own one attempt. */
  implied: ImpliedAttempt[] | null;
  /** A tool call's or model turn's place in its session (guardtrace.step.sequence), 1 and up. */
  stepSequence: number | null;
}

/** A meaning with every field empty (one literal: every meaning has the same shape). */
export function newMeaning(): Meaning {
  return {
    role: null,
    toolName: null,
    callId: null,
    arguments: null,
    outcome: null,
    failureClass: null,
    failureReason: null,
    errorType: null,
    decision: null,
    attempt: null,
    readOnly: null,
    idempotent: null,
    destructive: null,
    external: null,
    idempotencyKey: null,
    feedback: null,
    backoffMs: null,
    attemptsLeft: null,
    sessionRetriesLeft: null,
    budgetExhausted: null,
    autoRepairKind: null,
    autoRepairPointers: null,
    autoRepairTool: null,
    guardName: null,
    stage: null,
    verdict: null,
    reason: null,
    guardDurationUs: null,
    failedPointers: null,
    guardrailResults: null,
    model: null,
    provider: null,
    inputTokens: null,
    outputTokens: null,
    cachedInputTokens: null,
    cacheWriteInputTokens: null,
    repairAttemptSpanId: null,
    repairFailureClass: null,
    implied: null,
    stepSequence: null,
  };
}

/**
 * Empty `m` again for a span of `role`: conventions/index.ts fills one Meaning per span and
 * reuses it (a fresh one cost ~7% of the mapping's CPU time, in allocation and young-generation GC).
 */
export function resetMeaning(m: Meaning, role: SpanRole): Meaning {
  m.role = role;
  m.toolName = null;
  m.callId = null;
  m.arguments = null;
  m.outcome = null;
  m.failureClass = null;
  m.failureReason = null;
  m.errorType = null;
  m.decision = null;
  m.attempt = null;
  m.readOnly = null;
  m.idempotent = null;
  m.destructive = null;
  m.external = null;
  m.idempotencyKey = null;
  m.feedback = null;
  m.backoffMs = null;
  m.attemptsLeft = null;
  m.sessionRetriesLeft = null;
  m.budgetExhausted = null;
  m.autoRepairKind = null;
  m.autoRepairPointers = null;
  m.autoRepairTool = null;
  m.guardName = null;
  m.stage = null;
  m.verdict = null;
  m.reason = null;
  m.guardDurationUs = null;
  m.failedPointers = null;
  m.guardrailResults = null;
  m.model = null;
  m.provider = null;
  m.inputTokens = null;
  m.outputTokens = null;
  m.cachedInputTokens = null;
  m.cacheWriteInputTokens = null;
  m.repairAttemptSpanId = null;
  m.repairFailureClass = null;
  m.implied = null;
  m.stepSequence = null;
  return m;
}
