import { z } from 'zod';

/**
 * The only reader of process.env in apps/web. Parsed with zod once, on first use (not at
 * import), so `next build` does not need a database.
 */
const REQUIRED = 'is required: set it to the Postgres URL of Guardtrace (or run `pnpm start`, which starts one)';

const emptyIsUnset = (v: unknown) => (v === '' ? undefined : v);

const serverSchema = z.object({
  DATABASE_URL: z
    .string({ error: REQUIRED })
    .min(1, REQUIRED)
    .refine((v) => /^postgres(ql)?:\/\//.test(v), 'must be a postgres:// or postgresql:// URL'),
  // The collector as agents reach it, shown where the UI tells how to send traces. The default is
  // where `npm start` runs it; behind a proxy set the public address.
  GUARDTRACE_PUBLIC_COLLECTOR_URL: z.preprocess(
    emptyIsUnset,
    z
      .string()
      .regex(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, 'must be an http:// or https:// URL without query (e.g. https://otel.example.com)')
      .transform((v) => v.replace(/\/+$/, ''))
      .default('http://127.0.0.1:4318'),
  ),
});

const serveSchema = z.object({
  // Required: the production server never starts a database of its own (`npm start` hands it one).
  DATABASE_URL: serverSchema.shape.DATABASE_URL,
  // 3000: the port README and the start orchestrator advertise for the web app.
  PORT: z.coerce.number().int().min(1).max(65_535).default(3000),
  // Loopback by default: without GUARDTRACE_WEB_PASSWORD anyone who reaches the port can use the
  // UI, keys included. (Not HOSTNAME: shells set it to the machine name.)
  GUARDTRACE_WEB_HOST: z.string().min(1).default('127.0.0.1'),
  /** `1`: serve beyond loopback without a password (an authenticating proxy stands in front). */
  GUARDTRACE_WEB_ALLOW_UNAUTHENTICATED: z.enum(['0', '1']).default('0'),
});

const authSchema = z.object({
  // Basic auth splits user from password at the first colon.
  GUARDTRACE_WEB_USER: z.preprocess(emptyIsUnset, z.string().regex(/^[^:]+$/, 'must not contain ":"').default('admin')),
  // 12 characters at least: this password is all that stands between the network and the API keys.
  GUARDTRACE_WEB_PASSWORD: z.preprocess(emptyIsUnset, z.string().min(12, 'must be at least 12 characters').optional()),
});

export type ServerEnv = z.infer<typeof serverSchema>;
export type ServeEnv = z.infer<typeof serveSchema>;
export type AuthEnv = z.infer<typeof authSchema>;

type EnvSource = Record<string, string | undefined>;

function parse<T extends z.ZodType>(schema: T, source: EnvSource): z.infer<T> {
  const result = schema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.') || 'env'}: ${i.message}`);
    throw new Error(`Invalid environment for @guardtrace/web:\n${lines.join('\n')}`);
  }
  return result.data;
}

let cached: ServerEnv | undefined;

/** Environment of the Next server (DATABASE_URL required). */
export function serverEnv(): ServerEnv {
  cached ??= parse(serverSchema, process.env);
  return cached;
}

/** Environment of scripts/serve.ts, the production launcher (listen address and DATABASE_URL). */
export function serveEnv(source: EnvSource = process.env): ServeEnv {
  return parse(serveSchema, source);
}

let cachedAuth: AuthEnv | undefined;

/** Who may use the UI: every request needs this user and password when a password is set. */
export function authEnv(source: EnvSource = process.env): AuthEnv {
  if (source !== process.env) return parse(authSchema, source);
  cachedAuth ??= parse(authSchema, source);
  return cachedAuth;
}

/** The collector's base URL for agents (SDK `endpoint`; OTLP traces go to `<url>/v1/traces`). */
export function publicCollectorUrl(): string {
  return serverEnv().GUARDTRACE_PUBLIC_COLLECTOR_URL;
}

/** For tests: parse an explicit environment without caching. */
export function parseServerEnv(source: EnvSource): ServerEnv {
  return parse(serverSchema, source);
}
