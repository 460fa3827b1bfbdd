/**
 * Where each instrumentation puts a model call's prompt and output and a tool call's result:
 * span attribute keys in order of precedence (the first present, non-empty one is the value).
 * The replay reads these from the stored spans; they are conventions' facts like the rest of
 * this package (docs/semantic-conventions.md, "Content of other instrumentations").
 */

/** A model call's prompt: GenAI (and Traceloop 0.27), the Vercel AI SDK's `ai.prompt.messages`, OpenInference's `input.value`. */
export const MODEL_INPUT_KEYS = ['gen_ai.input.messages', 'ai.prompt.messages', 'input.value'] as const;

/**
 * A model call's output: GenAI's, the Vercel AI SDK's text (else its tool calls, on a step that
 * only called tools), OpenInference's `output.value`.
 */
export const MODEL_OUTPUT_KEYS = ['gen_ai.output.messages', 'ai.response.text', 'ai.response.toolCalls', 'output.value'] as const;

/**
 * A tool call's result: GenAI's `gen_ai.tool.call.result` (the SDK's too), the Vercel AI SDK's
 * `ai.toolCall.result` (ai 6; `ai.toolCall.output` where a release names it so), OpenInference's
 * `output.value`, Traceloop's `traceloop.entity.output`.
 */
export const TOOL_RESULT_KEYS = ['gen_ai.tool.call.result', 'ai.toolCall.result', 'ai.toolCall.output', 'output.value', 'traceloop.entity.output'] as const;

/**
 * Older GenAI conventions' content, read where no key above is set. Semantic conventions
 * 1.26-1.27 put the prompt and the completion on span events (`gen_ai.content.prompt` with a
 * `gen_ai.prompt` attribute, `gen_ai.content.completion` with `gen_ai.completion`).
 */
export const MODEL_INPUT_EVENT = { name: 'gen_ai.content.prompt', attribute: 'gen_ai.prompt' } as const;
export const MODEL_OUTPUT_EVENT = { name: 'gen_ai.content.completion', attribute: 'gen_ai.completion' } as const;

/**
 * OpenLLMetry before the GenAI message attributes (its Python instrumentations, its JS ones
 * before 0.25) flattens each message into indexed attributes: `gen_ai.prompt.{i}.role`,
 * `gen_ai.prompt.{i}.content`, `gen_ai.completion.{i}.content`... The replay shows them as a JSON
 * array of messages, one object of each index's fields.
 */
export const MODEL_INPUT_INDEXED_PREFIX = 'gen_ai.prompt';
export const MODEL_OUTPUT_INDEXED_PREFIX = 'gen_ai.completion';
