/**
 * The only reader of process.env. Parsed once at start-up with zod; a bad value stops the
 * process with a message naming the variable.
 */

import { databaseUrlProblem } from '@guardtrace/db/database-url';
import { z } from 'zod';
import { DEFAULT_LIMITS, type Limits } from './limits.ts';
import type { RedactionOptions, ValueRule } from './redact.ts';

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const bool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(def ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

const regex = (src: string, flags: string) => {
  try {
    return new RegExp(src, flags);
  } catch (err) {
    throw new Error(`invalid regular expression /${src}/: ${(err as Error).message}`);
  }
};

const schema = z.object({
  // 4318: the OTLP/HTTP port every OpenTelemetry exporter defaults to.
  PORT: int(4318).pipe(z.number().max(65_535)),
  // Loopback by default: exposing ingest to the network is an explicit choice.
  HOST: z.string().min(1).default('127.0.0.1'),
  // Required: the collector never starts a database of its own (`npm start` hands it one).
  DATABASE_URL: z
    .string({ error: 'is required: set it to the postgres:// URL of the Guardtrace database' })
    .min(1, 'is required: set it to the postgres:// URL of the Guardtrace database')
    .superRefine((v, ctx) => {
      const problem = databaseUrlProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  /** false: the collector does not migrate at start (run guardtrace-migrate before it). */
  GUARDTRACE_MIGRATE_ON_START: bool(true),
  /** Days a session is kept after it ended, for projects without a retention of their own (set in the app); unset: forever. */
  GUARDTRACE_RETENTION_DAYS: z.coerce.number().int().min(1).optional(),
  // 60 s: the issue's "once a minute"; windows are whole minutes, so evaluating more often adds little. 0: no alerts here.
  GUARDTRACE_ALERTS_INTERVAL_SECONDS: z.coerce.number().min(0).max(3600).default(60),
  /** Where browsers reach the web app (the web's own variable), for the alerts' links to the explorer and the replay; unset: the links are paths. */
  GUARDTRACE_BASE_URL: z.string().url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  COLLECTOR_MAX_BODY_BYTES: int(DEFAULT_LIMITS.maxBodyBytes, 1024),
  COLLECTOR_MAX_INFLIGHT_BYTES: int(DEFAULT_LIMITS.maxInFlightBytes, 1024),
  COLLECTOR_MAX_INFLIGHT_BYTES_PER_PROJECT: int(DEFAULT_LIMITS.maxInFlightBytesPerProject),
  COLLECTOR_MAX_INFLIGHT_BYTES_PER_KEY: int(DEFAULT_LIMITS.maxInFlightBytesPerKey),
  COLLECTOR_MAX_BATCH_SPANS: int(DEFAULT_LIMITS.maxBatchSpans, 1),
  COLLECTOR_MAX_QUEUE_SPANS: int(DEFAULT_LIMITS.maxQueueSpans, 1),
  COLLECTOR_WRITER_CONCURRENCY: int(DEFAULT_LIMITS.writerConcurrency, 1),
  COLLECTOR_RETRY_AFTER_SECONDS: int(DEFAULT_LIMITS.retryAfterSeconds, 1),
  COLLECTOR_RATE_LIMIT_RPS: int(DEFAULT_LIMITS.rateLimitPerSecond),
  COLLECTOR_RATE_LIMIT_BURST: int(DEFAULT_LIMITS.rateLimitBurst, 1),
  COLLECTOR_KEY_CACHE_TTL_MS: int(DEFAULT_LIMITS.keyCacheTtlMs),
  COLLECTOR_BODY_TIMEOUT_MS: int(DEFAULT_LIMITS.bodyTimeoutMs),
  COLLECTOR_MAX_DISCARD_BYTES: int(DEFAULT_LIMITS.maxDiscardBytes),
  COLLECTOR_DB_TIMEOUT_MS: int(DEFAULT_LIMITS.dbTimeoutMs, 100),
  COLLECTOR_SAMPLING_DECISION_WAIT_MS: int(DEFAULT_LIMITS.samplingDecisionWaitMs),
  // 30 s: a third of systemd's default TimeoutStopSec (90 s), so the drain ends (and answers what
  // is left 503) well before systemd's SIGKILL; and the default body timeout (30 s), so a slow
  // body that arrived just before SIGTERM is usually read to its end rather than cut.
  COLLECTOR_DRAIN_TIMEOUT_SECONDS: int(30, 1),
  GUARDTRACE_REDACT_DEFAULTS: bool(true),
  /** Comma-separated regexes matched (case-insensitive) against attribute keys. */
  GUARDTRACE_REDACT_KEYS: z
    .string()
    .default('')
    .transform((s, ctx) => {
      try {
        return s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean)
          .map((x) => regex(x, 'i'));
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  /** `name=regex` pairs separated by `;;` (a named group `secret` limits what is replaced). */
  GUARDTRACE_REDACT_VALUES: z
    .string()
    .default('')
    .transform((s, ctx) => {
      try {
        return s
          .split(';;')
          .map((x) => x.trim())
          .filter(Boolean)
          .map((pair): ValueRule => {
            const eq = pair.indexOf('=');
            if (eq <= 0) throw new Error(`expected name=regex, got "${pair}"`);
            return { name: pair.slice(0, eq).trim(), pattern: regex(pair.slice(eq + 1), 'g') };
          });
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
});

export interface CollectorEnv {
  port: number;
  host: string;
  databaseUrl: string;
  migrateOnStart: boolean;
  logLevel: string;
  retentionDays?: number;
  /** How long a SIGTERM/SIGINT drain may take before what is unanswered gets 503 (src/drain.ts). */
  drainTimeoutMs: number;
  /** Alert evaluation interval (0: off) and the web's base URL for their links (src/alerts). */
  alerts: { intervalMs: number; webUrl: string | null };
  limits: Limits;
  redaction: RedactionOptions;
}

/** guardtrace-migrate's environment: only DATABASE_URL, which migrateCommand checks itself. */
export function migrateEnv(env: NodeJS.ProcessEnv = process.env): { databaseUrl: string | undefined } {
  return { databaseUrl: env.DATABASE_URL || undefined };
}

export function parseEnv(env: NodeJS.ProcessEnv = process.env): CollectorEnv {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  let e: z.infer<typeof schema>;
  try {
    e = schema.parse(cleaned);
  } catch (err) {
    if (err instanceof z.ZodError) {
      const lines = err.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
      throw new Error(`invalid collector environment:\n${lines.join('\n')}`);
    }
    throw err;
  }
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    migrateOnStart: e.GUARDTRACE_MIGRATE_ON_START,
    logLevel: e.LOG_LEVEL,
    retentionDays: e.GUARDTRACE_RETENTION_DAYS,
    drainTimeoutMs: e.COLLECTOR_DRAIN_TIMEOUT_SECONDS * 1000,
    alerts: { intervalMs: e.GUARDTRACE_ALERTS_INTERVAL_SECONDS * 1000, webUrl: e.GUARDTRACE_BASE_URL ?? null },
    limits: {
      maxBodyBytes: e.COLLECTOR_MAX_BODY_BYTES,
      maxInFlightBytes: e.COLLECTOR_MAX_INFLIGHT_BYTES,
      maxInFlightBytesPerProject: e.COLLECTOR_MAX_INFLIGHT_BYTES_PER_PROJECT,
      maxInFlightBytesPerKey: e.COLLECTOR_MAX_INFLIGHT_BYTES_PER_KEY,
      maxBatchSpans: e.COLLECTOR_MAX_BATCH_SPANS,
      maxQueueSpans: e.COLLECTOR_MAX_QUEUE_SPANS,
      writerConcurrency: e.COLLECTOR_WRITER_CONCURRENCY,
      retryAfterSeconds: e.COLLECTOR_RETRY_AFTER_SECONDS,
      rateLimitPerSecond: e.COLLECTOR_RATE_LIMIT_RPS,
      rateLimitBurst: e.COLLECTOR_RATE_LIMIT_BURST,
      keyCacheTtlMs: e.COLLECTOR_KEY_CACHE_TTL_MS,
      bodyTimeoutMs: e.COLLECTOR_BODY_TIMEOUT_MS,
      maxDiscardBytes: e.COLLECTOR_MAX_DISCARD_BYTES,
      dbTimeoutMs: e.COLLECTOR_DB_TIMEOUT_MS,
      samplingDecisionWaitMs: e.COLLECTOR_SAMPLING_DECISION_WAIT_MS,
    },
    redaction: {
      defaults: e.GUARDTRACE_REDACT_DEFAULTS,
      keyPatterns: e.GUARDTRACE_REDACT_KEYS,
      valueRules: e.GUARDTRACE_REDACT_VALUES,
    },
  };
}
