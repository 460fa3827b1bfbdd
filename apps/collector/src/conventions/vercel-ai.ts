/**
 * The Vercel AI SDK's telemetry (`experimental_telemetry`, ai 6.x): `ai.toolCall` spans (tool,
 * call id, arguments; a throwing `execute` sets status ERROR and records an exception event),
 * `ai.generateText.doGenerate` / `ai.streamText.doStream` model calls (`ai.model.*`,
 * `ai.usage.*`), the outer `ai.generateText` / `ai.streamText` spans that sum their steps, and
 * `ai.telemetry.metadata.*` on every span (the caller's own keys: `sessionId`, `userId`).
 *
 * Tool calls the SDK refuses (input that fails the tool's schema: InvalidToolInputError; a tool
 * it does not have: NoSuchToolError) get no span at all: the SDK answers the model with an
 * `error-text` tool result, which the next step's model call records in `ai.prompt.messages`.
 * Those results are read here, from the messages after the last assistant message (so each is
 * read once, on the step right after it), and become rejected attempts.
 */
import type { FailureClass } from '@guardtrace/semconv';
import type { Attributes, NormSpan } from '../span.ts';
import type { ImpliedAttempt, Meaning, SpanRole } from './meaning.ts';
import { derivedSpanId, int, str, text } from './read.ts';

const OPERATION_ID = 'ai.operationId';
const TOOL_CALL = 'ai.toolCall';
const TOOL_CALL_NAME = 'ai.toolCall.name';
const TOOL_CALL_ID = 'ai.toolCall.id';
const TOOL_CALL_ARGS = 'ai.toolCall.args';
const TOOL_CALL_INPUT = 'ai.toolCall.input';
const USAGE_PROMPT = 'ai.usage.promptTokens';
const USAGE_COMPLETION = 'ai.usage.completionTokens';
const USAGE_INPUT = 'ai.usage.inputTokens';
const USAGE_OUTPUT = 'ai.usage.outputTokens';
/** Cached input tokens: ai 6's detail, and its older flat name. */
const USAGE_CACHE_READ = 'ai.usage.inputTokenDetails.cacheReadTokens';
const USAGE_CACHED_INPUT = 'ai.usage.cachedInputTokens';
const USAGE_CACHE_WRITE = 'ai.usage.inputTokenDetails.cacheWriteTokens';
/** The provider's own metadata, JSON: ai 5's Anthropic provider reports its cache writes only there. */
const PROVIDER_METADATA = 'ai.response.providerMetadata';
const MODEL_ID = 'ai.model.id';
const MODEL_PROVIDER = 'ai.model.provider';
const PROMPT_MESSAGES = 'ai.prompt.messages';
/** `telemetry.metadata.sessionId` / `userId` of the caller, as the SDK writes them on every span. */
export const SESSION_ID_KEY = 'ai.telemetry.metadata.sessionId';
export const USER_ID_KEY = 'ai.telemetry.metadata.userId';

// The SDK's error messages (ai 6.x InvalidToolInputError and NoSuchToolError), as the model is told them.
const INVALID_INPUT = /^Invalid input for tool ([^:]+):/;
const NO_SUCH_TOOL = /^Model tried to call unavailable tool '([^']+)'/;
const INVALID_ARGUMENTS: FailureClass = 'invalid_arguments';
const UNKNOWN_TOOL: FailureClass = 'unknown_tool';

/**
 * Whether the span is the AI SDK's: it names every span after its operation id (`ai.toolCall`,
 * `ai.generateText`...) and writes that id as `ai.operationId`, which stays when an exporter
 * renames the span (Traceloop's SDK names them `chat {model}` and `execute_tool {tool}`).
 */
export function applies(span: NormSpan): boolean {
  return span.name.startsWith('ai.') || span.attributes[OPERATION_ID] !== undefined;
}

/** Whether the span carries the AI SDK's operation id (what it is, whatever its name now). */
export function hasOperationId(a: Attributes): boolean {
  return typeof a[OPERATION_ID] === 'string';
}

export function role(span: NormSpan): SpanRole | undefined {
  const op = str(span.attributes, OPERATION_ID) ?? span.name;
  if (op === TOOL_CALL || span.name === TOOL_CALL || span.attributes[TOOL_CALL_NAME] !== undefined) return 'tool_call';
  // Outer `ai.generateText` / `ai.streamText`... sum their `.do*` children: no row of their own.
  if (op.startsWith('ai.') && !op.includes('.do')) return null;
  return undefined;
}

export function hasUsage(a: Attributes): boolean {
  return a[USAGE_PROMPT] !== undefined || a[USAGE_COMPLETION] !== undefined || a[USAGE_INPUT] !== undefined || a[USAGE_OUTPUT] !== undefined;
}

export function read(span: NormSpan, m: Meaning): void {
  const a = span.attributes;
  if (m.role === 'tool_call') {
    m.toolName ??= text(a, TOOL_CALL_NAME);
    m.callId ??= text(a, TOOL_CALL_ID);
    m.arguments ??= text(a, TOOL_CALL_ARGS) ?? text(a, TOOL_CALL_INPUT);
  } else if (m.role === 'model_call') {
    m.model ??= text(a, MODEL_ID);
    m.provider ??= text(a, MODEL_PROVIDER);
    m.inputTokens ??= int(a, USAGE_INPUT) ?? int(a, USAGE_PROMPT);
    m.outputTokens ??= int(a, USAGE_OUTPUT) ?? int(a, USAGE_COMPLETION);
    m.cachedInputTokens ??= int(a, USAGE_CACHE_READ) ?? int(a, USAGE_CACHED_INPUT);
    m.cacheWriteInputTokens ??= int(a, USAGE_CACHE_WRITE) ?? anthropicCacheWrites(a);
    const messages = a[PROMPT_MESSAGES];
    if (typeof messages === 'string' && messages.includes('"error-text"')) m.implied = rejectedCalls(span, messages);
  }
}

interface Part {
  type?: unknown;
  toolCallId?: unknown;
  toolName?: unknown;
  input?: unknown;
  output?: { type?: unknown; value?: unknown };
}
interface Message {
  role?: unknown;
  content?: unknown;
}

/** The refused tool calls answered in the trailing tool messages of a prompt, or null. */
function rejectedCalls(span: NormSpan, json: string): ImpliedAttempt[] | null {
  let messages: unknown;
  try {
    messages = JSON.parse(json);
  } catch {
    // Truncated (over the string limit) or not the SDK's: nothing to read.
    return null;
  }
  if (!Array.isArray(messages)) return null;
  let last = messages.length - 1;
  while (last >= 0 && (messages[last] as Message | null)?.role !== 'assistant') last--;
  if (last < 0) return null;
  const calls = new Map<string, Part>();
  for (const part of parts(messages[last] as Message)) if (part.type === 'tool-call' && typeof part.toolCallId === 'string') calls.set(part.toolCallId, part);
  const out: ImpliedAttempt[] = [];
  for (let i = last + 1; i < messages.length; i++) {
    const msg = messages[i] as Message | null;
    if (msg?.role !== 'tool') continue;
    for (const part of parts(msg)) {
      const r = rejection(span, part, calls);
      if (r !== null) out.push(r);
    }
  }
  return out.length === 0 ? null : out;
}

function parts(msg: Message | null): Part[] {
  return msg !== null && Array.isArray(msg.content) ? (msg.content.filter((p) => p !== null && typeof p === 'object') as Part[]) : [];
}

function rejection(span: NormSpan, part: Part, calls: Map<string, Part>): ImpliedAttempt | null {
  if (part.type !== 'tool-result' || part.output?.type !== 'error-text' || typeof part.output.value !== 'string') return null;
  const reason = part.output.value;
  const invalid = INVALID_INPUT.exec(reason);
  const unknown = invalid === null ? NO_SUCH_TOOL.exec(reason) : null;
  if (invalid === null && unknown === null) return null;
  const callId = typeof part.toolCallId === 'string' ? part.toolCallId : null;
  const call = callId === null ? undefined : calls.get(callId);
  const toolName = typeof part.toolName === 'string' ? part.toolName : ((invalid ?? unknown) as RegExpExecArray)[1] as string;
  return {
    spanId: derivedSpanId(span, callId ?? reason),
    toolCallSpanId: null,
    toolName,
    callId,
    arguments: call === undefined || call.input === undefined ? null : typeof call.input === 'string' ? call.input : JSON.stringify(call.input),
    outcome: 'rejected',
    failureClass: invalid !== null ? INVALID_ARGUMENTS : UNKNOWN_TOOL,
    reason,
    errorType: null,
  };
}

/**
 * Cache writes in the Anthropic provider's metadata (`{"anthropic":{"cacheCreationInputTokens":N}}`),
 * read when the usage names none (ai 5, whose usage leaves them out of its input as Anthropic's API does).
 */
function anthropicCacheWrites(a: Attributes): number | null {
  const meta = a[PROVIDER_METADATA];
  if (typeof meta !== 'string' || !meta.includes('"cacheCreationInputTokens"')) return null;
  try {
    const n = (JSON.parse(meta) as { anthropic?: { cacheCreationInputTokens?: unknown } } | null)?.anthropic?.cacheCreationInputTokens;
    return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null;
  } catch {
    return null;
  }
}
