/**
 * Provider message formats without an SDK dependency: run the tool calls of an OpenAI
 * (Chat Completions or Responses) or Anthropic (Messages) response through the guards and
 * get back the tool-result messages to append, feedback included.
 */
import { z } from 'zod';
import type { Guardtrace } from '../guardtrace.ts';
import type { Session } from '../session.ts';
import type { CallFailure, CallResult, ModelCall } from '../types.ts';
import { modelText as contentOf } from './model-text.ts';

function schemaOf(gt: Guardtrace, name: string): Record<string, unknown> {
  const t = gt.getTool(name);
  try {
    return t ? (z.toJSONSchema(t.schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>) : { type: 'object' };
  } catch {
    return { type: 'object' };
  }
}

/** What a batch of tool calls produced; `repairs` is the failure the next model turn repairs. */
export interface ToolRun<M> {
  messages: M[];
  results: CallResult[];
  repairs: CallFailure | undefined;
}

// ---------------------------------------------------------------- OpenAI

export interface OpenAIToolCall {
  id: string;
  type?: 'function';
  function: { name: string; arguments: string };
}
export interface OpenAIToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}
export interface OpenAIFunctionCallItem {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
}
export interface OpenAIFunctionCallOutput {
  type: 'function_call_output';
  call_id: string;
  output: string;
}

/** `tools` for Chat Completions, from the registered tools. */
export function openAITools(gt: Guardtrace): { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }[] {
  return gt.tools().map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: schemaOf(gt, t.name) } }));
}

/** Runs an assistant message's `tool_calls` (Chat Completions) in order; returns the `role: "tool"` messages. */
export async function runOpenAIToolCalls(session: Session, message: { tool_calls?: OpenAIToolCall[] | null }): Promise<ToolRun<OpenAIToolMessage>> {
  const out: ToolRun<OpenAIToolMessage> = { messages: [], results: [], repairs: undefined };
  for (const c of message.tool_calls ?? []) {
    const r = await session.callTool(c.function.name, c.function.arguments, { callId: c.id });
    out.results.push(r);
    if (!r.ok) out.repairs ??= r;
    out.messages.push({ role: 'tool', tool_call_id: c.id, content: contentOf(r) });
  }
  return out;
}

/** Runs the `function_call` items of a Responses API output; returns `function_call_output` items. */
export async function runOpenAIResponseCalls(session: Session, output: { type: string }[]): Promise<ToolRun<OpenAIFunctionCallOutput>> {
  const out: ToolRun<OpenAIFunctionCallOutput> = { messages: [], results: [], repairs: undefined };
  for (const item of output) {
    if (item.type !== 'function_call') continue;
    const c = item as OpenAIFunctionCallItem;
    const r = await session.callTool(c.name, c.arguments, { callId: c.call_id });
    out.results.push(r);
    if (!r.ok) out.repairs ??= r;
    out.messages.push({ type: 'function_call_output', call_id: c.call_id, output: contentOf(r) });
  }
  return out;
}

interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  input_tokens?: number;
  output_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  input_tokens_details?: { cached_tokens?: number } | null;
}

/** Records an OpenAI response's usage (Chat Completions or Responses field names). */
export function recordOpenAIUsage(
  session: Session,
  response: { model?: string; usage?: OpenAIUsage | null },
  opts: { model?: string; repairs?: CallFailure | undefined } = {},
): void {
  const u = response.usage ?? {};
  const call: ModelCall = {
    model: opts.model ?? response.model ?? 'unknown',
    provider: 'openai',
    inputTokens: u.prompt_tokens ?? u.input_tokens ?? 0,
    outputTokens: u.completion_tokens ?? u.output_tokens ?? 0,
  };
  // Cached prompt tokens, part of the input tokens (Chat Completions' and Responses' names).
  const cached = u.prompt_tokens_details?.cached_tokens ?? u.input_tokens_details?.cached_tokens;
  if (cached) call.cachedInputTokens = cached;
  if (response.model) call.responseModel = response.model;
  if (opts.repairs) call.repairs = opts.repairs;
  session.recordModelCall(call);
}

// ---------------------------------------------------------------- Anthropic

export interface AnthropicToolUse {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}
export interface AnthropicToolResult {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

/** `tools` for the Messages API, from the registered tools. */
export function anthropicTools(gt: Guardtrace): { name: string; description: string; input_schema: Record<string, unknown> }[] {
  return gt.tools().map((t) => ({ name: t.name, description: t.description, input_schema: schemaOf(gt, t.name) }));
}

/** Runs the `tool_use` blocks of an assistant message; returns one user message with the `tool_result` blocks. */
export async function runAnthropicToolUses(
  session: Session,
  message: { content: { type: string }[] },
): Promise<ToolRun<{ role: 'user'; content: AnthropicToolResult[] }>> {
  const blocks: AnthropicToolResult[] = [];
  const out: ToolRun<{ role: 'user'; content: AnthropicToolResult[] }> = { messages: [], results: [], repairs: undefined };
  for (const block of message.content) {
    if (block.type !== 'tool_use') continue;
    const u = block as AnthropicToolUse;
    const r = await session.callTool(u.name, u.input, { callId: u.id });
    out.results.push(r);
    if (!r.ok) out.repairs ??= r;
    const res: AnthropicToolResult = { type: 'tool_result', tool_use_id: u.id, content: contentOf(r) };
    if (!r.ok) res.is_error = true;
    blocks.push(res);
  }
  if (blocks.length > 0) out.messages.push({ role: 'user', content: blocks });
  return out;
}

/** The usage of an Anthropic Messages API response (prompt-cache fields beside the input). */
export interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/**
 * Records an Anthropic response's usage. Anthropic reports prompt-cache reads and writes beside
 * `input_tokens` (which counts only the rest of the prompt): the call's input is their sum, with the
 * cache reads as its cached part (cache writes are priced as ordinary input).
 */
export function recordAnthropicUsage(
  session: Session,
  response: { model?: string; usage?: AnthropicUsage | null },
  opts: { repairs?: CallFailure | undefined } = {},
): void {
  const u = response.usage ?? {};
  const cached = u.cache_read_input_tokens ?? 0;
  const call: ModelCall = {
    model: response.model ?? 'unknown',
    provider: 'anthropic',
    inputTokens: (u.input_tokens ?? 0) + cached + (u.cache_creation_input_tokens ?? 0),
    outputTokens: u.output_tokens ?? 0,
  };
  if (cached > 0) call.cachedInputTokens = cached;
  if (opts.repairs) call.repairs = opts.repairs;
  session.recordModelCall(call);
}
