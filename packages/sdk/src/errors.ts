/**
 * Errors a tool may throw to tell the policy what kind of failure it is. Anything else thrown
 * is classified by `classifyError` (error codes, HTTP statuses, timeouts).
 */

/** Deterministic failure: will not change without new information. Not retried; the agent replans. */
export class GuardViolation extends Error {
  override readonly name = 'GuardViolation';
}

/** Worth retrying with backoff (network, 429, 5xx). `retryAfterMs` is honoured as a minimum wait. */
export class TransientFailure extends Error {
  override readonly name = 'TransientFailure';
  readonly retryAfterMs: number | undefined;
  constructor(message: string, options?: { retryAfterMs?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/** The model can fix it given this output (compile, lint, test): retried with the output as feedback. */
export class FeedbackRequired extends Error {
  override readonly name = 'FeedbackRequired';
  readonly feedback: string;
  constructor(feedback: string, options?: { cause?: unknown }) {
    super(feedback, options?.cause === undefined ? undefined : { cause: options.cause });
    this.feedback = feedback;
  }
}

/** Credentials, configuration, corruption: stop. */
export class Fatal extends Error {
  override readonly name = 'Fatal';
}

/** Thrown by the runtime into the tool's signal when `timeoutMs` elapses. */
export class ToolTimeout extends Error {
  override readonly name = 'ToolTimeout';
  readonly code = 'ETIMEDOUT';
  constructor(ms: number) {
    super(`Tool call timed out after ${ms} ms`);
  }
}
