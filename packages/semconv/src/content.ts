/**
 * Where each instrumentation puts a model call's prompt and output and a tool call's result:
 * span attribute keys in order of precedence (the first present, non-empty one is the value).
 * The replay reads these from the stored spans; they are conventions' facts like the rest of
 * this package (docs/semantic-conventions.md, "Content of other instrumentations").
 */

/**
 * A model call's prompt: GenAI (and Traceloop 0.27), the Vercel AI SDK's `ai.prompt.messages`,
 * OpenInference's `input.value`, LangSmith's OpenTelemetry export (`gen_ai.prompt` as a span
 * attribute: the run's inputs as JSON, on every run type).
 */
export const MODEL_INPUT_KEYS = ['gen_ai.input.messages', 'ai.prompt.messages', 'input.value', 'gen_ai.prompt'] as const;

/**
 * A model call's output: GenAI's, the Vercel AI SDK's text (else its tool calls, on a step that
 * only called tools), OpenInference's `output.value`, LangSmith's `gen_ai.completion` (the run's outputs).
 */
export const MODEL_OUTPUT_KEYS = ['gen_ai.output.messages', 'ai.response.text', 'ai.response.toolCalls', 'output.value', 'gen_ai.completion'] as const;

/**
 * A tool call's result: GenAI's `gen_ai.tool.call.result` (the SDK's too), the Vercel AI SDK's
 * `ai.toolCall.result` (ai 6; `ai.toolCall.output` where a release names it so), OpenInference's
 * `output.value`, Traceloop's `traceloop.entity.output`, LangSmith's `gen_ai.completion`.
 */
export const TOOL_RESULT_KEYS = ['gen_ai.tool.call.result', 'ai.toolCall.result', 'ai.toolCall.output', 'output.value', 'traceloop.entity.output', 'gen_ai.completion'] as const;

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

/**
 * Content in log records: the OpenTelemetry GenAI instrumentations (@opentelemetry/instrumentation-openai,
 * opentelemetry-instrumentation-openai-v2 and the Python genai util) put a model call's prompt and
 * completion in OTLP log records ("events") carrying the model call's trace and span ids, not on
 * its span. The collector keeps them (POST /v1/logs, table genai_events); the replay reads them
 * where the span has no content of its own. Semconv 1.28-1.36: one event per prompt message (its
 * role is the name's second part; the body holds `content`, `tool_calls`, a tool message's `id`)
 * and one `gen_ai.choice` per completion choice (body: `index`, `finish_reason`, `message`).
 */
export const MODEL_INPUT_LOG_EVENTS = ['gen_ai.system.message', 'gen_ai.user.message', 'gen_ai.assistant.message', 'gen_ai.tool.message'] as const;
export const MODEL_OUTPUT_LOG_EVENT = 'gen_ai.choice';
/**
 * Semconv 1.37+: one `gen_ai.client.inference.operation.details` event per call, with the span's
 * content attributes (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`).
 */
export const MODEL_DETAILS_LOG_EVENT = {
  name: 'gen_ai.client.inference.operation.details',
  input: 'gen_ai.input.messages',
  output: 'gen_ai.output.messages',
  instructions: 'gen_ai.system_instructions',
} as const;
