/**
 * Which conventions a span follows, and what it means under them: each convention module reads
 * its own keys into one Meaning, in order of precedence (Guardtrace's, OpenTelemetry GenAI, the
 * Vercel AI SDK, OpenInference, OpenLLMetry; then OpenTelemetry's status and exceptions, then
 * the span's name). mapping.ts builds the rows from the Meaning alone, and the guard checks of
 * guardrail result events on spans that are no guardrail from eventChecks().
 */
import { ATTR_ERROR_TYPE, ATTR_GEN_AI_CONVERSATION_ID, ATTR_GEN_AI_OPERATION_NAME, ATTR_GUARDTRACE_RECORDED_AS, ATTR_USER_ID } from '@guardtrace/semconv';
import type { NormSpan } from '../span.ts';
import * as genai from './genai.ts';
import * as guardtrace from './guardtrace.ts';
import { type ImpliedAttempt, type Meaning, newMeaning, resetMeaning, type SpanRole } from './meaning.ts';
import * as openinference from './openinference.ts';
import * as openllmetry from './openllmetry.ts';
import * as otel from './otel.ts';
import { derivedSpanId, str, text } from './read.ts';
import { toolFailureClass } from './tool-error.ts';
import * as vercel from './vercel-ai.ts';

export { type EventCheck, eventChecks } from './guardrail.ts';
export type { ImpliedAttempt, Meaning, SpanRole } from './meaning.ts';

/** Langfuse's OpenTelemetry session attribute (it reads `session.id` too). */
const LANGFUSE_SESSION_ID = 'langfuse.session.id';
/**
 * LangSmith's threads: a run's metadata `thread_id`, `session_id` or `conversation_id` (its
 * OpenTelemetry export writes metadata as `langsmith.metadata.<key>`).
 */
const LANGSMITH_THREAD_KEYS = ['langsmith.metadata.thread_id', 'langsmith.metadata.session_id', 'langsmith.metadata.conversation_id'] as const;
/** Every attribute sessionId() may take a session id from (span-rules.ts bounds their length). */
export const SESSION_ID_KEYS = [
  ATTR_GEN_AI_CONVERSATION_ID,
  openinference.SESSION_ID_KEY,
  LANGFUSE_SESSION_ID,
  vercel.SESSION_ID_KEY,
  openllmetry.SESSION_ID_KEY,
  ...LANGSMITH_THREAD_KEYS,
] as const;
/**
 * Where a session's user comes from, first found first: Guardtrace's, OpenTelemetry's (and
 * OpenInference's), the Vercel AI SDK's metadata, Traceloop's association properties. Read in SQL
 * (guardtrace_session_totals; test/session-totals.test.ts checks the order).
 */
export const USER_ID_KEYS = [guardtrace.USER_ID_KEY, ATTR_USER_ID, vercel.USER_ID_KEY, ...openllmetry.USER_ID_KEYS] as const;

/**
 * Session id carried by the span itself (span attribute, else its resource): the GenAI
 * conversation id, else OpenInference's and Langfuse's session id, else the Vercel AI SDK's
 * `telemetry.metadata.sessionId`, else OpenLLMetry's `session_id` association property, else
 * LangSmith's thread (its metadata's `thread_id`, `session_id`, `conversation_id`).
 */
export function sessionId(span: NormSpan): string | null {
  const a = span.attributes;
  return (
    text(a, ATTR_GEN_AI_CONVERSATION_ID) ??
    text(span.resource, ATTR_GEN_AI_CONVERSATION_ID) ??
    text(a, openinference.SESSION_ID_KEY) ??
    text(a, LANGFUSE_SESSION_ID) ??
    text(a, vercel.SESSION_ID_KEY) ??
    text(a, openllmetry.SESSION_ID_KEY) ??
    text(a, LANGSMITH_THREAD_KEYS[0]) ??
    text(a, LANGSMITH_THREAD_KEYS[1]) ??
    text(a, LANGSMITH_THREAD_KEYS[2])
  );
}

/**
 * The row a span stands for (none when it is marked `guardtrace.recorded_as`): its operation name
 * first (Guardtrace's and GenAI's), then OpenInference's and OpenLLMetry's span kinds, then the AI
 * SDK's `ai.operationId`, then its name (Guardtrace's, GenAI's prefixes, the AI SDK's), then usage
 * attributes (a model call, unless it sums its children).
 */
export function classify(span: NormSpan): SpanRole {
  const a = span.attributes;
  // a framework's span whose call a Guardtrace span records as well (guardedAiSdk with the AI
  // SDK's own telemetry on): that span is the row, this one stays raw, nothing counts twice
  if (a[ATTR_GUARDTRACE_RECORDED_AS] !== undefined) return null;
  // the same, said through a LangChain run's metadata (guardLangChainTools; OpenInference's tracer)
  if (openinference.recordedByGuardtrace(a)) return null;
  const op = str(a, ATTR_GEN_AI_OPERATION_NAME);
  let r: SpanRole | undefined;
  if (op !== null) {
    r = guardtrace.operationRole(op) ?? genai.operationRole(op);
    if (r !== undefined) return r;
  }
  r = openinference.role(a);
  if (r !== undefined) return r;
  r = openllmetry.role(a);
  if (r !== undefined) return r;
  // The AI SDK's own operation id says what the span is before its name does: an exporter may
  // rename its spans (Traceloop's names the outer `ai.generateText`, a sum of its steps, `chat {model}`).
  if (vercel.hasOperationId(a)) {
    r = vercel.role(span);
    if (r !== undefined) return r;
  }
  r = guardtrace.nameRole(span.name) ?? genai.nameRole(span.name);
  if (r !== undefined) return r;
  if (vercel.applies(span)) {
    r = vercel.role(span);
    if (r !== undefined) return r;
  }
  return genai.hasUsage(a) || vercel.hasUsage(a) || openinference.hasUsage(a) ? 'model_call' : null;
}

/** The one Meaning interpret() fills (see resetMeaning). */
const current = newMeaning();

/**
 * What the span means, or null when it stands for no row (kept raw only). The Meaning is
 * reused by the next call: build the rows from it before interpreting another span (its
 * `implied` list is the span's own).
 */
export function interpret(span: NormSpan): Meaning | null {
  const role = classify(span);
  if (role === null) return null;
  const m = resetMeaning(current, role);
  const a = span.attributes;
  guardtrace.read(span, m);
  genai.read(span, m);
  if (vercel.applies(span)) vercel.read(span, m);
  if (openinference.applies(a)) openinference.read(span, m);
  if (openllmetry.applies(a)) openllmetry.read(span, m);
  // A tool call or attempt failed when its status is ERROR, or when it carries `error.type`: the
  // GenAI conventions set it if and only if the operation ended in an error (status ERROR is a
  // SHOULD beside it, which some instrumentations skip).
  const failed = otel.failed(span) || ((role === 'tool_call' || role === 'attempt') && text(a, ATTR_ERROR_TYPE) !== null);
  switch (role) {
    case 'tool_call':
      // Guardtrace's own calls say how many attempts they took (each its own span); any other
      // instrumentation's call ran once: its one attempt is implied, so it counts like ours.
      if (m.attempt === null && m.outcome === null) impliedAttempt(span, m, failed);
      else {
        m.outcome ??= failed ? 'failed' : 'success';
        if (failed || m.outcome !== 'success') m.failureReason = otel.failureReason(span);
      }
      m.toolName ??= span.name;
      break;
    case 'attempt':
      m.outcome ??= failed ? 'failed' : 'success';
      if (failed || m.outcome !== 'success') {
        m.failureReason = otel.failureReason(span);
        m.errorType ??= otel.exceptionType(span);
      }
      break;
    case 'guard_check':
      m.guardName ??= span.name;
      m.verdict ??= failed ? 'fail' : 'pass';
      break;
    case 'model_call':
      withCacheTokens(m);
      break;
  }
  return m;
}

/**
 * A model call's input counting its prompt-cache tokens. Every convention read here counts cache
 * reads and writes within the input; an emitter that copies Anthropic's usage fields as they are
 * reports them beside it (`input_tokens` is then only the rest of the prompt: the AI SDK 5's
 * Anthropic provider, hand-written GenAI spans). Reads and writes above the input can only be
 * that: the input is then their sum, so that the cached part is priced at the cached rate and the
 * rest at the input rate. Reported beside but below the input, they cannot be told apart from an
 * input that holds them.
 */
function withCacheTokens(m: Meaning): void {
  const cache = (m.cachedInputTokens ?? 0) + (m.cacheWriteInputTokens ?? 0);
  const input = m.inputTokens ?? 0;
  if (cache > input) m.inputTokens = input + cache;
}

/**
 * The one attempt of another instrumentation's tool call (OpenTelemetry GenAI `execute_tool`, the
 * Vercel AI SDK's `ai.toolCall`, OpenInference's TOOL, OpenLLMetry's tool): attempt 1 under the
 * call, its outcome the span's status; failed, its class from the error (tool-error.ts), also set
 * on the call. Added after any refused calls the span reports.
 */
function impliedAttempt(span: NormSpan, m: Meaning, failed: boolean): void {
  m.outcome = failed ? 'failed' : 'success';
  let errorType: string | null = null;
  if (failed) {
    m.failureReason = otel.failureReason(span);
    errorType = text(span.attributes, ATTR_ERROR_TYPE) ?? otel.exceptionType(span);
    m.failureClass ??= toolFailureClass(errorType, m.failureReason);
  }
  const own: ImpliedAttempt = {
    spanId: derivedSpanId(span, 'attempt'),
    toolCallSpanId: span.spanId,
    toolName: m.toolName ?? span.name,
    callId: m.callId,
    arguments: m.arguments,
    outcome: m.outcome,
    failureClass: m.failureClass,
    reason: m.failureReason,
    errorType,
  };
  if (m.implied === null) m.implied = [own];
  else m.implied.push(own);
}
