import type { FailureClass } from '@guardtrace/semconv';
import { Fatal, FeedbackRequired, GuardViolation, ToolTimeout, TransientFailure } from './errors.ts';
import type { ToolFlags } from './types.ts';

export interface Classification {
  failureClass: FailureClass;
  /** Value for `error.type`: an error code, an HTTP status, or the error's name. */
  errorType: string;
  message: string;
  retryAfterMs?: number;
}

/** Error codes of a connection that broke or a wait that ran out: the request may have been processed. */
const AMBIGUOUS_CODES = new Set(['ECONNRESET', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT']);
/** Error codes of a request that never reached the server: safe to retry for any tool. */
const UNSENT_CODES = new Set(['ECONNREFUSED', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
/** Statuses that say "not processed, try later". */
const RETRY_LATER_STATUSES = new Set([429, 503]);
/** Gateway errors: the upstream may or may not have processed the request. */
const AMBIGUOUS_STATUSES = new Set([502, 504, 408]);

function field(err: unknown, key: string): unknown {
  return typeof err === 'object' && err !== null ? (err as Record<string, unknown>)[key] : undefined;
}

function statusOf(err: unknown): number | undefined {
  for (const v of [field(err, 'status'), field(err, 'statusCode'), field(field(err, 'response'), 'status')]) {
    if (typeof v === 'number') return v;
  }
  return undefined;
}

function retryAfterOf(err: unknown): number | undefined {
  const direct = field(err, 'retryAfterMs');
  if (typeof direct === 'number') return direct;
  const headers = field(err, 'headers') ?? field(field(err, 'response'), 'headers');
  let raw: unknown;
  if (headers && typeof (headers as { get?: unknown }).get === 'function') {
    raw = (headers as { get(k: string): unknown }).get('retry-after');
  } else if (headers && typeof headers === 'object') {
    raw = (headers as Record<string, unknown>)['retry-after'] ?? (headers as Record<string, unknown>)['Retry-After'];
  }
  return parseRetryAfter(raw);
}

/** Parses a Retry-After header (seconds or HTTP date) into ms. */
export function parseRetryAfter(raw: unknown, now: number = Date.now()): number | undefined {
  if (typeof raw === 'number') return raw * 1000;
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  const secs = Number(raw);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function isTimeout(err: unknown, code: unknown): boolean {
  if (err instanceof ToolTimeout) return true;
  const name = field(err, 'name');
  return code === 'ETIMEDOUT' || name === 'TimeoutError' || (name === 'AbortError' && /time/i.test(String(field(err, 'message'))));
}

/**
 * Classifies a thrown error. The tool's flags decide whether a broken connection or a
 * timeout is transient (safe to retry) or an uncertain side effect (never retried).
 */
export function classifyError(err: unknown, flags: ToolFlags = {}): Classification {
  const message = err instanceof Error ? err.message : String(err);
  const idempotent = Boolean(flags.readOnly || flags.idempotent);
  if (err instanceof GuardViolation) return { failureClass: 'guard_violation', errorType: err.name, message };
  if (err instanceof FeedbackRequired) return { failureClass: 'execution_feedback', errorType: err.name, message: err.feedback };
  if (err instanceof Fatal) return { failureClass: 'fatal', errorType: err.name, message };
  if (err instanceof TransientFailure) {
    const out: Classification = { failureClass: 'transient', errorType: err.name, message };
    if (err.retryAfterMs !== undefined) out.retryAfterMs = err.retryAfterMs;
    return out;
  }
  const code = field(err, 'code');
  const status = statusOf(err);
  if (isTimeout(err, code) || (typeof code === 'string' && AMBIGUOUS_CODES.has(code))) {
    const errorType = typeof code === 'string' ? code : 'timeout';
    return { failureClass: idempotent ? 'transient' : 'uncertain_side_effect', errorType, message };
  }
  if (typeof code === 'string' && UNSENT_CODES.has(code)) return { failureClass: 'transient', errorType: code, message };
  if (code === 'ENOENT' || status === 404) return { failureClass: 'missing_resource', errorType: String(code ?? status), message };
  if (code === 'EACCES' || code === 'EPERM') return { failureClass: 'guard_violation', errorType: String(code), message };
  if (status !== undefined) {
    const errorType = String(status);
    if (RETRY_LATER_STATUSES.has(status)) {
      const out: Classification = { failureClass: 'transient', errorType, message };
      const ra = retryAfterOf(err);
      if (ra !== undefined) out.retryAfterMs = ra;
      return out;
    }
    if (AMBIGUOUS_STATUSES.has(status)) return { failureClass: idempotent ? 'transient' : 'uncertain_side_effect', errorType, message };
    if (status === 401) return { failureClass: 'fatal', errorType, message };
    if (status === 403 || status === 409 || status === 422) return { failureClass: 'guard_violation', errorType, message };
    if (status >= 500) return { failureClass: 'transient', errorType, message };
    if (status >= 400) return { failureClass: 'guard_violation', errorType, message };
  }
  // Unrecognised error: safe to retry when idempotent; an external side effect may have
  // happened; a local non-idempotent tool that threw is reported back for a replan.
  const errorType = err instanceof Error ? err.name : typeof err;
  const failureClass: FailureClass = idempotent ? 'transient' : flags.external ? 'uncertain_side_effect' : 'guard_violation';
  return { failureClass, errorType, message };
}
