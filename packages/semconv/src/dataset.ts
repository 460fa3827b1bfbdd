/**
 * The formats of guard regression replay, shared by the SDK's runner, the collector and the web
 * app: a tool definition's fingerprint (span attributes), a dataset item (one recorded tool call
 * with its attempts, as `GET /v1/datasets/{id}` streams it, one per NDJSON line, and as "Copy as
 * test fixture" writes it) and a run report (what the runner uploads to
 * `POST /v1/datasets/{id}/runs`). Types and constants only: no Node imports.
 */

// ---------------------------------------------------------------- definition fingerprint

/**
 * On every `execute_tool` span: the hash of the tool's definition the call was decided under
 * (its JSON Schema, its guards with their options, its flags and its policy), 16 lowercase hex
 * characters (the first 64 bits of a SHA-256 of the canonical definition). @example '3f9a0c1d2e4b5a67'
 */
export const ATTR_GUARDTRACE_TOOL_DEFINITION_HASH = 'guardtrace.tool.definition.hash' as const;
/**
 * The readable definition whose hash is `guardtrace.tool.definition.hash`, as JSON (a
 * {@link ToolDefinitionSummary}); sent on the first call of each tool in a session only (the
 * collector keeps one copy per project and hash), so a call carries 16 bytes, not the definition.
 */
export const ATTR_GUARDTRACE_TOOL_DEFINITION = 'guardtrace.tool.definition' as const;

/** A tool definition, short and readable: what a replay diffs when the hashes differ. */
export interface ToolDefinitionSummary {
  /** The tool's name. */
  tool: string;
  /** The JSON Schema of the arguments (as the SDK derives it from the tool's schema). */
  schema: unknown;
  /** Each guard as `name` plus its options in a stable, JSON-safe form (functions as `fn:<name or hash>`). */
  guards: { name: string; stage: string; options?: unknown }[];
  /** The tool's flags (`readOnly`, `idempotent`, `destructive`, `external`) that are set. */
  flags: Record<string, boolean>;
  /** The tool's policy overrides per failure class and its budgets, as given (empty when defaults). */
  policy: unknown;
}

// ---------------------------------------------------------------- dataset items

/** `format` of a dataset item (one NDJSON line). */
export const DATASET_ITEM_FORMAT = 'guardtrace.dataset-item/v1' as const;

/** One guard check of a recorded attempt. */
export interface DatasetItemCheck {
  guard: string;
  /** `schema`, `logical`, `lock`, `post` ... or null when not recorded. */
  stage: string | null;
  verdict: 'pass' | 'fail';
  reason: string | null;
  failureClass: string | null;
  /** JSON pointers into the arguments the check objects to. */
  pointers: string[];
}

/**
 * The marks a recorded argument text holds where something was left out before it was stored:
 * the SDK's own redaction and sanitizing (`[REDACTED]`, `[REDACTED KEY]`, `[internal-host]`,
 * `[truncated N characters]` ...) and the collector's (`[REDACTED:<rule>]`, `…[SHORTENED:...]`).
 * Arguments holding one are not what the model sent: a replay of them would not be exact.
 */
export const INEXACT_ARGUMENT_MARKS = [
  '[REDACTED',
  '[SHORTENED:',
  '[truncated ',
  '[internal-address]',
  '[internal-host]',
  '[stack trace removed]',
  '[removed instruction-like text',
] as const;

/** One recorded attempt of a call. */
export interface DatasetItemAttempt {
  number: number;
  /**
   * The tool this attempt called, when it is not the item's `tool`: an unknown tool name the
   * model (or the SDK, in code) corrected, the call then taking the corrected name. Absent in
   * items saved before it was recorded.
   */
  tool?: string | null;
  /** The arguments as recorded, parsed (null when they were not captured or are not JSON). */
  arguments: unknown;
  /**
   * The arguments' text exactly as recorded (key order and all; not JSON when the model sent
   * broken JSON): what a replay sends. Null when not captured; absent in older items.
   */
  argumentsText?: string | null;
  /** The recorded arguments are shortened or redacted (they hold an INEXACT_ARGUMENT_MARKS mark): a replay of them is not exact. */
  argumentsInexact?: boolean;
  outcome: string | null;
  decision: string | null;
  failureClass: string | null;
  /** The feedback text the model was given (null on success). */
  feedback: string | null;
  /**
   * The budget this attempt ran out of (`guardtrace.budget.exhausted`: `rejections_per_task`,
   * `session_retries` ...), null when none; absent in older items.
   */
  budgetExhausted?: string | null;
  checks: DatasetItemCheck[];
}

/** One recorded tool call: what a dataset holds, one per line. */
export interface DatasetItem {
  format: typeof DATASET_ITEM_FORMAT;
  /** Stable id of the recorded call: `<traceId>:<spanId>` of its `execute_tool` span. */
  id: string;
  sessionId: string;
  traceId: string;
  spanId: string;
  /** Path of the call's step in the web app's replay, relative to the web app's origin. */
  stepPath: string;
  tool: string;
  callId: string | null;
  /** ISO 8601. */
  startedAt: string;
  /** The definition the call was decided under (null fields for calls recorded before fingerprints or by other instrumentations). */
  definition: { hash: string | null; summary: ToolDefinitionSummary | null };
  outcome: string | null;
  failureClass: string | null;
  attempts: DatasetItemAttempt[];
}

// ---------------------------------------------------------------- run reports

/** `format` of a run report. */
export const REPLAY_RUN_FORMAT = 'guardtrace.replay-run/v1' as const;

/** What replaying one recorded attempt through the current guards changed. */
export const REPLAY_CHANGE = {
  UNCHANGED: 'unchanged',
  NEWLY_REJECTED: 'newly_rejected',
  NEWLY_ALLOWED: 'newly_allowed',
  CLASS_CHANGED: 'class_changed',
  FEEDBACK_CHANGED: 'feedback_changed',
  /** The item could not be replayed (unknown tool, arguments not captured ...); `error` says why. */
  NOT_REPLAYED: 'not_replayed',
} as const;
export type ReplayChange = (typeof REPLAY_CHANGE)[keyof typeof REPLAY_CHANGE];

/** A decision as recorded or as replayed. */
export interface ReplayDecision {
  /** Did the guards let the arguments through to `execute` (true) or reject them (false)? */
  allowed: boolean;
  decision: string | null;
  failureClass: string | null;
  feedback: string | null;
  /** Failed checks' guard names and pointers. */
  checks: DatasetItemCheck[];
}

/** One replayed attempt. */
export interface ReplayResult {
  itemId: string;
  attempt: number;
  tool: string;
  sessionId: string;
  stepPath: string;
  change: ReplayChange;
  arguments: unknown;
  recorded: ReplayDecision;
  /** Null when not replayed. */
  now: ReplayDecision | null;
  definition: { recordedHash: string | null; currentHash: string; changes: string[] };
  error?: string;
}

/** What the runner prints as JSON and uploads. `results` holds every attempt whose change is not `unchanged`. */
export interface ReplayRunReport {
  format: typeof REPLAY_RUN_FORMAT;
  datasetId: string | null;
  /** Free label, e.g. the git commit or branch of the guard change. */
  label: string | null;
  startedAt: string;
  finishedAt: string;
  /** Options the run used (`execute`, `failOn`). */
  options: { execute: 'none' | 'read-only'; failOn: ReplayChange[] };
  summary: { calls: number; attempts: number } & Record<ReplayChange, number>;
  results: ReplayResult[];
}
