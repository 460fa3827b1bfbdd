import type { Span } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_GUARDRAIL_COMPONENT_NAME,
  ATTR_GEN_AI_GUARDRAIL_NAME,
  ATTR_GEN_AI_GUARDRAIL_POLICY_ID,
  ATTR_GEN_AI_GUARDRAIL_REASON,
  ATTR_GEN_AI_GUARDRAIL_RESULT_REASON,
  ATTR_GEN_AI_GUARDRAIL_RESULT_TYPE,
  ATTR_GEN_AI_GUARDRAIL_RESULT_VALUE,
  ATTR_GEN_AI_GUARDRAIL_SOURCE,
  ATTR_GEN_AI_GUARDRAIL_VERDICT,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GUARDTRACE_DECISION,
  ATTR_GUARDTRACE_FAILURE_CLASS,
  ATTR_GUARDTRACE_GUARD_CANDIDATES,
  ATTR_GUARDTRACE_GUARD_DURATION_US,
  ATTR_GUARDTRACE_GUARD_POINTERS,
  ATTR_GUARDTRACE_GUARD_STAGE,
  EVENT_GEN_AI_GUARDRAIL_RESULT,
  type FailureClass,
  GUARDRAIL_RESULT_TYPE_VERDICT,
  type GuardStage,
  OP_APPLY_GUARDRAIL,
} from '@guardtrace/semconv';
import { classifyError } from './classify.ts';
import { MAX_POINTERS } from './pointer.ts';
import type { Runtime } from './runtime.ts';
import { sanitizeFeedback } from './sanitize.ts';
import type { GuardOutcome, GuardRecord } from './types.ts';

/** A guard span whose decision is set once the policy has decided, then ended at the guard's own end time. */
export interface PendingGuardSpan {
  span: Span;
  endTime: number;
}

/** Where a guard span goes: the runtime, the attempt span it nests under, the session id it carries. */
export interface GuardSpanScope {
  rt: Runtime;
  attemptSpan: Span;
  sessionId: string;
}

export type GuardRun = { outcome: GuardOutcome; record: GuardRecord; pending?: PendingGuardSpan; failureClass?: FailureClass };

const nowMs = (): number => performance.timeOrigin + performance.now();

/**
 * Runs one guard (or a built-in check) inside its own `apply_guardrail` span. Synchronous
 * guards (the schema guard, most predicates) complete synchronously: no promise, no tick.
 */
export function runGuardSpan(
  inp: GuardSpanScope,
  name: string,
  stage: GuardStage,
  fn: () => GuardOutcome | Promise<GuardOutcome>,
  defaultClass: FailureClass,
): GuardRun | Promise<GuardRun> {
  const { rt } = inp;
  const span = rt.telemetry.start(`${OP_APPLY_GUARDRAIL} ${name}`, {
    [ATTR_GEN_AI_OPERATION_NAME]: OP_APPLY_GUARDRAIL,
    [ATTR_GEN_AI_CONVERSATION_ID]: inp.sessionId,
    [ATTR_GEN_AI_GUARDRAIL_NAME]: name,
    [ATTR_GUARDTRACE_GUARD_STAGE]: stage,
  }, inp.attemptSpan);
  const t0 = performance.now();
  let o: GuardOutcome | Promise<GuardOutcome>;
  try {
    o = fn();
  } catch (err) {
    o = guardThrew(name, err);
  }
  if (o instanceof Promise) {
    return o.catch((err: unknown) => guardThrew(name, err)).then((outcome) => finishGuard(rt, span, name, stage, t0, outcome, defaultClass));
  }
  return finishGuard(rt, span, name, stage, t0, o, defaultClass);
}

function guardThrew(name: string, err: unknown): GuardOutcome {
  return { pass: false, reason: `Guard ${name} threw: ${classifyError(err, {}).message}`, failureClass: 'guard_violation' };
}

/**
 * The guard's result in the merged GenAI guardrail convention, beside Guardtrace's own keys: one
 * `gen_ai.guardrail.result` event per guard span, short values only (the reason on a failure).
 */
function resultEvent(rt: Runtime, span: Span, name: string, stage: GuardStage, verdict: 'pass' | 'fail', reason?: string): void {
  if (!span.isRecording()) return;
  rt.telemetry.event(span, EVENT_GEN_AI_GUARDRAIL_RESULT, {
    [ATTR_GEN_AI_GUARDRAIL_COMPONENT_NAME]: name,
    [ATTR_GEN_AI_GUARDRAIL_POLICY_ID]: stage,
    [ATTR_GEN_AI_GUARDRAIL_SOURCE]: stage === 'post_execution' ? 'tool_output' : 'tool_input',
    [ATTR_GEN_AI_GUARDRAIL_RESULT_TYPE]: GUARDRAIL_RESULT_TYPE_VERDICT,
    [ATTR_GEN_AI_GUARDRAIL_RESULT_VALUE]: verdict,
    [ATTR_GEN_AI_GUARDRAIL_RESULT_REASON]: reason,
  });
}

function finishGuard(rt: Runtime, span: Span, name: string, stage: GuardStage, t0: number, outcome: GuardOutcome, defaultClass: FailureClass): GuardRun {
  const durationUs = Math.max(0, Math.round((performance.now() - t0) * 1000));
  const record: GuardRecord = { name, stage, verdict: outcome.pass ? 'pass' : 'fail', durationUs };
  if (outcome.pass) {
    rt.telemetry.set(span, { [ATTR_GEN_AI_GUARDRAIL_VERDICT]: 'pass', [ATTR_GUARDTRACE_GUARD_DURATION_US]: durationUs });
    resultEvent(rt, span, name, stage, 'pass');
    rt.telemetry.end(span);
    return { outcome, record };
  }
  const failureClass = outcome.failureClass ?? defaultClass;
  record.reason = sanitizeFeedback(outcome.reason, rt.sanitize);
  if (outcome.candidates) record.candidates = outcome.candidates;
  const pointers = outcome.pointers?.filter((x) => typeof x === 'string').slice(0, MAX_POINTERS);
  if (pointers && pointers.length > 0) record.pointers = pointers;
  rt.telemetry.set(span, {
    [ATTR_GEN_AI_GUARDRAIL_VERDICT]: 'fail',
    [ATTR_GUARDTRACE_GUARD_DURATION_US]: durationUs,
    [ATTR_GEN_AI_GUARDRAIL_REASON]: record.reason,
    [ATTR_GUARDTRACE_FAILURE_CLASS]: failureClass,
    [ATTR_ERROR_TYPE]: failureClass,
    [ATTR_GUARDTRACE_GUARD_CANDIDATES]: outcome.candidates,
    [ATTR_GUARDTRACE_GUARD_POINTERS]: record.pointers,
  });
  resultEvent(rt, span, name, stage, 'fail', record.reason);
  return { outcome, record, pending: { span, endTime: nowMs() }, failureClass };
}

/** Sets the decision on a failed guard's span and ends it. */
export function closeGuardSpan(rt: Runtime, pending: PendingGuardSpan | undefined, decision: string): void {
  if (!pending) return;
  rt.telemetry.set(pending.span, { [ATTR_GUARDTRACE_DECISION]: decision });
  rt.telemetry.end(pending.span, { endTime: pending.endTime, error: 'guard failed' });
}
