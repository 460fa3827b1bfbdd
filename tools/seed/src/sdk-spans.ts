/**
 * The Guardtrace SDK's spans of one session as it runs (packages/sdk: session.ts, tool-call.ts,
 * record.ts, guard-span.ts): `chat` model turns and `execute_tool` logical calls with their
 * `guardtrace.attempt` attempts and `apply_guardrail` guard decisions, with the same names and
 * attributes. guardtrace.ts decides which calls a session makes; this module writes their spans.
 */
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_GUARDRAIL_NAME,
  ATTR_GEN_AI_GUARDRAIL_REASON,
  ATTR_GEN_AI_GUARDRAIL_VERDICT,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_DESCRIPTION,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GUARDTRACE_ATTEMPT,
  ATTR_GUARDTRACE_BACKOFF_MS,
  ATTR_GUARDTRACE_BUDGET_ATTEMPTS_LEFT,
  ATTR_GUARDTRACE_BUDGET_EXHAUSTED,
  ATTR_GUARDTRACE_BUDGET_SESSION_RETRIES_LEFT,
  ATTR_GUARDTRACE_DECISION,
  ATTR_GUARDTRACE_DEDUPLICATED,
  ATTR_GUARDTRACE_ESCALATION_REASON,
  ATTR_GUARDTRACE_FAILURE_CLASS,
  ATTR_GUARDTRACE_FEEDBACK,
  ATTR_GUARDTRACE_GUARD_CANDIDATES,
  ATTR_GUARDTRACE_GUARD_DURATION_US,
  ATTR_GUARDTRACE_GUARD_STAGE,
  ATTR_GUARDTRACE_IDEMPOTENCY_KEY,
  ATTR_GUARDTRACE_INTENT_ID,
  ATTR_GUARDTRACE_OUTCOME,
  ATTR_GUARDTRACE_RECONCILE_STATUS,
  ATTR_GUARDTRACE_REPAIR_ATTEMPT_SPAN_ID,
  ATTR_GUARDTRACE_REPAIR_FAILURE_CLASS,
  ATTR_GUARDTRACE_REPAIR_TOKENS,
  ATTR_GUARDTRACE_STEP_SEQUENCE,
  ATTR_GUARDTRACE_TOOL_DESTRUCTIVE,
  ATTR_GUARDTRACE_TOOL_EXTERNAL,
  ATTR_GUARDTRACE_TOOL_IDEMPOTENT,
  ATTR_GUARDTRACE_TOOL_READ_ONLY,
  ATTR_GUARDTRACE_VERSION,
  type BudgetReason,
  type Decision,
  type FailureClass,
  OP_APPLY_GUARDRAIL,
  OP_CHAT,
  OP_EXECUTE_TOOL,
  SPAN_ATTEMPT,
} from '@guardtrace/semconv';
import type { TraceBuilder } from './otlp.ts';
import type { Expected } from './plan.ts';
import type { Rng } from './random.ts';
import type { AgentDef, ToolDef } from './tools.ts';


/** Schema version the SDK stamps on its spans (packages/sdk's SCHEMA_VERSION). */
export const SCHEMA_VERSION = '1';

export interface GuardSpec {
  name: string;
  stage: 'schema' | 'logical' | 'execution' | 'post_execution';
  fail?: { reason: string; failureClass: FailureClass; decision: Decision; candidates?: string[] };
}

export interface AttemptSpec {
  outcome: 'success' | 'rejected' | 'failed';
  failureClass?: FailureClass;
  decision: Decision;
  feedback?: string;
  backoffMs?: number;
  errorType?: string;
  /** The budget that ran out (a `BUDGET_REASONS` name, as the SDK writes it). */
  exhausted?: BudgetReason;
  escalation?: string;
  deduplicated?: boolean;
  guards: GuardSpec[];
  args?: Record<string, unknown>;
}

/** What one session builds as it goes: its trace, clock (ms from its start) and totals. */
export class Ctx {
  t = 0;
  turn = 0;
  /** The last step number taken (guardtrace.step.sequence), as the SDK's session counts them. */
  steps = 0;
  sessionRetries = 8;
  outcome: 'success' | 'failed' | 'escalated' = 'success';
  readonly root: string;

  constructor(
    readonly r: Rng,
    readonly b: TraceBuilder,
    readonly sessionId: string,
    readonly agent: AgentDef,
    readonly expected: Expected,
  ) {
    this.root = b.id();
  }

  worse(o: 'failed' | 'escalated'): void {
    if (this.outcome === 'success' || o === 'escalated') this.outcome = o;
  }
}

/** A model turn: replays the context (4k system + 2k per step), so later turns cost more. */
export function modelTurn(c: Ctx, outputTokens: number, repair?: { attempt: string; failureClass: FailureClass }): void {
  c.turn++;
  const input = 4000 + 2000 * c.turn;
  const dur = 250 + outputTokens * c.r.int(8, 20);
  c.b.add({
    name: `${OP_CHAT} ${c.agent.model}`,
    parent: c.root,
    atMs: c.t,
    durMs: dur,
    kind: 3,
    attrs: {
      [ATTR_GEN_AI_OPERATION_NAME]: OP_CHAT,
      [ATTR_GEN_AI_CONVERSATION_ID]: c.sessionId,
      [ATTR_GEN_AI_REQUEST_MODEL]: c.agent.model,
      [ATTR_GEN_AI_RESPONSE_MODEL]: `${c.agent.model}-2026-04-14`,
      [ATTR_GEN_AI_PROVIDER_NAME]: c.agent.provider,
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: input,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: outputTokens,
      [ATTR_GUARDTRACE_REPAIR_ATTEMPT_SPAN_ID]: repair?.attempt,
      [ATTR_GUARDTRACE_REPAIR_FAILURE_CLASS]: repair?.failureClass,
      [ATTR_GUARDTRACE_REPAIR_TOKENS]: repair ? input + outputTokens : undefined,
      [ATTR_GUARDTRACE_STEP_SEQUENCE]: ++c.steps,
    },
  });
  c.t += dur + c.r.int(2, 30);
  c.expected.modelCalls++;
  c.expected.inputTokens += input;
  c.expected.outputTokens += outputTokens;
  if (repair) c.expected.repairTokens += input + outputTokens;
}

/** One logical tool call with its attempts; returns the span id of its last attempt. */
export function toolCall(c: Ctx, tool: ToolDef, name: string, attempts: AttemptSpec[], opts: { idempotencyKey?: string; reconcile?: string } = {}): string {
  const { r, b } = c;
  const toolSpan = b.id();
  const callId = `call_${r.hex(12)}`;
  const start = c.t;
  // The number is taken when the call opens, as the SDK does (its span is added once it ends).
  const sequence = ++c.steps;
  const baseArgs = tool.args(r);
  const flags = {
    [ATTR_GUARDTRACE_TOOL_READ_ONLY]: Boolean(tool.readOnly),
    [ATTR_GUARDTRACE_TOOL_IDEMPOTENT]: Boolean(tool.idempotent || tool.readOnly),
    [ATTR_GUARDTRACE_TOOL_DESTRUCTIVE]: Boolean(tool.destructive),
    [ATTR_GUARDTRACE_TOOL_EXTERNAL]: Boolean(tool.external),
  };
  let last = '';
  let attemptsLeft = 3;
  for (let n = 1; n <= attempts.length; n++) {
    const a = attempts[n - 1] as AttemptSpec;
    const attempt = b.id();
    last = attempt;
    const at = c.t;
    let g = at + 0.05;
    for (const guard of a.guards) {
      const us = guard.stage === 'schema' ? r.int(5, 60) : guard.stage === 'post_execution' ? r.int(20_000, 900_000) : r.int(30, 4000);
      b.add({
        name: `${OP_APPLY_GUARDRAIL} ${guard.name}`,
        parent: attempt,
        atMs: g,
        durMs: us / 1000,
        attrs: {
          [ATTR_GEN_AI_OPERATION_NAME]: OP_APPLY_GUARDRAIL,
          [ATTR_GEN_AI_CONVERSATION_ID]: c.sessionId,
          [ATTR_GEN_AI_GUARDRAIL_NAME]: guard.name,
          [ATTR_GEN_AI_GUARDRAIL_VERDICT]: guard.fail ? 'fail' : 'pass',
          [ATTR_GEN_AI_GUARDRAIL_REASON]: guard.fail?.reason,
          [ATTR_GUARDTRACE_GUARD_STAGE]: guard.stage,
          [ATTR_GUARDTRACE_GUARD_DURATION_US]: us,
          [ATTR_GUARDTRACE_FAILURE_CLASS]: guard.fail?.failureClass,
          [ATTR_ERROR_TYPE]: guard.fail?.failureClass,
          [ATTR_GUARDTRACE_DECISION]: guard.fail?.decision,
          [ATTR_GUARDTRACE_GUARD_CANDIDATES]: guard.fail?.candidates,
        },
        error: guard.fail?.failureClass,
      });
      g += us / 1000 + 0.01;
    }
    // Execution time: only when the call got past its guards (a rejection never runs the tool).
    const ran = a.outcome !== 'rejected';
    const dur = g - at + (ran ? r.int(5, tool.external ? 900 : 120) : 0.1);
    if (a.outcome !== 'success') attemptsLeft = Math.max(0, attemptsLeft - 1);
    if (a.decision === 'retry_backoff' || a.decision === 'reject_with_feedback') c.sessionRetries = Math.max(0, c.sessionRetries - 1);
    const ok = a.outcome === 'success';
    b.add({
      id: attempt,
      name: SPAN_ATTEMPT,
      parent: toolSpan,
      atMs: at,
      durMs: dur,
      attrs: {
        [ATTR_GEN_AI_OPERATION_NAME]: SPAN_ATTEMPT,
        [ATTR_GEN_AI_CONVERSATION_ID]: c.sessionId,
        [ATTR_GEN_AI_TOOL_NAME]: name,
        [ATTR_GEN_AI_TOOL_CALL_ID]: callId,
        [ATTR_GUARDTRACE_ATTEMPT]: n,
        [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: JSON.stringify(a.args ?? baseArgs),
        [ATTR_GUARDTRACE_OUTCOME]: a.outcome,
        [ATTR_GUARDTRACE_FAILURE_CLASS]: a.failureClass,
        [ATTR_GUARDTRACE_DECISION]: a.decision,
        [ATTR_GUARDTRACE_FEEDBACK]: a.feedback,
        [ATTR_GUARDTRACE_BACKOFF_MS]: a.backoffMs,
        [ATTR_ERROR_TYPE]: ok ? undefined : (a.errorType ?? a.failureClass),
        [ATTR_GUARDTRACE_BUDGET_ATTEMPTS_LEFT]: attemptsLeft,
        [ATTR_GUARDTRACE_BUDGET_SESSION_RETRIES_LEFT]: c.sessionRetries,
        [ATTR_GUARDTRACE_BUDGET_EXHAUSTED]: a.exhausted,
        [ATTR_GUARDTRACE_ESCALATION_REASON]: a.escalation,
        [ATTR_GEN_AI_TOOL_CALL_RESULT]: ok ? JSON.stringify(tool.result(r)) : undefined,
        [ATTR_GUARDTRACE_IDEMPOTENCY_KEY]: ok ? opts.idempotencyKey : undefined,
        [ATTR_GUARDTRACE_DEDUPLICATED]: a.deduplicated || undefined,
      },
      error: ok ? undefined : (a.errorType ?? a.failureClass),
    });
    c.expected.attempts++;
    if (!ok) c.expected.failedAttempts++;
    if (a.decision === 'escalate_human') c.expected.escalated = true;
    c.t = at + dur + (a.backoffMs ?? 0) + 0.2;
  }
  const final = attempts[attempts.length - 1] as AttemptSpec;
  const ok = final.outcome === 'success';
  b.add({
    id: toolSpan,
    name: `${OP_EXECUTE_TOOL} ${name}`,
    parent: c.root,
    atMs: start,
    durMs: c.t - start,
    attrs: {
      [ATTR_GEN_AI_OPERATION_NAME]: OP_EXECUTE_TOOL,
      [ATTR_GEN_AI_CONVERSATION_ID]: c.sessionId,
      [ATTR_GEN_AI_TOOL_NAME]: name,
      [ATTR_GEN_AI_TOOL_CALL_ID]: callId,
      [ATTR_GEN_AI_TOOL_TYPE]: 'function',
      [ATTR_GEN_AI_TOOL_DESCRIPTION]: name === tool.name ? tool.description : undefined,
      [ATTR_GUARDTRACE_VERSION]: SCHEMA_VERSION,
      [ATTR_GUARDTRACE_INTENT_ID]: opts.idempotencyKey ? `intent_${opts.idempotencyKey.slice(4, 12)}` : undefined,
      ...flags,
      [ATTR_GUARDTRACE_ATTEMPT]: attempts.length,
      [ATTR_GUARDTRACE_OUTCOME]: final.outcome,
      [ATTR_GUARDTRACE_DECISION]: final.decision,
      [ATTR_GUARDTRACE_FAILURE_CLASS]: ok ? undefined : final.failureClass,
      [ATTR_ERROR_TYPE]: ok ? undefined : final.failureClass,
      [ATTR_GUARDTRACE_IDEMPOTENCY_KEY]: opts.idempotencyKey,
      [ATTR_GUARDTRACE_DEDUPLICATED]: final.deduplicated || undefined,
      [ATTR_GUARDTRACE_ESCALATION_REASON]: final.escalation,
      [ATTR_GUARDTRACE_RECONCILE_STATUS]: opts.reconcile,
      [ATTR_GUARDTRACE_STEP_SEQUENCE]: sequence,
    },
    error: ok ? undefined : final.failureClass,
  });
  c.expected.toolCalls++;
  if (final.decision === 'escalate_human') c.expected.escalated = true;
  c.t += c.r.int(1, 20);
  return last;
}

export const schema: GuardSpec = { name: 'schema', stage: 'schema' };
export const logical = (tool: ToolDef): GuardSpec =>
  tool.external ? { name: 'rate_limit', stage: 'logical' } : { name: tool.readOnly ? 'file_exists' : 'path_injection', stage: 'logical' };
export const clean = (tool: ToolDef): AttemptSpec => ({ outcome: 'success', decision: 'proceed', guards: post(tool, [schema, logical(tool)]) });
const post = (tool: ToolDef, g: GuardSpec[]): GuardSpec[] =>
  tool.name === 'write_file' || tool.name === 'create_file' ? [...g, { name: 'typecheck', stage: 'post_execution' }] : g;

/** One tool call of `scenario` (with the model turns around it that the scenario needs). */