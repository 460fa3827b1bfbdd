/**
 * The failure class of a failed tool call of another instrumentation (no `guardtrace.*`
 * attributes): its `error.type` and error text read against the table below, the same errors
 * the SDK's own classifier recognises, else `tool_error`. Documented in
 * docs/semantic-conventions.md ("Failed tool calls of other instrumentations").
 */
import type { FailureClass } from '@guardtrace/semconv';

/** First match wins; each pattern is tried on `error.type` and on the error text (`Type: message`). */
const TABLE: readonly (readonly [RegExp, FailureClass])[] = [
  // Schema validation (zod, AI SDK's InvalidToolInputError, LangChain's ToolInputParsingException).
  [/\b(ZodError|InvalidToolInputError|ToolInputParsingException|ValidationError)\b|did not match expected schema|Type validation failed/, 'invalid_arguments'],
  [/\bNoSuchToolError\b|\bunavailable tool\b|\bunknown tool\b|\btool not found\b/i, 'unknown_tool'],
  [/\bENOENT\b|\bno such file\b|\b404\b|\bnot found\b/i, 'missing_resource'],
  [/\b(401|Unauthorized|Unauthenticated)\b|\binvalid api key\b/i, 'fatal'],
  [/\b(EACCES|EPERM|403|Forbidden|PermissionDenied)\b|permission denied/i, 'guard_violation'],
  [
    /\b(ETIMEDOUT|ECONNRESET|ECONNREFUSED|EAI_AGAIN|EPIPE|TimeoutError|AbortError|RateLimitError|429|500|502|503|504)\b|\btimed? ?out\b|\brate limit|\btemporarily unavailable\b/i,
    'transient',
  ],
];

const TOOL_ERROR: FailureClass = 'tool_error';

/** The class of a failed tool call from its error type and reason (either may be null). */
export function toolFailureClass(errorType: string | null, reason: string | null): FailureClass {
  for (const [pattern, cls] of TABLE) {
    if ((errorType !== null && pattern.test(errorType)) || (reason !== null && pattern.test(reason))) return cls;
  }
  return TOOL_ERROR;
}
