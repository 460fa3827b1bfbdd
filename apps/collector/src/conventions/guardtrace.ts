/**
 * Guardtrace's own spans (packages/sdk): `guardtrace.attempt` spans, and the `guardtrace.*`
 * attributes it adds to GenAI's `execute_tool`, `apply_guardrail` and `chat` spans.
 */
import {
  ATTR_GUARDTRACE_ATTEMPT,
  ATTR_GUARDTRACE_AUTO_REPAIR_KIND,
  ATTR_GUARDTRACE_AUTO_REPAIR_POINTERS,
  ATTR_GUARDTRACE_AUTO_REPAIR_TOOL,
  ATTR_GUARDTRACE_BACKOFF_MS,
  ATTR_GUARDTRACE_BUDGET_ATTEMPTS_LEFT,
  ATTR_GUARDTRACE_BUDGET_EXHAUSTED,
  ATTR_GUARDTRACE_BUDGET_SESSION_RETRIES_LEFT,
  ATTR_GUARDTRACE_DECISION,
  ATTR_GUARDTRACE_ESCALATION_REASON,
  ATTR_GUARDTRACE_FAILURE_CLASS,
  ATTR_GUARDTRACE_FEEDBACK,
  ATTR_GUARDTRACE_GUARD_DURATION_US,
  ATTR_GUARDTRACE_GUARD_POINTERS,
  ATTR_GUARDTRACE_GUARD_STAGE,
  ATTR_GUARDTRACE_IDEMPOTENCY_KEY,
  ATTR_GUARDTRACE_OUTCOME,
  ATTR_GUARDTRACE_REPAIR_ATTEMPT_SPAN_ID,
  ATTR_GUARDTRACE_REPAIR_FAILURE_CLASS,
  ATTR_GUARDTRACE_STEP_SEQUENCE,
  ATTR_GUARDTRACE_TOOL_DESTRUCTIVE,
  ATTR_GUARDTRACE_TOOL_EXTERNAL,
  ATTR_GUARDTRACE_TOOL_IDEMPOTENT,
  ATTR_GUARDTRACE_TOOL_READ_ONLY,
  ATTR_GUARDTRACE_USER_ID,
  isBudgetReason,
  SPAN_ATTEMPT,
} from '@guardtrace/semconv';
import type { NormSpan } from '../span.ts';
import { pointers } from './guardrail.ts';
import type { Meaning, SpanRole } from './meaning.ts';
import { bool, int, num, text } from './read.ts';

const budgetReason = (reason: string | null): string | null => (isBudgetReason(reason) ? reason : null);

/** The user of a session, before any other convention's. */
export const USER_ID_KEY = ATTR_GUARDTRACE_USER_ID;

/** An attempt, by its `gen_ai.operation.name`. */
export function operationRole(op: string): SpanRole | undefined {
  return op === SPAN_ATTEMPT ? 'attempt' : undefined;
}

/** An attempt, by its span name (spans without an operation name). */
export function nameRole(name: string): SpanRole | undefined {
  return name === SPAN_ATTEMPT ? 'attempt' : undefined;
}

export function read(span: NormSpan, m: Meaning): void {
  const a = span.attributes;
  switch (m.role) {
    case 'tool_call':
      m.outcome = text(a, ATTR_GUARDTRACE_OUTCOME);
      m.failureClass = text(a, ATTR_GUARDTRACE_FAILURE_CLASS);
      m.decision = text(a, ATTR_GUARDTRACE_DECISION);
      m.attempt = int(a, ATTR_GUARDTRACE_ATTEMPT);
      m.readOnly = bool(a, ATTR_GUARDTRACE_TOOL_READ_ONLY);
      m.idempotent = bool(a, ATTR_GUARDTRACE_TOOL_IDEMPOTENT);
      m.destructive = bool(a, ATTR_GUARDTRACE_TOOL_DESTRUCTIVE);
      m.external = bool(a, ATTR_GUARDTRACE_TOOL_EXTERNAL);
      m.idempotencyKey = text(a, ATTR_GUARDTRACE_IDEMPOTENCY_KEY);
      m.stepSequence = sequence(a);
      return;
    case 'attempt':
      m.attempt = int(a, ATTR_GUARDTRACE_ATTEMPT);
      m.outcome = text(a, ATTR_GUARDTRACE_OUTCOME);
      m.failureClass = text(a, ATTR_GUARDTRACE_FAILURE_CLASS);
      m.decision = text(a, ATTR_GUARDTRACE_DECISION);
      m.feedback = text(a, ATTR_GUARDTRACE_FEEDBACK);
      m.backoffMs = num(a, ATTR_GUARDTRACE_BACKOFF_MS);
      m.attemptsLeft = int(a, ATTR_GUARDTRACE_BUDGET_ATTEMPTS_LEFT);
      m.sessionRetriesLeft = int(a, ATTR_GUARDTRACE_BUDGET_SESSION_RETRIES_LEFT);
      // The budget that ran out: named, else the escalation reason when it is one (SDK spans of
      // 2026-12-06 named none on a call handed back to the model after its attempts ran out).
      m.budgetExhausted = text(a, ATTR_GUARDTRACE_BUDGET_EXHAUSTED) ?? budgetReason(text(a, ATTR_GUARDTRACE_ESCALATION_REASON));
      m.autoRepairKind = text(a, ATTR_GUARDTRACE_AUTO_REPAIR_KIND);
      m.autoRepairPointers = pointers(a[ATTR_GUARDTRACE_AUTO_REPAIR_POINTERS]);
      m.autoRepairTool = text(a, ATTR_GUARDTRACE_AUTO_REPAIR_TOOL);
      return;
    case 'guard_check':
      m.stage = text(a, ATTR_GUARDTRACE_GUARD_STAGE);
      m.decision = text(a, ATTR_GUARDTRACE_DECISION);
      m.failureClass = text(a, ATTR_GUARDTRACE_FAILURE_CLASS);
      m.guardDurationUs = num(a, ATTR_GUARDTRACE_GUARD_DURATION_US);
      m.failedPointers = pointers(a[ATTR_GUARDTRACE_GUARD_POINTERS]);
      return;
    case 'model_call':
      m.repairAttemptSpanId = validSpanId(text(a, ATTR_GUARDTRACE_REPAIR_ATTEMPT_SPAN_ID));
      m.repairFailureClass = text(a, ATTR_GUARDTRACE_REPAIR_FAILURE_CLASS);
      m.stepSequence = sequence(a);
      return;
  }
}

/** The SDK counts steps from 1: anything else (0, negative, a fraction, past int4) is not one of its numbers. */
function sequence(a: NormSpan['attributes']): number | null {
  const n = int(a, ATTR_GUARDTRACE_STEP_SEQUENCE);
  return n !== null && n > 0 ? n : null;
}

/** The column is varchar(16): only a real span id fits. */
function validSpanId(v: string | null): string | null {
  return v !== null && /^[0-9a-fA-F]{16}$/.test(v) ? v.toLowerCase() : null;
}
