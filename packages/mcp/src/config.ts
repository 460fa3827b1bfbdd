/**
 * The proxy's config file (JSON): collector, session identity, workspace roots, per-tool
 * flags, preconditions and locks, per-class policy and budgets. Validated with zod; a bad
 * field is named with its path, what was found and what is expected.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DECISIONS, FAILURE_CLASSES } from '@guardtrace/semconv';
import { z } from 'zod';

const positiveInt = z.number().int().positive();
const count = z.number().int().min(0);

/** `auto_repair` is recorded by the runtime, never a policy's decision. */
const POLICY_DECISIONS = DECISIONS.filter((d) => d !== 'auto_repair');
const classPolicy = z.strictObject({
  retries: count.optional(),
  decision: z.enum(POLICY_DECISIONS).optional(),
  onExhausted: z.enum(POLICY_DECISIONS).optional(),
});
const policy = z.partialRecord(z.enum(FAILURE_CLASSES), classPolicy);

const regex = z.string().refine((s) => {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}, 'expected a valid JavaScript regular expression');

const precondition = z.strictObject({
  /** Guard name on the `apply_guardrail` span. */
  name: z.string().min(1),
  /** Argument the condition reads (a top-level field of the tool's arguments). */
  argument: z.string().min(1),
  /** The argument's text must match this regular expression... */
  matches: regex.optional(),
  /** ...and must not match this one. */
  notMatches: regex.optional(),
  /** Told to the model when the condition fails. */
  message: z.string().min(1),
}).refine((p) => p.matches !== undefined || p.notMatches !== undefined, 'expected "matches" or "notMatches" (or both)');

/** Repair in code, without a model turn (the SDK's `autoRepair`): all kinds, or per kind. */
const autoRepair = z.union([
  z.boolean(),
  z.strictObject({ argumentNames: z.boolean().optional(), toolNames: z.boolean().optional(), paths: z.boolean().optional() }),
]);

const toolConfig = z.strictObject({
  /** Overrides the flags read from the tool's annotations. */
  flags: z.strictObject({
    readOnly: z.boolean().optional(),
    idempotent: z.boolean().optional(),
    destructive: z.boolean().optional(),
    external: z.boolean().optional(),
  }).optional(),
  preconditions: z.array(precondition).optional(),
  /** Arguments whose values are locked for the call (a second concurrent call on the same value is rejected). */
  locks: z.array(z.string().min(1)).optional(),
  timeoutMs: positiveInt.optional(),
  maxAttempts: positiveInt.optional(),
  policy: policy.optional(),
  /** This tool's auto-repair; the only way in for a tool that is neither read-only nor idempotent. */
  autoRepair: autoRepair.optional(),
});

export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  /** Where spans go; else GUARDTRACE_ENDPOINT/GUARDTRACE_API_KEY or OTEL_EXPORTER_OTLP_*; else no tracing. */
  collector: z.strictObject({ endpoint: z.url({ protocol: /^https?$/ }), apiKey: z.string().min(1) }).optional(),
  serviceName: z.string().min(1).default('guardtrace-mcp'),
  session: z.strictObject({
    /** Default: the MCP client's name from `initialize`. */
    agentName: z.string().min(1).optional(),
    agentId: z.string().min(1).optional(),
    userId: z.string().min(1).optional(),
  }).default({}),
  /** Workspace roots (relative to the config file): path arguments must stay inside one of them. */
  roots: z.array(z.string().min(1)).optional(),
  /** Argument names that hold paths, checked against `roots`. */
  pathArguments: z.array(z.string().min(1)).default(['path', 'paths', 'source', 'destination']),
  /**
   * `reject` (default): an argument the tool's schema does not name is an error, even where the
   * schema leaves `additionalProperties` open (a misspelt optional argument must not vanish);
   * `pass`: the schema decides.
   */
  unknownArguments: z.enum(['reject', 'pass']).default('reject'),
  policy: policy.optional(),
  /** Auto-repair for read-only and idempotent tools (default on). */
  autoRepair: autoRepair.optional(),
  budgets: z.strictObject({
    maxAttemptsPerCall: positiveInt.optional(),
    sessionRetries: count.optional(),
    rejectionsPerTask: count.optional(),
    /** `call` (the proxy's default): a connection serves many tasks, so each logical call has its own rejections. */
    rejectionsScope: z.enum(['task', 'call']).optional(),
    addedLatencyMs: count.optional(),
    repairTokens: z.strictObject({ perUser: count.optional(), windowMs: positiveInt.optional() }).optional(),
    circuitBreaker: z.strictObject({ failureThreshold: positiveInt.optional(), cooldownMs: positiveInt.optional() }).optional(),
  }).optional(),
  tools: z.record(z.string(), toolConfig).default({}),
});

export type ProxyConfig = z.output<typeof configSchema>;
export type ToolConfig = z.output<typeof toolConfig>;

/** A config that cannot be used: names the file and every bad field. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function fieldPath(p: readonly PropertyKey[]): string {
  let out = '';
  for (const k of p) out += typeof k === 'number' ? `[${k}]` : out === '' ? String(k) : `.${String(k)}`;
  return out === '' ? '(top level)' : out;
}

/** Validates a parsed config; relative roots resolve against `baseDir`. */
export function parseConfig(raw: unknown, where: string, baseDir: string): ProxyConfig {
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  - ${fieldPath(i.path)}: ${i.message}`);
    throw new ConfigError(`guardtrace-mcp: invalid config ${where}:\n${lines.join('\n')}`);
  }
  const cfg = parsed.data;
  if (cfg.roots) cfg.roots = cfg.roots.map((r) => path.resolve(baseDir, r));
  return cfg;
}

/** Reads and validates a config file; no file means the defaults. */
export function loadConfig(file: string | undefined): ProxyConfig {
  if (file === undefined) return parseConfig({}, '(defaults)', process.cwd());
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`guardtrace-mcp: cannot read config ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`guardtrace-mcp: config ${file} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  return parseConfig(raw, file, path.dirname(path.resolve(file)));
}
