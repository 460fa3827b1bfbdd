/**
 * Tool calls an agent framework refuses before running a tool, which no tool span records: the
 * framework answers the model with an error tool message, which the next model call's span
 * records among its input messages, whichever instrumentation wrote it (OpenInference's
 * `llm.input_messages.*`, the GenAI conventions' `gen_ai.input.messages`). Read from the tool
 * messages after the last assistant message (so each is read once, on the step right after it),
 * they become rejected attempts. The refusals, by their text:
 *
 * - LangChain's agents (langchain 1.x `ToolNode`): input that fails the tool's schema (a
 *   ToolInputParsingException wrapped in a ToolInvocationError: `Error invoking tool 'NAME' with
 *   kwargs {...} with error: ...`, the kwargs its arguments) and a tool the agent does not have
 *   (`Error: NAME is not a valid tool, try one of [...]`).
 * - The Vercel AI SDK's (InvalidToolInputError `Invalid input for tool NAME: ...`, NoSuchToolError
 *   `Model tried to call unavailable tool 'NAME'...`) when its prompt reaches us as GenAI messages
 *   (Traceloop's SDK rewrites `ai.prompt.messages` so; vercel-ai.ts reads the SDK's own).
 *
 * A refused call's arguments are those of the assistant message's tool call of the same id, if
 * the messages keep it, else (LangChain) the kwargs its text quotes.
 */
import type { FailureClass } from '@guardtrace/semconv';
import type { Attributes, NormSpan } from '../span.ts';
import type { ImpliedAttempt } from './meaning.ts';
import { derivedSpanId, str } from './read.ts';

const INVALID_ARGUMENTS: FailureClass = 'invalid_arguments';
const UNKNOWN_TOOL: FailureClass = 'unknown_tool';

/** Each refusal text: its pattern (group 1 the tool's name, group 2 any quoted arguments) and class. */
const REFUSALS: readonly (readonly [RegExp, FailureClass])[] = [
  [/^Error invoking tool '([^']+)' with kwargs (.*?) with error: /s, INVALID_ARGUMENTS],
  [/^Error: (.+?) is not a valid tool, try one of \[/s, UNKNOWN_TOOL],
  [/^Invalid input for tool ([^:]+):/, INVALID_ARGUMENTS],
  [/^Model tried to call unavailable tool '([^']+)'/, UNKNOWN_TOOL],
];
/** Where LangChain's error text turns into the stack trace it appends. */
const STACK = /\n\s+at /;

/** Whether a text may hold a refusal (a cheap test before reading messages). */
export function mayHoldRefusal(s: string): boolean {
  return s.includes('Error invoking tool') || s.includes('is not a valid tool') || s.includes('Invalid input for tool') || s.includes('unavailable tool');
}

/** One input message (or one tool response of it), as the conventions give it. */
export interface InputMessage {
  role: string | null;
  text: string | null;
  /** The tool call a tool message answers. */
  callId: string | null;
  /** An assistant message's tool calls: id and arguments (JSON text). */
  calls: { id: string; arguments: string | null }[] | null;
}

/** The refused calls answered by the tool messages after the last assistant message, or null. */
export function refusedCalls(span: NormSpan, messages: readonly InputMessage[]): ImpliedAttempt[] | null {
  let last = messages.length - 1;
  while (last >= 0 && messages[last]?.role !== 'assistant') last--;
  if (last < 0) return null;
  const calls = (messages[last] as InputMessage).calls;
  let out: ImpliedAttempt[] | null = null;
  for (let i = last + 1; i < messages.length; i++) {
    const msg = messages[i] as InputMessage;
    if (msg.role !== 'tool' || msg.text === null) continue;
    const r = refusal(span, msg, i, calls);
    if (r === null) continue;
    if (out === null) out = [r];
    else out.push(r);
  }
  return out;
}

function refusal(span: NormSpan, msg: InputMessage, index: number, calls: InputMessage['calls']): ImpliedAttempt | null {
  const text = msg.text as string;
  for (const [pattern, failureClass] of REFUSALS) {
    const match = pattern.exec(text);
    if (match === null) continue;
    const stack = STACK.exec(text);
    const call = msg.callId === null ? undefined : calls?.find((c) => c.id === msg.callId);
    return {
      spanId: derivedSpanId(span, msg.callId ?? `refusal/${index}`),
      toolCallSpanId: null,
      toolName: match[1] as string,
      callId: msg.callId,
      arguments: call?.arguments ?? match[2] ?? null,
      outcome: 'rejected',
      failureClass,
      reason: (stack === null ? text : text.slice(0, stack.index)).trimEnd(),
      errorType: null,
    };
  }
  return null;
}

const OI_PREFIX = 'llm.input_messages.';

/**
 * OpenInference's flattened input messages: `llm.input_messages.{i}.message.role|content|tool_call_id`,
 * an assistant message's `...message.tool_calls.{j}.tool_call.id|function.arguments`.
 */
export function openInferenceMessages(a: Attributes): InputMessage[] {
  const out: InputMessage[] = [];
  for (let i = 0; ; i++) {
    const m = `${OI_PREFIX}${i}.message.`;
    const role = str(a, `${m}role`);
    if (role === null) return out;
    let calls: InputMessage['calls'] = null;
    if (role === 'assistant') {
      for (let j = 0; ; j++) {
        const id = str(a, `${m}tool_calls.${j}.tool_call.id`);
        if (id === null) break;
        const call = { id, arguments: str(a, `${m}tool_calls.${j}.tool_call.function.arguments`) };
        if (calls === null) calls = [call];
        else calls.push(call);
      }
    }
    out.push({ role, text: str(a, `${m}content`), callId: str(a, `${m}tool_call_id`), calls });
  }
}

interface GenAiPart {
  type?: unknown;
  content?: unknown;
  response?: unknown;
  id?: unknown;
  arguments?: unknown;
}

const json = (v: unknown): string | null => (v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v));

/**
 * The GenAI conventions' `gen_ai.input.messages` (JSON: `[{role, parts: [...]}]`): a tool
 * message gives one entry per `tool_call_response` part (its id and response) or `text` part;
 * an assistant message its `tool_call` parts. Null when the value is not that JSON (truncated,
 * or another shape).
 */
export function genAiMessages(value: string): InputMessage[] | null {
  let messages: unknown;
  try {
    messages = JSON.parse(value);
  } catch {
    return null;
  }
  if (!Array.isArray(messages)) return null;
  const out: InputMessage[] = [];
  for (const m of messages) {
    const msg = (m !== null && typeof m === 'object' ? m : {}) as { role?: unknown; parts?: unknown };
    const role = typeof msg.role === 'string' ? msg.role : null;
    const parts = (Array.isArray(msg.parts) ? msg.parts : []).filter((p): p is GenAiPart => p !== null && typeof p === 'object');
    if (role === 'tool') {
      for (const p of parts) {
        const text = p.type === 'tool_call_response' ? json(p.response) : p.type === 'text' && typeof p.content === 'string' ? p.content : null;
        out.push({ role, text, callId: typeof p.id === 'string' ? p.id : null, calls: null });
      }
      continue;
    }
    const calls = parts.filter((p) => p.type === 'tool_call' && typeof p.id === 'string').map((p) => ({ id: p.id as string, arguments: json(p.arguments) }));
    out.push({ role, text: null, callId: null, calls: calls.length === 0 ? null : calls });
  }
  return out;
}
