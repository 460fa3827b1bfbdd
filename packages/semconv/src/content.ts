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
