/**
 * What a tool call writes on its spans: the `execute_tool` span's attributes when it opens, when
 * the model's correction names another tool and when it ends, and its attempt spans' attributes
 * when they open and when one succeeds. The call's lifecycle is tool-call.ts; the failed
 * attempt's attributes are the policy's (failure.ts).
 */
import type { Attributes } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_DESCRIPTION,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GUARDTRACE_ATTEMPT,
  ATTR_GUARDTRACE_DECISION,
  ATTR_GUARDTRACE_DEDUPLICATED,
  ATTR_GUARDTRACE_ESCALATION_REASON,
  ATTR_GUARDTRACE_FAILURE_CLASS,
  ATTR_GUARDTRACE_FALLBACK_TOOL,
  ATTR_GUARDTRACE_IDEMPOTENCY_KEY,
  ATTR_GUARDTRACE_INTENT_ID,
  ATTR_GUARDTRACE_OUTCOME,
  ATTR_GUARDTRACE_STEP_SEQUENCE,
  ATTR_GUARDTRACE_TOOL_DEFINITION,
  ATTR_GUARDTRACE_TOOL_DEFINITION_HASH,
  ATTR_GUARDTRACE_TOOL_DESTRUCTIVE,
  ATTR_GUARDTRACE_TOOL_EXTERNAL,
  ATTR_GUARDTRACE_TOOL_IDEMPOTENT,
  ATTR_GUARDTRACE_TOOL_READ_ONLY,
  OP_EXECUTE_TOOL,
  type Outcome,
  SPAN_ATTEMPT,
} from '@guardtrace/semconv';
import type { AttemptRun } from './attempt-state.ts';
import { definitionOf } from './definition.ts';
import type { RegisteredTool } from './runtime.ts';
import type { Attrs } from './telemetry.ts';
import type { AttemptRecord, CallResult, ToolFlags } from './types.ts';

/** When a call's arguments and results go on its attempt spans: on every attempt, only once an attempt failed, or never. */
export type Content = 'always' | 'failures' | 'never';

/** The definition fingerprint of a registered tool: its hash on every call, its summary on the session's first call of it (`sent` remembers). */
export function definitionAttrs(sent: Set<string>, tool: RegisteredTool | undefined): Attrs {
  if (!tool) return {};
  const d = definitionOf(tool);
  if (sent.has(tool.name)) return { [ATTR_GUARDTRACE_TOOL_DEFINITION_HASH]: d.hash };
  sent.add(tool.name);
  return { [ATTR_GUARDTRACE_TOOL_DEFINITION_HASH]: d.hash, [ATTR_GUARDTRACE_TOOL_DEFINITION]: d.json };
}

/** The `execute_tool` span's attributes when the call opens. */
export function openedCallAttrs(c: {
  sessionId: string;
  toolName: string;
  callId: string;
  intentId: string | undefined;
  description: string | undefined;
  step: number;
  flags: ToolFlags;
  definition: Attrs;
}): Attrs {
  return {
    [ATTR_GEN_AI_OPERATION_NAME]: OP_EXECUTE_TOOL,
    [ATTR_GEN_AI_CONVERSATION_ID]: c.sessionId,
    [ATTR_GEN_AI_TOOL_NAME]: c.toolName,
    [ATTR_GEN_AI_TOOL_CALL_ID]: c.callId,
    [ATTR_GEN_AI_TOOL_TYPE]: 'function',
    [ATTR_GEN_AI_TOOL_DESCRIPTION]: c.description,
    // guardtrace.version is constant per session: on its invoke_agent span only
    [ATTR_GUARDTRACE_INTENT_ID]: c.intentId,
    [ATTR_GUARDTRACE_STEP_SEQUENCE]: c.step,
    // the flags spelled out, not spread from flagAttrs(): this runs on every call
    [ATTR_GUARDTRACE_TOOL_READ_ONLY]: Boolean(c.flags.readOnly),
    [ATTR_GUARDTRACE_TOOL_IDEMPOTENT]: Boolean(c.flags.idempotent || c.flags.readOnly),
    [ATTR_GUARDTRACE_TOOL_DESTRUCTIVE]: Boolean(c.flags.destructive),
    [ATTR_GUARDTRACE_TOOL_EXTERNAL]: Boolean(c.flags.external),
    ...c.definition,
  };
}

/** The `execute_tool` span's attributes once the model's correction of an unknown tool name named `tool`. */
export function switchedCallAttrs(name: string, tool: RegisteredTool | undefined, definition: Attrs): Attrs {
  return { [ATTR_GEN_AI_TOOL_NAME]: name, [ATTR_GEN_AI_TOOL_DESCRIPTION]: tool?.description, ...flagAttrs(tool?.flags ?? {}), ...definition };
}

function flagAttrs(flags: ToolFlags): Attrs {
  return {
    [ATTR_GUARDTRACE_TOOL_READ_ONLY]: Boolean(flags.readOnly),
    [ATTR_GUARDTRACE_TOOL_IDEMPOTENT]: Boolean(flags.idempotent || flags.readOnly),
    [ATTR_GUARDTRACE_TOOL_DESTRUCTIVE]: Boolean(flags.destructive),
    [ATTR_GUARDTRACE_TOOL_EXTERNAL]: Boolean(flags.external),
  };
}

/** An attempt span's attributes when it opens (the arguments only when the content rule says every attempt). */
export function attemptAttrs(a: { sessionId: string; toolName: string; callId: string; n: number; args: string; content: Content }): Attrs {
  return {
    [ATTR_GEN_AI_OPERATION_NAME]: SPAN_ATTEMPT,
    [ATTR_GEN_AI_CONVERSATION_ID]: a.sessionId,
    [ATTR_GEN_AI_TOOL_NAME]: a.toolName,
    [ATTR_GEN_AI_TOOL_CALL_ID]: a.callId,
    [ATTR_GUARDTRACE_ATTEMPT]: a.n,
    [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: a.content === 'always' ? a.args : undefined,
  };
}

/**
 * A successful attempt span's closing attributes. Under `failures`, the success that follows a
 * failed or repaired attempt carries its content too (`afterFailure`); `result` is the clipped,
 * sanitized value, made only when it is written.
 */
export function succeededAttemptAttrs(run: AttemptRun, a: { content: Content; afterFailure: boolean; args: string; result: () => string }): Attributes {
  const withContent = a.content === 'always' || (a.content === 'failures' && a.afterFailure);
  const attrs: Attributes = { [ATTR_GUARDTRACE_OUTCOME]: 'success', [ATTR_GUARDTRACE_DECISION]: 'proceed' };
  if (withContent) attrs[ATTR_GEN_AI_TOOL_CALL_RESULT] = a.result();
  if (a.content === 'failures' && withContent) attrs[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = a.args;
  if (run.idempotencyKey) attrs[ATTR_GUARDTRACE_IDEMPOTENCY_KEY] = run.idempotencyKey;
  if (run.deduplicated) attrs[ATTR_GUARDTRACE_DEDUPLICATED] = true;
  return attrs;
}

/** The `execute_tool` span's closing attributes for the call's final result. */
export function finishedCallAttrs(result: CallResult, attempts: AttemptRecord[], idempotencyKey: string | undefined): Attrs {
  const outcome: Outcome = result.ok ? 'success' : (attempts.at(-1)?.outcome ?? 'failed');
  if (result.ok) {
    const attrs: Attrs = { [ATTR_GUARDTRACE_ATTEMPT]: attempts.length, [ATTR_GUARDTRACE_OUTCOME]: outcome, [ATTR_GUARDTRACE_DECISION]: 'proceed' };
    if (idempotencyKey) attrs[ATTR_GUARDTRACE_IDEMPOTENCY_KEY] = idempotencyKey;
    if (result.deduplicated) attrs[ATTR_GUARDTRACE_DEDUPLICATED] = true;
    return attrs;
  }
  return {
    [ATTR_GUARDTRACE_ATTEMPT]: attempts.length,
    [ATTR_GUARDTRACE_OUTCOME]: outcome,
    [ATTR_GUARDTRACE_DECISION]: result.decision,
    [ATTR_GUARDTRACE_FAILURE_CLASS]: result.failureClass,
    [ATTR_ERROR_TYPE]: result.failureClass,
    [ATTR_GUARDTRACE_IDEMPOTENCY_KEY]: idempotencyKey,
    [ATTR_GUARDTRACE_FALLBACK_TOOL]: result.escalation?.fallbackTool,
    [ATTR_GUARDTRACE_ESCALATION_REASON]: attempts.at(-1)?.escalationReason,
  };
}
