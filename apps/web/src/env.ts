import { z } from 'zod';

/**
 * The only reader of process.env in apps/web. Parsed with zod once, on first use (not at
 * import), so `next build` does not need a database.
 */
const REQUIRED = 'is required: set it to the Postgres URL of Guardtrace (or run `pnpm start`, which starts one)';

const serverSchema = z.object({
  DATABASE_URL: z
    .string({ error: REQUIRED })
    .min(1, REQUIRED)
    .refine((v) => /^postgres(ql)?:\/\//.test(v), 'must be a postgres:// or postgresql:// URL'),
});

const serveSchema = z.object({
  /** When unset, scripts/serve.ts starts the embedded Postgres. */
  DATABASE_URL: z.string().min(1).optional(),
  /** Data folder of the embedded Postgres; @guardtrace/db picks its default when unset. */
  GUARDTRACE_DATA_DIR: z.string().min(1).optional(),
  // 3000: the port README and the start orchestrator advertise for the web app.
  PORT: z.coerce.number().int().min(1).max(65_535).default(3000),
  // Loopback by default: the UI has no authentication yet. (Not HOSTNAME: shells set it to the machine name.)
  GUARDTRACE_WEB_HOST: z.string().min(1).default('127.0.0.1'),
});

export type ServerEnv = z.infer<typeof serverSchema>;
export type ServeEnv = z.infer<typeof serveSchema>;

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

/** Environment of scripts/serve.ts (DATABASE_URL optional). */
export function serveEnv(source: EnvSource = process.env): ServeEnv {
  return parse(serveSchema, source);
}

/** For tests: parse an explicit environment without caching. */
export function parseServerEnv(source: EnvSource): ServerEnv {
  return parse(serverSchema, source);
}
