import { databaseUrlProblem } from '@guardtrace/db/database-url';
import { z } from 'zod';

/**
 * The only reader of process.env in apps/web. Parsed with zod once, on first use (not at
 * import), so `next build` does not need a database.
 */
const REQUIRED = 'is required: set it to the Postgres URL of Guardtrace (or run `pnpm start`, which starts one)';

const emptyIsUnset = (v: unknown) => (v === '' ? undefined : v);

/** A usable Postgres URL, else the reason (a password with `/` unencoded, …): databaseUrlProblem. */
const postgresUrl = (v: string, ctx: z.RefinementCtx) => {
  const problem = databaseUrlProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
};
const seconds = (fallback: number) => z.preprocess(emptyIsUnset, z.coerce.number({ error: 'must be a number of seconds' }).min(0).default(fallback));

const serverSchema = z.object({
  DATABASE_URL: z.string({ error: REQUIRED }).min(1, REQUIRED).superRefine(postgresUrl),
  // A streaming replica of DATABASE_URL for the heavy reads (explorer, replay, analytics); unset:
  // every read goes to DATABASE_URL (docs/deployment.md, "A read replica").
  DATABASE_READ_URL: z.preprocess(emptyIsUnset, z.string().superRefine(postgresUrl).optional()),
  // 10 s: the SDK's batch export already delays spans by up to 5 s; a replica further behind than
  // that is worth saying on the page.
  GUARDTRACE_READ_LAG_NOTICE_SECONDS: seconds(10),
  // 60 s: beyond a minute the replica's pages would miss what a person just saw happen; the
  // primary answers instead until the replica catches up.
  GUARDTRACE_READ_MAX_LAG_SECONDS: seconds(60),
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
  // Loopback by default: serving beyond this machine needs GUARDTRACE_AUTH_SECRET and
  // GUARDTRACE_BASE_URL (scripts/serve.ts). (Not HOSTNAME: shells set it to the machine name.)
  GUARDTRACE_WEB_HOST: z.string().min(1).default('127.0.0.1'),
});

const accountsSchema = z
  .object({
    // 32 characters at least: it signs the session cookies (better-auth's own minimum).
    GUARDTRACE_AUTH_SECRET: z.preprocess(
      emptyIsUnset,
      z
        .string({ error: 'is required: a random string of 32+ characters that signs session cookies (e.g. `openssl rand -base64 32`)' })
        .min(32, 'must be at least 32 characters (e.g. `openssl rand -base64 32`)'),
    ),
    // Where browsers reach the app; https makes the session cookie Secure.
    GUARDTRACE_BASE_URL: z.preprocess(emptyIsUnset, z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional()),
    GUARDTRACE_WEB_HOST: z.string().min(1).default('127.0.0.1'),
    PORT: z.coerce.number().int().min(1).max(65_535).default(3000),
    /** invite: sign-up needs an invitation link; open: anyone who reaches the app may sign up. */
    GUARDTRACE_SIGNUP: z.preprocess(emptyIsUnset, z.enum(['invite', 'open']).default('invite')),
    /** Comma-separated addresses/CIDRs of proxies whose X-Forwarded-For is trusted for throttling. */
    GUARDTRACE_TRUSTED_PROXIES: z.preprocess(
      (v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : []),
      z.array(z.string()),
    ),
  })
  .transform((e) => {
    const base = (e.GUARDTRACE_BASE_URL ?? `http://${e.GUARDTRACE_WEB_HOST}:${e.PORT}`).replace(/\/+$/, '');
    const u = new URL(base);
    // On loopback, localhost and 127.0.0.1 are the same server to the person using it.
    const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
    const trustedOrigins = loopback ? ['127.0.0.1', 'localhost', '[::1]'].map((h) => `${u.protocol}//${h}${u.port ? `:${u.port}` : ''}`) : [u.origin];
    return { ...e, GUARDTRACE_BASE_URL: base, trustedOrigins };
  });

export type ServerEnv = z.infer<typeof serverSchema>;
export type ServeEnv = z.infer<typeof serveSchema>;
export type AccountsEnv = z.infer<typeof accountsSchema>;

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

let cachedAccounts: AccountsEnv | undefined;

/** Accounts: the cookie-signing secret, the base URL, the sign-up policy, trusted proxies. */
export function accountsEnv(source: EnvSource = process.env): AccountsEnv {
  if (source !== process.env) return parse(accountsSchema, source);
  cachedAccounts ??= parse(accountsSchema, source);
  return cachedAccounts;
}

/** The collector's base URL for agents (SDK `endpoint`; OTLP traces go to `<url>/v1/traces`). */
export function publicCollectorUrl(): string {
  return serverEnv().GUARDTRACE_PUBLIC_COLLECTOR_URL;
}

/** For tests: parse an explicit environment without caching. */
export function parseServerEnv(source: EnvSource): ServerEnv {
  return parse(serverSchema, source);
}
