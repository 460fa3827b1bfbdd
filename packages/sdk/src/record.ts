import type { Attributes, Span } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_GUARDRAIL_NAME,
  ATTR_GEN_AI_GUARDRAIL_REASON,
  ATTR_GEN_AI_GUARDRAIL_VERDICT,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GUARDTRACE_ATTEMPT,
  ATTR_GUARDTRACE_BACKOFF_MS,
  ATTR_GUARDTRACE_DECISION,
  ATTR_GUARDTRACE_FAILURE_CLASS,
  ATTR_GUARDTRACE_FEEDBACK,
  ATTR_GUARDTRACE_GUARD_CANDIDATES,
  ATTR_GUARDTRACE_GUARD_DURATION_US,
  ATTR_GUARDTRACE_GUARD_POINTERS,
  ATTR_GUARDTRACE_GUARD_STAGE,
  ATTR_GUARDTRACE_OUTCOME,
  type Decision,
  type FailureClass,
  type GuardStage,
  OP_APPLY_GUARDRAIL,
  type Outcome,
  SPAN_ATTEMPT,
} from '@guardtrace/semconv';
import { canonicalJson } from './idempotency.ts';
import { MAX_POINTERS } from './pointer.ts';
import { sanitizeFeedback } from './sanitize.ts';
import type { Runtime } from './runtime.ts';
import { withExtra } from './span-options.ts';
import type { AttemptRecord, GuardRecord } from './types.ts';

/** A guard result your own loop computed. */
export interface RecordedGuard {
  name: string;
  stage?: GuardStage;
  verdict: 'pass' | 'fail';
  reason?: string;
  durationUs?: number;
  failureClass?: FailureClass;
  decision?: Decision;
  candidates?: string[];
  /** JSON pointers (RFC 6901) into the attempt's arguments of the fields at fault, e.g. `/items/3/qty`. */
  pointers?: string[];
}

/** An attempt your own loop made. Times are epoch ms; omitted, the span is "now". */
export interface RecordedAttempt {
  args: unknown;
  outcome: Outcome;
  failureClass?: FailureClass;
  decision?: Decision;
  feedback?: string;
  backoffMs?: number;
  errorType?: string;
  callId?: string;
  guards?: RecordedGuard[];
  startTime?: number;
  endTime?: number;
}

/** The call a recorded attempt belongs to. */
export interface RecordedCallRef {
  sessionId: string;
  toolName: string;
  callId: string;
  /** The call's `execute_tool` span. */
  span: Span;
  /** Extra attributes of the attempt span (the call's `span.attemptAttributes`). */
  attemptAttributes?: Attributes | undefined;
}

/** Emits an attempt span with its guard spans from recorded data (instrument-only API). */
export function recordAttemptSpan(rt: Runtime, call: RecordedCallRef, n: number, a: RecordedAttempt, withArgs = true): AttemptRecord {
  const t = rt.telemetry;
  const args = sanitizeFeedback(typeof a.args === 'string' ? a.args : canonicalJson(a.args), rt.sanitize);
  const callId = a.callId ?? call.callId;
  const decision: Decision = a.decision ?? (a.outcome === 'success' ? 'proceed' : 'reject_with_feedback');
  const feedback = a.feedback === undefined ? undefined : sanitizeFeedback(a.feedback, rt.sanitize);
  const span = t.start(SPAN_ATTEMPT, withExtra(call.attemptAttributes, {
    [ATTR_GEN_AI_OPERATION_NAME]: SPAN_ATTEMPT,
    [ATTR_GEN_AI_CONVERSATION_ID]: call.sessionId,
    [ATTR_GEN_AI_TOOL_NAME]: call.toolName,
    [ATTR_GEN_AI_TOOL_CALL_ID]: callId,
    [ATTR_GUARDTRACE_ATTEMPT]: n,
    [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: withArgs ? args : undefined,
    [ATTR_GUARDTRACE_OUTCOME]: a.outcome,
    [ATTR_GUARDTRACE_FAILURE_CLASS]: a.failureClass,
    [ATTR_GUARDTRACE_DECISION]: decision,
    [ATTR_GUARDTRACE_FEEDBACK]: feedback,
    [ATTR_GUARDTRACE_BACKOFF_MS]: a.backoffMs,
    [ATTR_ERROR_TYPE]: a.outcome === 'success' ? undefined : (a.errorType ?? a.failureClass),
  }), call.span, a.startTime);
  const guards: GuardRecord[] = [];
  for (const g of a.guards ?? []) {
    const stage = g.stage ?? 'logical';
    const reason = g.reason === undefined ? undefined : sanitizeFeedback(g.reason, rt.sanitize);
    const gs = t.start(`${OP_APPLY_GUARDRAIL} ${g.name}`, {
      [ATTR_GEN_AI_OPERATION_NAME]: OP_APPLY_GUARDRAIL,
      [ATTR_GEN_AI_CONVERSATION_ID]: call.sessionId,
      [ATTR_GEN_AI_GUARDRAIL_NAME]: g.name,
      [ATTR_GEN_AI_GUARDRAIL_VERDICT]: g.verdict,
      [ATTR_GEN_AI_GUARDRAIL_REASON]: reason,
      [ATTR_GUARDTRACE_GUARD_STAGE]: stage,
      [ATTR_GUARDTRACE_GUARD_DURATION_US]: g.durationUs ?? 0,
      [ATTR_GUARDTRACE_FAILURE_CLASS]: g.verdict === 'fail' ? (g.failureClass ?? a.failureClass) : undefined,
      [ATTR_GUARDTRACE_DECISION]: g.verdict === 'fail' ? (g.decision ?? decision) : undefined,
      [ATTR_GUARDTRACE_GUARD_CANDIDATES]: g.candidates,
      [ATTR_GUARDTRACE_GUARD_POINTERS]: g.verdict === 'fail' && g.pointers?.length ? g.pointers.slice(0, MAX_POINTERS) : undefined,
    }, span, a.startTime);
    t.end(gs, g.verdict === 'fail' ? { error: 'guard failed' } : {});
    const rec: GuardRecord = { name: g.name, stage, verdict: g.verdict, durationUs: g.durationUs ?? 0 };
    if (reason !== undefined) rec.reason = reason;
    if (g.candidates) rec.candidates = g.candidates;
    if (g.verdict === 'fail' && g.pointers?.length) rec.pointers = g.pointers.slice(0, MAX_POINTERS);
    guards.push(rec);
  }
  const endOpts: { error?: string; endTime?: number } = {};
  if (a.endTime !== undefined) endOpts.endTime = a.endTime;
  if (a.outcome !== 'success') endOpts.error = a.failureClass ?? a.outcome;
  t.end(span, endOpts);
  const rec: AttemptRecord = {
    attempt: n, tool: call.toolName, callId, args, outcome: a.outcome, decision, guards,
    durationMs: a.startTime !== undefined && a.endTime !== undefined ? a.endTime - a.startTime : 0,
    spanId: t.spanId(span),
  };
  if (a.failureClass) rec.failureClass = a.failureClass;
  if (feedback !== undefined) rec.feedback = feedback;
  if (a.backoffMs !== undefined) rec.backoffMs = a.backoffMs;
  if (a.errorType !== undefined) rec.errorType = a.errorType;
  return rec;
}
