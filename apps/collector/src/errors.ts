/**
 * One error type for every answer that is not a 200. It knows its HTTP status, the
 * google.rpc.Status code OTLP clients expect, and (for 429/503) when to come back.
 * A single handler in app.ts turns it into a response in the request's encoding.
 */

/** google.rpc.Code values used in OTLP error bodies. */
export const RpcCode = {
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
  UNIMPLEMENTED: 12,
} as const;

const RPC_BY_STATUS: Record<number, number> = {
  400: RpcCode.INVALID_ARGUMENT,
  401: RpcCode.UNAUTHENTICATED,
  403: RpcCode.PERMISSION_DENIED,
  404: RpcCode.UNIMPLEMENTED,
  408: RpcCode.DEADLINE_EXCEEDED,
  413: RpcCode.RESOURCE_EXHAUSTED,
  415: RpcCode.INVALID_ARGUMENT,
  429: RpcCode.RESOURCE_EXHAUSTED,
  503: RpcCode.UNAVAILABLE,
};

export class CollectorError extends Error {
  readonly status: number;
  /** Seconds the client should wait before retrying (429 and 503 only). */
  readonly retryAfter?: number;

  constructor(status: number, message: string, opts: { retryAfter?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'CollectorError';
    this.status = status;
    this.retryAfter = opts.retryAfter;
  }

  get rpcCode(): number {
    return RPC_BY_STATUS[this.status] ?? RpcCode.INTERNAL;
  }

  static badRequest(message: string): CollectorError {
    return new CollectorError(400, message);
  }
  static unavailable(message: string, retryAfter: number, cause?: unknown): CollectorError {
    return new CollectorError(503, message, { retryAfter, cause });
  }
  static tooMany(message: string, retryAfter: number): CollectorError {
    return new CollectorError(429, message, { retryAfter });
  }
}

/** Any thrown value as a CollectorError: fastify's own errors keep their 4xx status. */
export function toCollectorError(err: unknown): CollectorError {
  if (err instanceof CollectorError) return err;
  const e = err as { statusCode?: number; message?: string; code?: string };
  const status = typeof e?.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 400 && status < 500) return new CollectorError(status, fastifyMessage(e), { cause: err });
  return new CollectorError(500, 'internal error', { cause: err });
}

function fastifyMessage(e: { message?: string; code?: string }): string {
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'unsupported Content-Type: send application/x-protobuf or application/json';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'request body too large';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'empty JSON body';
    default:
      return e.message ?? 'bad request';
  }
}
