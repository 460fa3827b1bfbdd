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
 * - Transient errors: retried in code with exponential backoff, no model turn. This is the
 *   AI SDK's `maxRetries` default for model API calls (2 retries, 2 s then 4 s,
 *   `retryWithExponentialBackoffRespectingRetryHeaders`), which careful teams wrap around
 *   their external tools too (p-retry, LangChain's `withRetry`): 503/429/5xx and network
 *   timeouts count as retryable, as in the AI SDK's `APICallError.isRetryable`. No framework
 *   attaches an idempotency key, so a charge retried after a timeout that had committed is
 *   made twice.
 */
import { asSchema, InvalidToolInputError, NoSuchToolError, TypeValidationError } from 'ai';
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
  StepMemory,
  type TaskRecord,
  TURN_CAP_PER_STEP,
  type World,
  worldOf,
} from './sim-model.ts';
import { FIX_ODDS, type FixOdds, prng, REPEATED_TEXT_FIX, type TaskPlan } from './sim-world.ts';

/** The AI SDK's default `maxRetries` (retries after the first attempt). */
export const FRAMEWORK_MAX_RETRIES = 2;
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

/**
 * One tool call as the framework runs it: name lookup, schema validation, then the tool with
 * code-level retries of retryable errors. A failure returns the text the model is shown.
 */
export async function frameworkAttempt(call: Call, w: World, exec: (call: Call, w: World) => void = execRaw): Promise<FrameworkAttempt> {
  const schema = Object.hasOwn(SCHEMAS, call.tool) ? SCHEMAS[call.tool] : undefined;
  if (!schema) {
    return { ok: false, feedback: new NoSuchToolError({ toolName: call.tool, availableTools: TOOL_NAMES }).message, codeRetries: 0, backoffMs: 0 };
  }
  const validated = await asSchema(schema).validate!(call.args);
  if (!validated.success) {
    const cause = TypeValidationError.wrap({ value: call.args, cause: validated.error });
    return { ok: false, feedback: new InvalidToolInputError({ toolName: call.tool, toolInput: JSON.stringify(call.args), cause }).message, codeRetries: 0, backoffMs: 0 };
  }
  let backoffMs = 0;
  for (let retry = 0; ; retry++) {
    try {
      exec(call, w);
      return { ok: true, codeRetries: retry, backoffMs };
    } catch (e) {
      if (retry >= FRAMEWORK_MAX_RETRIES || !isRetryable(e)) return { ok: false, feedback: (e as Error).message, codeRetries: retry, backoffMs };
      backoffMs += INITIAL_DELAY_MS * BACKOFF_FACTOR ** retry;
    }
  }
}

/**
 * Framework defaults: every failure goes back to the model as the framework's own text, up to
 * the turn cap. `careful`: the careful tool author's arm, the same framework with tools whose
 * errors are as informative as Guardtrace's guards (`execCareful`: candidate paths, discovered
 * ids); the same odds table applies, by the text shown.
 */
export async function runFramework(tasks: TaskPlan[], seed: number, odds: FixOdds = FIX_ODDS, careful = false, repeatedText = REPEATED_TEXT_FIX): Promise<ArmStats> {
  const exec = careful ? execCareful : execRaw;
  const stats = emptyStats();
  for (const task of tasks) {
    stats.tasks += 1;
    const rand = prng(seed ^ (task.id * 7919));
    const meter = new Meter(stats);
    const rec: TaskRecord = { done: false, escalated: false, repairByKind: {} };
    let ok = true;
    for (const step of task.steps) {
      const w = worldOf(step);
      const before = stats.repairTokens;
      meter.modelTurn(false);
      let call = firstCall(step);
      const memory = new StepMemory();
      let done = false;
      let retries = 0;
      for (let turns = 1; ; turns++) {
        const r = await frameworkAttempt(call, w, exec);
        retries += r.codeRetries;
        if (r.ok) {
          done = true;
          break;
        }
        if (turns >= TURN_CAP_PER_STEP) break;
        retries += 1;
        meter.show(r.feedback);
        meter.modelTurn(true);
        call = nextCall(step, call, feedbackKind(r.feedback), rand, turns, odds, memory.keep(call, r.feedback, repeatedText));
      }
      stats.retries += retries;
      stats.wastedRetries += done ? Math.max(0, retries - 1) : retries;
      stats.duplicateCharges += Math.max(0, w.charges.length - 1);
      addStepRepair(rec, step.mistake, stats.repairTokens - before);
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
