/**
 * What the collector's routes and hooks share, made once per app and passed to each module
 * explicitly (each takes the part it uses): the pool, the key cache, the rate limiter, the
 * redactor, the writer, the in-flight memory bound and the metrics. Nothing here registers a
 * route or a hook: app.ts composes those.
 */
import type { onRequestAsyncHookHandler } from 'fastify';
import type pg from 'pg';
import type { KeyCache, Principal } from '../auth.ts';
import type { GenAiEventStore } from '../genai-events.ts';
import type { Held, InFlightMemory } from '../in-flight.ts';
import type { Limits } from '../limits.ts';
import type { Metrics } from '../metrics.ts';
import type { Encoding } from '../otlp-decode.ts';
import type { RateLimiter } from '../rate-limit.ts';
import type { Redactor } from '../redact.ts';
import type { Writer } from '../writer.ts';

export interface AppContext {
  databaseUrl: string;
  limits: Limits;
  /** A warning in the app's log, with an error's message and code (never its stack or query). */
  log: (msg: string, err?: unknown) => void;
  metrics: Metrics;
  pool: pg.Pool;
  keys: KeyCache;
  limiter: RateLimiter;
  redactor: Redactor;
  writer: Writer;
  /** Where /v1/logs stores its GenAI events (outside the writer's span transactions). */
  events: GenAiEventStore;
  memory: InFlightMemory;
  /** The onRequest hook of the routes that take an API key (http/admission.ts). */
  admit: onRequestAsyncHookHandler;
}

/** What the collector keeps on each request. */
export interface RequestState {
  /** Set by admission: the key's project. */
  principal?: Principal;
  /** Its share of the in-flight memory bound (in-flight.ts). */
  held: Held;
}

declare module 'fastify' {
  interface FastifyRequest {
    gt: RequestState;
  }
}

/** A trace export's body as the content-type parser leaves it: decompressed, with its encoding. */
export interface Parsed {
  encoding: Encoding;
  body: Buffer;
}
