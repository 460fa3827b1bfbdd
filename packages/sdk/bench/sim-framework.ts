/**
 * The "framework defaults" arm of the retry-storm simulation: what the strongest agent
 * frameworks do out of the box, with their own error texts.
 *
 * - Unknown tool: the Vercel AI SDK (`ai` 6, `doParseToolCall`) throws `NoSuchToolError`,
 *   "Model tried to call unavailable tool 'x'. Available tools: a, b.", and its tool loop
 *   sends the message back to the model as the tool's error output (`error-text`), see
 *   https://ai-sdk.dev/docs/ai-sdk-core/tools-and-tool-calling#handling-errors. Built here
 *   with the real class from `ai`.
 * - Invalid arguments: the AI SDK validates the input with the tool's zod schema
 *   (`safeValidateTypes`), wraps the ZodError in `TypeValidationError` and throws
 *   `InvalidToolInputError`, "Invalid input for tool x: Type validation failed: Value: {...}.
 *   Error message: [zod's issue list with each field's path]". Built here with the real
 *   classes and zod's own error. `experimental_repairToolCall` is off by default (it needs a
 *   user-written repair function), so the model repairs on its next turn.
 * - Errors thrown by a tool: the AI SDK forwards `error.message` as the tool's error output.
 *   The OpenAI Agents SDK's default `failure_error_function` sends "An error occurred while
 *   running the tool. Please try again. Error: ..." and LangGraph's `ToolNode` (default
 *   `handleToolErrors: true`) sends "Error: ...\n Please fix your mistakes.": the same raw
 *   error, with a few words more; the AI SDK's text is the shortest, so the cheapest baseline.
 * - Errors thrown by a tool, transient ones included (503, a timeout), are not retried: the AI
 *   SDK runs a tool once and returns its error as a `tool-error` part (`executeToolCall` in `ai`
 *   6.0.325 catches it; its `maxRetries` wraps only the model call, `doGenerate`), so the model
 *   reads the error and decides, on its next turn. The OpenAI Agents SDK and LangGraph's
 *   `ToolNode` do the same. No framework attaches an idempotency key, so a charge the model sends
 *   again after a timeout that had committed is made twice.
 *
 * The careful tool author (`careful`) runs on the same framework and writes what a careful
 * engineer adds by hand: errors as informative as Guardtrace's (sim-model.ts `execCareful`),
 * transient errors retried in code with backoff (p-retry around the external calls, with the AI
 * SDK's own figures for its model calls: 2 retries, 2 s then 4 s; 408/429/5xx and network
 * timeouts, as its `APICallError.isRetryable`), and the charge sent with an idempotency key, so
 * retrying it is safe. `carefulRepair` is that author who also writes the repairs Guardtrace
 * makes in code: an `experimental_repairToolCall` that corrects an unknown tool name or argument
 * name when exactly one close one fits, and a read tool that opens the one file a missing path
 * can have meant; like Guardtrace's defaults, only for tools that only read.
 */
import { asSchema, InvalidToolInputError, NoSuchToolError, TypeValidationError } from 'ai';
import { distance } from 'fastest-levenshtein';
import { z } from 'zod';
import {
  type ArmStats,
  addStepRepair,
  type Call,
  emptyStats,
  execCareful,
  execRaw,
  feedbackKind,
  firstCall,
  Meter,
  nextCall,
  pathCandidates,
  StepMemory,
  stepDone,
  type TaskRecord,
  TURN_CAP_PER_STEP,
  type World,
  worldOf,
} from './sim-model.ts';
import { BASE_SCENARIO, prng, type Scenario, type TaskPlan } from './sim-world.ts';

/** The careful author's retries of a retryable tool error in code: the AI SDK's `maxRetries` default for model calls. */
export const CAREFUL_TOOL_RETRIES = 2;
/** The AI SDK's default first delay and factor (2 s, 4 s); on a simulated clock, summed only. */
const INITIAL_DELAY_MS = 2_000;
const BACKOFF_FACTOR = 2;

/** The same tools and schemas as the Guardtrace arm registers (sim.ts), as an AI SDK tool set. */
const SCHEMAS: Record<string, z.ZodType<Record<string, unknown>>> = {
  read_file: z.object({ path: z.string() }),
  edit_file: z.object({ path: z.string(), content: z.string() }),
  lookup_customer: z.object({ email: z.string() }),
  list_reports: z.object({}),
  fetch_report: z.object({ report_id: z.string() }),
  charge_card: z.object({ customer_id: z.string(), amount_cents: z.number().int() }),
};
const TOOL_NAMES = Object.keys(SCHEMAS);

/** 408/429/5xx and network timeouts, the statuses the AI SDK's `APICallError` marks retryable. */
export function isRetryable(e: unknown): boolean {
  const x = e as { status?: number; code?: string };
  if (typeof x.status === 'number') return x.status === 408 || x.status === 429 || x.status >= 500;
  return x.code === 'ETIMEDOUT' || x.code === 'ECONNRESET';
}

export type FrameworkAttempt = { ok: true; codeRetries: number; backoffMs: number } | { ok: false; feedback: string; codeRetries: number; backoffMs: number };

export type FrameworkArm = 'defaults' | 'careful' | 'carefulRepair';

/** The tools that only read: the ones Guardtrace repairs in code by default, and so the careful author's repairs. */
const READ_ONLY = new Set(['read_file', 'lookup_customer', 'list_reports', 'fetch_report']);

/** 0 a typo apart, 1 one name inside the other, 2 a shared word of 3+ letters; undefined: not close. */
function closeness(a: string, b: string): number | undefined {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (distance(x, y) <= Math.max(2, Math.floor(Math.min(x.length, y.length) / 3))) return 0;
  if (Math.min(x.length, y.length) >= 3 && (x.includes(y) || y.includes(x))) return 1;
  const words = (n: string) => n.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length >= 3);
  const wa = new Set(words(a));
  return words(b).some((w) => wa.has(w)) ? 2 : undefined;
}

/** The one candidate at the closest tier that `fits`, else undefined (two at that tier: no sound repair). */
function sole(name: string, candidates: string[], fits: (c: string) => boolean): string | undefined {
  let best: string[] = [];
  let tier = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const t = closeness(name, c);
    if (t === undefined || t > tier || !fits(c)) continue;
    if (t < tier) [best, tier] = [[], t];
    best.push(c);
  }
  return best.length === 1 ? best[0] : undefined;
}

/** The arguments fit the tool's schema exactly: every field valid, none unknown (a repair must not drop what the model sent). */
const fits = (tool: string, args: Record<string, unknown>): boolean => (SCHEMAS[tool] as z.ZodObject).strict().safeParse(args).success;

/**
 * The careful author's `experimental_repairToolCall`: an unknown tool name becomes the one close
 * tool the arguments fit, if that tool only reads; unknown argument names of a read-only tool
 * become the one close absent field each (the renamed arguments must fit). Null when there is no
 * sound repair, as the AI SDK then reports the original error to the model.
 */
export async function repairToolCall(call: Call): Promise<Call | null> {
  if (!Object.hasOwn(SCHEMAS, call.tool)) {
    const tool = sole(call.tool, TOOL_NAMES, (t) => fits(t, call.args));
    return tool && READ_ONLY.has(tool) ? { tool, args: call.args } : null;
  }
  if (!READ_ONLY.has(call.tool)) return null;
  const schema = SCHEMAS[call.tool] as z.ZodObject;
  const fields = Object.keys(schema.shape);
  const absent = fields.filter((f) => !(f in call.args));
  const args: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(call.args)) {
    const to = fields.includes(k) ? k : sole(k, absent, () => true);
    if (to === undefined) return null;
    args[to] = v;
  }
  return fits(call.tool, args) ? { tool: call.tool, args } : null;
}

/** The careful author's read tool: a missing path with exactly one candidate file is read from that file (a read only). */
function execCarefulRepair(call: Call, w: World): void {
  const path = call.args.path;
  if (call.tool === 'read_file' && typeof path === 'string' && !w.files.includes(path)) {
    const candidates = pathCandidates(path, w.files);
    if (candidates.length === 1) {
      execCareful({ tool: call.tool, args: { ...call.args, path: candidates[0] } }, w);
      return;
    }
  }
  execCareful(call, w);
}

const ARM_OPTIONS: Record<FrameworkArm, { exec: (call: Call, w: World) => void; retries: number; repair: boolean }> = {
  defaults: { exec: execRaw, retries: 0, repair: false },
  careful: { exec: execCareful, retries: CAREFUL_TOOL_RETRIES, repair: false },
  carefulRepair: { exec: execCarefulRepair, retries: CAREFUL_TOOL_RETRIES, repair: true },
};

/**
 * One tool call as the framework runs it: name lookup and schema validation (with the arm's
 * repair of either, when it has one), then the tool, with the arm's code-level retries of
 * retryable errors. A failure returns the text the model is shown.
 */
export async function frameworkAttempt(call: Call, w: World, arm: FrameworkArm = 'defaults'): Promise<FrameworkAttempt> {
  const { exec, retries, repair } = ARM_OPTIONS[arm];
  const schema = Object.hasOwn(SCHEMAS, call.tool) ? SCHEMAS[call.tool] : undefined;
  if (!schema) {
    const fixed = repair ? await repairToolCall(call) : null;
    if (!fixed) return { ok: false, feedback: new NoSuchToolError({ toolName: call.tool, availableTools: TOOL_NAMES }).message, codeRetries: 0, backoffMs: 0 };
    return frameworkAttempt(fixed, w, arm);
  }
  const validated = await asSchema(schema).validate!(call.args);
  if (!validated.success) {
    const fixed = repair ? await repairToolCall(call) : null;
    if (fixed) return frameworkAttempt(fixed, w, arm);
    const cause = TypeValidationError.wrap({ value: call.args, cause: validated.error });
    return { ok: false, feedback: new InvalidToolInputError({ toolName: call.tool, toolInput: JSON.stringify(call.args), cause }).message, codeRetries: 0, backoffMs: 0 };
  }
  let backoffMs = 0;
  for (let retry = 0; ; retry++) {
    try {
      exec(call, w);
      return { ok: true, codeRetries: retry, backoffMs };
    } catch (e) {
      if (retry >= retries || !isRetryable(e)) return { ok: false, feedback: (e as Error).message, codeRetries: retry, backoffMs };
      backoffMs += INITIAL_DELAY_MS * BACKOFF_FACTOR ** retry;
    }
  }
}

/**
 * Framework defaults, the careful tool author, or that author with repairs in code: every
 * failure goes back to the model as the arm's own text, up to the turn cap; the same odds table
 * applies, by the text shown.
 */
export async function runFramework(tasks: TaskPlan[], seed: number, arm: FrameworkArm = 'defaults', scenario: Scenario = BASE_SCENARIO): Promise<ArmStats> {
  const { odds, repeatedText } = scenario;
  const stats = emptyStats();
  for (const task of tasks) {
    stats.tasks += 1;
    const rand = prng(seed ^ (task.id * 7919));
    const meter = new Meter(stats);
    const rec: TaskRecord = { done: false, escalated: false, repairByKind: {} };
    let ok = true;
    for (const step of task.steps) {
      const w = worldOf(step, scenario.files);
      const before = stats.repairTokens;
      meter.modelTurn(false);
      let call = firstCall(step);
      const memory = new StepMemory();
      let done = false;
      let retries = 0;
      for (let turns = 1; ; turns++) {
        const r = await frameworkAttempt(call, w, arm);
        retries += r.codeRetries;
        if (r.ok) {
          done = true;
          break;
        }
        if (turns >= TURN_CAP_PER_STEP) break;
        retries += 1;
        meter.show(r.feedback);
        meter.modelTurn(true);
        const next = nextCall(step, call, feedbackKind(r.feedback), rand, turns, odds, memory.keep(call, r.feedback, repeatedText), scenario.resend);
        if (next === null) break; // the model stopped and told the user
        call = next;
      }
      stats.retries += retries;
      stats.wastedRetries += done ? Math.max(0, retries - 1) : retries;
      stats.duplicateCharges += Math.max(0, w.charges.length - 1);
      addStepRepair(rec, step.mistake, stats.repairTokens - before);
      // a repair that ran another tool did not do the step's work: a wrong action, the task fails
      if (done && !stepDone(step, w)) done = false;
      if (!done) {
        ok = false;
        break;
      }
    }
    if (ok) {
      meter.modelTurn(false);
      stats.completed += 1;
    }
    rec.done = ok;
    stats.perTask.push(rec);
  }
  return stats;
}
