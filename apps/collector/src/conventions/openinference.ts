/**
 * OpenInference (Arize Phoenix's instrumentations): `openinference.span.kind`, `llm.*` model and
 * token counts, `tool.*` and `input.value` of tool spans, `session.id` / `user.id`; the tool calls
 * LangChain refused, from an LLM span's `llm.input_messages.*` (refusals.ts).
 */
import { ATTR_GUARDTRACE_RECORDED_AS, ATTR_GUARDTRACE_RECORDED_TOOL, OP_EXECUTE_TOOL } from '@guardtrace/semconv';
import type { Attributes, NormSpan } from '../span.ts';
import type { Meaning, SpanRole } from './meaning.ts';
import { int, str, text } from './read.ts';
import { mayHoldRefusal, openInferenceMessages, refusedCalls } from './refusals.ts';

const SPAN_KIND = 'openinference.span.kind';
const MODEL_NAME = 'llm.model_name';
const PROVIDER = 'llm.provider';
const SYSTEM = 'llm.system';
const PROMPT_TOKENS = 'llm.token_count.prompt';
const COMPLETION_TOKENS = 'llm.token_count.completion';
const CACHE_READ_TOKENS = 'llm.token_count.prompt_details.cache_read';
const CACHE_WRITE_TOKENS = 'llm.token_count.prompt_details.cache_write';
const TOOL_NAME = 'tool.name';
const TOOL_CALL_ID = 'tool_call.id';
const INPUT = 'input.value';
/** The session (OpenInference's, also Langfuse's OpenTelemetry attribute). */
export const SESSION_ID_KEY = 'session.id';

/** By span kind; undefined for spans without one (not OpenInference's). */
export function role(a: Attributes): SpanRole | undefined {
  const kind = str(a, SPAN_KIND);
  if (kind === null) return undefined;
  if (kind === 'TOOL') return 'tool_call';
  if (kind === 'LLM' || kind === 'EMBEDDING') return 'model_call';
  if (kind === 'GUARDRAIL') return 'guard_check';
  // CHAIN, AGENT, RETRIEVER...: their token counts, if any, are their children's.
  return null;
}

export function hasUsage(a: Attributes): boolean {
  return a[PROMPT_TOKENS] !== undefined || a[COMPLETION_TOKENS] !== undefined;
}

const METADATA = 'metadata';
const RECORDED_MARK = `"${ATTR_GUARDTRACE_RECORDED_AS}"`;

/**
 * A TOOL span of a LangChain run whose execution a Guardtrace span records too: guardLangChainTools
 * puts `guardtrace.recorded_as` and `guardtrace.recorded_tool` in the run's metadata, which
 * OpenInference exports as the `metadata` JSON string. Child runs inherit metadata, so only a span
 * of the recorded tool itself is one (a tool the guarded tool calls still counts).
 */
export function recordedByGuardtrace(a: Attributes): boolean {
  if (a[SPAN_KIND] !== 'TOOL') return false;
  const metadata = a[METADATA];
  if (typeof metadata !== 'string' || !metadata.includes(RECORDED_MARK)) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(metadata);
  } catch {
    return false;
  }
  if (typeof parsed !== 'object' || parsed === null) return false;
  const m = parsed as Record<string, unknown>;
  return m[ATTR_GUARDTRACE_RECORDED_AS] === OP_EXECUTE_TOOL && typeof m[ATTR_GUARDTRACE_RECORDED_TOOL] === 'string' && m[ATTR_GUARDTRACE_RECORDED_TOOL] === a[TOOL_NAME];
}

/** Whether the span follows this convention at all (one lookup: most spans do not). */
export function applies(a: Attributes): boolean {
  return a[SPAN_KIND] !== undefined;
}

export function read(span: NormSpan, m: Meaning): void {
  const a = span.attributes;
  if (m.role === 'tool_call') {
    m.toolName ??= text(a, TOOL_NAME);
    m.callId ??= text(a, TOOL_CALL_ID);
    if (a[SPAN_KIND] === 'TOOL') m.arguments ??= text(a, INPUT);
  } else if (m.role === 'model_call') {
    m.model ??= text(a, MODEL_NAME);
    m.provider ??= text(a, PROVIDER) ?? text(a, SYSTEM);
    m.inputTokens ??= int(a, PROMPT_TOKENS);
    m.outputTokens ??= int(a, COMPLETION_TOKENS);
    m.cachedInputTokens ??= int(a, CACHE_READ_TOKENS);
    m.cacheWriteInputTokens ??= int(a, CACHE_WRITE_TOKENS);
    // Tool calls the agent refused (LangChain), answered in the input messages; `input.value` holds
    // them too (LangChain's serialized messages), the cheap test before reading the flattened keys.
    const input = text(a, INPUT);
    if (input === null || mayHoldRefusal(input)) m.implied ??= refusedCalls(span, openInferenceMessages(a));
  }
}
