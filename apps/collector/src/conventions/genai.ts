/**
 * OpenTelemetry GenAI semantic conventions: `gen_ai.operation.name` (`execute_tool`, `chat`...,
 * `apply_guardrail` and the proposed `run_guardrail`), tool, model and usage attributes, the
 * merged guardrail convention's results (guardrail.ts), and the older guardrail proposals'
 * decisions and findings (see docs/semantic-conventions.md, "Guardrail results" and "Read from
 * other emitters").
 */
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_GUARDIAN_NAME,
  ATTR_GEN_AI_GUARDRAIL_ACTION_TYPE,
  ATTR_GEN_AI_GUARDRAIL_COMPONENT_NAME,
  ATTR_GEN_AI_GUARDRAIL_DECISION,
  ATTR_GEN_AI_GUARDRAIL_NAME,
  ATTR_GEN_AI_GUARDRAIL_PASSED,
  ATTR_GEN_AI_GUARDRAIL_REASON,
  ATTR_GEN_AI_GUARDRAIL_SECURITY_RISK_CATEGORY,
  ATTR_GEN_AI_GUARDRAIL_VERDICT,
  ATTR_GEN_AI_GUARDRAIL_VERDICT_REASON,
  ATTR_GEN_AI_GUARDRAIL_VERDICT_TYPE,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SECURITY_DECISION_REASON,
  ATTR_GEN_AI_SECURITY_DECISION_TYPE,
  ATTR_GEN_AI_SECURITY_RISK_CATEGORY,
  ATTR_GEN_AI_SECURITY_RISK_SEVERITY,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS_OLD,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS_OLD,
  ATTR_GEN_AI_USAGE_COMPLETION_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_PROMPT_TOKENS,
  EVENT_GEN_AI_GUARDRAIL_SECURITY_FINDING,
  EVENT_GEN_AI_SECURITY_FINDING,
  OP_APPLY_GUARDRAIL,
  OP_CHAT,
  OP_EXECUTE_TOOL,
  OP_INVOKE_AGENT,
  OP_RUN_GUARDRAIL,
} from '@guardtrace/semconv';
import type { Attributes, NormSpan } from '../span.ts';
import { eventPointers, NOT_DERIVED, onlyOwnResults, reasonOf, spanResults, verdictOf } from './guardrail.ts';
import type { Meaning, SpanRole } from './meaning.ts';
import { bool, int, str, suffix, text } from './read.ts';
import { genAiMessages, mayHoldRefusal, refusedCalls } from './refusals.ts';

/** Deprecated provider key, still written by older emitters (OpenLLMetry, Vercel's doGenerate). */
const GEN_AI_SYSTEM = 'gen_ai.system';
/** GenAI operations that are model calls (semconv gen_ai.operation.name values). */
const MODEL_OPERATIONS = new Set([OP_CHAT, 'text_completion', 'generate_content', 'embeddings']);
/** Operations whose usage attributes are totals of their children: never counted again. */
const AGGREGATE_OPERATIONS = new Set([OP_INVOKE_AGENT, 'create_agent', 'invoke_workflow']);
/** Guardrail decisions that mean the check failed (`deny` decisions, `block` actions). */
const FAILING = new Set(['deny', 'block', 'fail']);

export function operationRole(op: string): SpanRole | undefined {
  if (op === OP_EXECUTE_TOOL) return 'tool_call';
  if (op === OP_APPLY_GUARDRAIL || op === OP_RUN_GUARDRAIL) return 'guard_check';
  if (MODEL_OPERATIONS.has(op)) return 'model_call';
  if (AGGREGATE_OPERATIONS.has(op)) return null;
  return undefined;
}

/** By span name (`execute_tool {tool}`, `apply_guardrail {name}`, `chat {model}`), for spans without an operation name. */
export function nameRole(name: string): SpanRole | undefined {
  if (name.startsWith(OP_EXECUTE_TOOL)) return 'tool_call';
  if (name.startsWith(OP_APPLY_GUARDRAIL) || name.startsWith(OP_RUN_GUARDRAIL)) return 'guard_check';
  if (name.startsWith(OP_CHAT)) return 'model_call';
  return undefined;
}

export function hasUsage(a: Attributes): boolean {
  return (
    a[ATTR_GEN_AI_USAGE_INPUT_TOKENS] !== undefined ||
    a[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] !== undefined ||
    a[ATTR_GEN_AI_USAGE_PROMPT_TOKENS] !== undefined ||
    a[ATTR_GEN_AI_USAGE_COMPLETION_TOKENS] !== undefined
  );
}

/** LangSmith's OpenTelemetry export: a run's inputs as JSON, on every run type. */
const LANGSMITH_INPUTS = 'gen_ai.prompt';

export function read(span: NormSpan, m: Meaning): void {
  const a = span.attributes;
  switch (m.role) {
    case 'tool_call':
      m.toolName = text(a, ATTR_GEN_AI_TOOL_NAME) ?? suffix(span.name, OP_EXECUTE_TOOL);
      m.callId = text(a, ATTR_GEN_AI_TOOL_CALL_ID);
      // (LangSmith's export has no arguments attribute: a tool run's inputs are its `gen_ai.prompt`.)
      m.arguments = text(a, ATTR_GEN_AI_TOOL_CALL_ARGUMENTS) ?? text(a, LANGSMITH_INPUTS);
      return;
    case 'attempt':
      m.toolName = text(a, ATTR_GEN_AI_TOOL_NAME);
      m.arguments = text(a, ATTR_GEN_AI_TOOL_CALL_ARGUMENTS);
      m.errorType = text(a, ATTR_ERROR_TYPE);
      return;
    case 'guard_check':
      readGuardrail(span, m);
      return;
    case 'model_call':
      m.model = text(a, ATTR_GEN_AI_REQUEST_MODEL) ?? text(a, ATTR_GEN_AI_RESPONSE_MODEL);
      m.provider = text(a, ATTR_GEN_AI_PROVIDER_NAME) ?? text(a, GEN_AI_SYSTEM);
      m.inputTokens = int(a, ATTR_GEN_AI_USAGE_INPUT_TOKENS) ?? int(a, ATTR_GEN_AI_USAGE_PROMPT_TOKENS);
      m.outputTokens = int(a, ATTR_GEN_AI_USAGE_OUTPUT_TOKENS) ?? int(a, ATTR_GEN_AI_USAGE_COMPLETION_TOKENS);
      m.cachedInputTokens = int(a, ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS) ?? int(a, ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS_OLD);
      m.cacheWriteInputTokens = int(a, ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS) ?? int(a, ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS_OLD);
      refusals(span, m);
      return;
  }
}

/** Tool calls an agent refused before running them, answered in the model call's input messages (refusals.ts). */
function refusals(span: NormSpan, m: Meaning): void {
  const input = span.attributes[ATTR_GEN_AI_INPUT_MESSAGES];
  if (typeof input !== 'string' || !mayHoldRefusal(input)) return;
  const messages = genAiMessages(input);
  if (messages !== null) m.implied ??= refusedCalls(span, messages);
}

/**
 * Name, verdict, reason and native results of a guardrail span, in any of the shapes above: the
 * merged convention's results (guardrail.ts) decide the verdict by their table alone, and a span
 * with results but no explicit pass/fail value is `unknown`, never guessed.
 */
function readGuardrail(span: NormSpan, m: Meaning): void {
  const a = span.attributes;
  // Guardtrace's own verdict is pass/fail already; its own result events repeat it (not read twice).
  const own = text(a, ATTR_GEN_AI_GUARDRAIL_VERDICT);
  const results = own !== null && onlyOwnResults(span) ? null : spanResults(span);
  m.guardName =
    text(a, ATTR_GEN_AI_GUARDRAIL_NAME) ??
    text(a, ATTR_GEN_AI_GUARDRAIL_COMPONENT_NAME) ??
    text(a, ATTR_GEN_AI_GUARDIAN_NAME) ??
    suffix(span.name, OP_APPLY_GUARDRAIL) ??
    suffix(span.name, OP_RUN_GUARDRAIL) ??
    results?.[0]?.component ??
    null;
  m.verdict = own ?? (results === null ? proposalVerdict(a) : (verdictOf(results) ?? proposalVerdict(a) ?? NOT_DERIVED));
  const reason =
    text(a, ATTR_GEN_AI_GUARDRAIL_REASON) ??
    (results === null ? null : reasonOf(results)) ??
    text(a, ATTR_GEN_AI_GUARDRAIL_VERDICT_REASON) ??
    text(a, ATTR_GEN_AI_SECURITY_DECISION_REASON);
  const found = violations(span);
  m.reason = found === null ? reason : reason === null ? found : `${reason} (${found})`;
  if (results !== null) {
    m.guardrailResults = results;
    m.failedPointers ??= eventPointers(span.events);
  }
}

/** `fail` when any decision key denies or blocks (or `passed` is false), `pass` when one allows, else null. */
function proposalVerdict(a: Attributes): string | null {
  const decisions = [
    str(a, ATTR_GEN_AI_GUARDRAIL_VERDICT_TYPE),
    str(a, ATTR_GEN_AI_GUARDRAIL_ACTION_TYPE),
    str(a, ATTR_GEN_AI_SECURITY_DECISION_TYPE),
    str(a, ATTR_GEN_AI_GUARDRAIL_DECISION),
  ];
  const passed = bool(a, ATTR_GEN_AI_GUARDRAIL_PASSED);
  if (passed === false || decisions.some((d) => d !== null && FAILING.has(d.toLowerCase()))) return 'fail';
  return passed === true || decisions.some((d) => d !== null) ? 'pass' : null;
}

/** The violations a guardrail reported: its finding events' risk categories (with severity), or its own category. */
function violations(span: NormSpan): string | null {
  const out: string[] = [];
  for (const e of span.events) {
    if (e.name !== EVENT_GEN_AI_SECURITY_FINDING && e.name !== EVENT_GEN_AI_GUARDRAIL_SECURITY_FINDING) continue;
    const category = text(e.attributes, ATTR_GEN_AI_SECURITY_RISK_CATEGORY) ?? text(e.attributes, ATTR_GEN_AI_GUARDRAIL_SECURITY_RISK_CATEGORY);
    if (category === null) continue;
    const severity = text(e.attributes, ATTR_GEN_AI_SECURITY_RISK_SEVERITY);
    out.push(severity === null ? category : `${category}: ${severity}`);
  }
  if (out.length === 0) {
    const own = text(span.attributes, ATTR_GEN_AI_GUARDRAIL_SECURITY_RISK_CATEGORY);
    return own === null ? null : `violation: ${own}`;
  }
  return `violations: ${out.join(', ')}`;
}
