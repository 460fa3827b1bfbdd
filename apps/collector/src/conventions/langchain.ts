/**
 * Tool calls LangChain's agents refuse before running a tool (langchain 1.x `ToolNode`): input
 * that fails the tool's schema (a ToolInputParsingException, wrapped in a ToolInvocationError:
 * `Error invoking tool 'NAME' with kwargs {...} with error: ...`) and a tool the agent does not
 * have (`Error: NAME is not a valid tool, try one of [...]`). No tool span is started for either:
 * the agent answers the model with an error ToolMessage, which the next model call's span records
 * among its input messages, whichever instrumentation wrote it (OpenInference's
 * `llm.input_messages.*`, the GenAI conventions' `gen_ai.input.messages`). Read from the messages
 * after the last assistant message (so each is read once, on the step right after it), they
 * become rejected attempts, as the Vercel AI SDK's refusals do (vercel-ai.ts).
 */
import type { FailureClass } from '@guardtrace/semconv';
import type { Attributes, NormSpan } from '../span.ts';
import type { ImpliedAttempt } from './meaning.ts';
import { derivedSpanId, str } from './read.ts';

const INVALID_INPUT = /^Error invoking tool '([^']+)' with kwargs (.*?) with error: /s;
const NO_SUCH_TOOL = /^Error: (.+?) is not a valid tool, try one of \[/s;
/** Where LangChain's error text turns into the stack trace it appends. */
const STACK = /\n\s+at /;
const INVALID_ARGUMENTS: FailureClass = 'invalid_arguments';
const UNKNOWN_TOOL: FailureClass = 'unknown_tool';

/** Whether a text may hold a refusal (a cheap test before reading messages). */
export function mayHoldRefusal(s: string): boolean {
  return s.includes('Error invoking tool') || s.includes('is not a valid tool');
}

/** One input message, as the conventions give it: its role, its text, its tool call id. */
export interface InputMessage {
  role: string | null;
  text: string | null;
  callId: string | null;
}

/** The refused calls answered by the tool messages after the last assistant message, or null. */
export function refusedCalls(span: NormSpan, messages: readonly InputMessage[]): ImpliedAttempt[] | null {
  let last = messages.length - 1;
  while (last >= 0 && messages[last]?.role !== 'assistant') last--;
  if (last < 0) return null;
  let out: ImpliedAttempt[] | null = null;
  for (let i = last + 1; i < messages.length; i++) {
    const msg = messages[i] as InputMessage;
    if (msg.role !== 'tool' || msg.text === null) continue;
    const r = refusal(span, msg, i);
    if (r === null) continue;
    if (out === null) out = [r];
    else out.push(r);
  }
  return out;
}

function refusal(span: NormSpan, msg: InputMessage, index: number): ImpliedAttempt | null {
  const text = msg.text as string;
  const invalid = INVALID_INPUT.exec(text);
  const unknown = invalid === null ? NO_SUCH_TOOL.exec(text) : null;
  if (invalid === null && unknown === null) return null;
  const stack = STACK.exec(text);
  return {
    spanId: derivedSpanId(span, msg.callId ?? `langchain-refusal/${index}`),
    toolCallSpanId: null,
    toolName: ((invalid ?? unknown) as RegExpExecArray)[1] as string,
    callId: msg.callId,
    arguments: invalid === null ? null : (invalid[2] as string),
    outcome: 'rejected',
    failureClass: invalid !== null ? INVALID_ARGUMENTS : UNKNOWN_TOOL,
    reason: (stack === null ? text : text.slice(0, stack.index)).trimEnd(),
    errorType: null,
  };
}

const OI_PREFIX = 'llm.input_messages.';

/** OpenInference's flattened input messages (`llm.input_messages.{i}.message.role|content|tool_call_id`). */
export function openInferenceMessages(a: Attributes): InputMessage[] {
  const out: InputMessage[] = [];
  for (let i = 0; ; i++) {
    const role = str(a, `${OI_PREFIX}${i}.message.role`);
    if (role === null) return out;
    out.push({ role, text: str(a, `${OI_PREFIX}${i}.message.content`), callId: str(a, `${OI_PREFIX}${i}.message.tool_call_id`) });
  }
}

interface GenAiPart {
  type?: unknown;
  content?: unknown;
  response?: unknown;
  id?: unknown;
}

/**
 * The GenAI conventions' `gen_ai.input.messages` (JSON: `[{role, parts: [...]}]`): a message's
 * text is its `text` parts' content or its `tool_call_response` part's response; null when the
 * value is not that JSON (truncated, or another shape).
 */
export function genAiMessages(json: string): InputMessage[] | null {
  let messages: unknown;
  try {
    messages = JSON.parse(json);
  } catch {
    return null;
  }
  if (!Array.isArray(messages)) return null;
  return messages.map((m): InputMessage => {
    const msg = (m !== null && typeof m === 'object' ? m : {}) as { role?: unknown; parts?: unknown };
    let text: string | null = null;
    let callId: string | null = null;
    if (Array.isArray(msg.parts)) {
      for (const p of msg.parts as GenAiPart[]) {
        if (p === null || typeof p !== 'object') continue;
        const t = p.type === 'text' ? p.content : p.type === 'tool_call_response' ? p.response : undefined;
        if (typeof t === 'string') text = text === null ? t : `${text}${t}`;
        if (typeof p.id === 'string') callId ??= p.id;
      }
    }
    return { role: typeof msg.role === 'string' ? msg.role : null, text, callId };
  });
}
