/**
 * What every arm of the retry-storm simulation shares: the scripted model (its next call after
 * an error, by the kind of text it was shown), the bare tool executor, the per-task world and
 * the token meter. One cap and one price for every model turn, whichever arm takes it.
 */
import { countTokens } from 'gpt-tokenizer';
import { replayInputTokens } from '../src/cost.ts';
import { pathNotFoundFeedback } from '../src/guards/files.ts';
import { FIX_ODDS, type FixOdds, GOOD_ARGS, IDENTICAL_REPEAT, type Mistake, type Step, WORKSPACE_FILES, wrongCall } from './sim-world.ts';

/** Output tokens of one model turn (a tool call and a line of reasoning). */
const OUTPUT_TOKENS = 150;

/**
 * Model turns one plan step may take in every arm: the first call and 3 repairs, the
 * blind baseline's "retry 3x". An arm may stop earlier by its own policy, never later.
 */
export const TURN_CAP_PER_STEP = 4;

export interface ArmStats {
  tasks: number;
  completed: number;
  tokens: number;
  repairTokens: number;
  /** Tokens of the feedback texts themselves (part of `tokens`, replayed by every later turn). */
  feedbackTokens: number;
  retries: number;
  wastedRetries: number;
  /** Side effects done twice: a charge repeated after a timeout that had committed. */
  duplicateCharges: number;
  /** Tasks handed to a human by the arm's policy (escalate / abort), not by the turn cap. Never completed, never a saving. */
  escalated: number;
  /** Escalations by the step's mistake and the runtime's reason (`mistake: decision/reason`). */
  escalationReasons: Record<string, number>;
  /** Per task, in plan order: completed or not, and its repair tokens by the mistake of the step that spent them. */
  perTask: TaskRecord[];
}

export interface TaskRecord {
  done: boolean;
  escalated: boolean;
  repairByKind: Partial<Record<Mistake, number>>;
}

/** Adds the repair tokens a step spent (stats.repairTokens after minus before) to its task's record under the step's mistake. */
export function addStepRepair(rec: TaskRecord, mistake: Mistake, tokens: number): void {
  if (tokens > 0) rec.repairByKind[mistake] = (rec.repairByKind[mistake] ?? 0) + tokens;
}

export const emptyStats = (): ArmStats => ({
  tasks: 0,
  completed: 0,
  tokens: 0,
  repairTokens: 0,
  feedbackTokens: 0,
  retries: 0,
  wastedRetries: 0,
  duplicateCharges: 0,
  escalated: 0,
  escalationReasons: {},
  perTask: [],
});

const tokenCache = new Map<string, number>();
/** Tokens of a text with a real BPE tokenizer (o200k_base, gpt-tokenizer's default), so longer feedback costs its length. */
export function textTokens(text: string): number {
  let n = tokenCache.get(text);
  if (n === undefined) {
    n = countTokens(text);
    tokenCache.set(text, n);
  }
  return n;
}

/**
 * The seeds' context-replay price of a task's model turns: turn k replays the system prompt
 * and k-1 steps of history (src/cost.ts), plus every feedback text shown so far in the task
 * (it sits in the history), plus the turn's output.
 */
export class Meter {
  #turn = 0;
  #history = 0;
  constructor(private readonly stats: ArmStats) {}
  /** A feedback text enters the history: the next turn and every later one replay it. */
  show(feedback: string): void {
    const t = textTokens(feedback);
    this.#history += t;
    this.stats.feedbackTokens += t;
  }
  modelTurn(repair: boolean): void {
    this.#turn += 1;
    const t = replayInputTokens(this.#turn) + this.#history + OUTPUT_TOKENS;
    this.stats.tokens += t;
    if (repair) this.stats.repairTokens += t;
  }
}

export type Call = { tool: string; args: Record<string, unknown> };
export type FeedbackKind = 'structured' | 'raw';

const fixable = (m: Step['mistake']): m is keyof typeof FIX_ODDS => m in FIX_ODDS;
export const firstCall = (step: Step): Call => (fixable(step.mistake) ? wrongCall(step, 0) : { tool: step.tool, args: { ...GOOD_ARGS[step.tool] } });

/**
 * Structured feedback names the failing field path or offers the valid options (tool names,
 * paths, discovered ids); anything else is a raw error. One test for every arm's text: the
 * zod issue list the AI SDK forwards (`"path": [...]`) and its unknown-tool message
 * ("Available tools: ...") count exactly like Guardtrace's own schema and tool feedback.
 */
const STRUCTURED = /"path":\s*\[|Expected schema:|Missing required field|Available tools:|Valid tools|Available paths matching|Closest existing paths|Discovery \(/;
export const feedbackKind = (text: string): FeedbackKind => (STRUCTURED.test(text) ? 'structured' : 'raw');

/**
 * What the model was shown in one plan step. A text the model answered by sending the identical
 * call back, and is then shown again for it, has proved not actionable for this model ([S2]:
 * "the error is not actually actionable"): from then on in the step that text keeps only
 * REPEATED_TEXT_FIX of its odds (sim-world.ts), whichever call it comes with.
 */
export class StepMemory {
  readonly #shown = new Set<string>();
  readonly #stale = new Set<string>();
  /** The share of its odds `text` keeps as the answer to `call`; remembers that it was shown. */
  keep(call: Call, text: string, repeatedText: number): number {
    const key = `${call.tool}\n${JSON.stringify(call.args)}\n${text}`;
    if (this.#shown.has(key)) this.#stale.add(text);
    else this.#shown.add(key);
    return this.#stale.has(text) ? repeatedText : 1;
  }
}

/**
 * The model's next call after seeing an error: fixed with the odds of what it was shown, scaled
 * by `keep` (REPEATED_TEXT_FIX when that text already failed to move it off this call). After a
 * 503 or a timeout (nothing to fix in the call) it sends the call again with odds `resend`
 * (RESEND_AFTER_TRANSIENT), else it stops and reports to the user: null, the task is not done.
 */
export function nextCall(step: Step, prev: Call, kind: FeedbackKind, rand: () => number, variant: number, odds: FixOdds = FIX_ODDS, keep = 1, resend = 1): Call | null {
  if (!fixable(step.mistake)) {
    // drawn only below 1, so the base run's random stream is the one it always was
    if (resend < 1 && rand() >= resend) return null;
    return { tool: step.tool, args: { ...GOOD_ARGS[step.tool] } };
  }
  const p = odds[step.mistake][kind] * keep;
  if (rand() < p) return { tool: step.tool, args: { ...GOOD_ARGS[step.tool] } };
  return rand() < IDENTICAL_REPEAT ? prev : wrongCall(step, variant);
}

/** Per-step world state the tools act on. */
export interface World {
  outage: number;
  chargeTimeout: boolean;
  committed: boolean;
  /** Charges the provider recorded in this step (more than one: a duplicate). */
  charges: string[];
  /** The workspace's files. */
  files: readonly string[];
  /** Tools that ran to success in this step: a step is done only when its own tool ran (a repair to another tool is a wrong action). */
  ran: string[];
}

export function worldOf(step: Step, files: readonly string[] = WORKSPACE_FILES): World {
  return { outage: step.outage ?? 0, chargeTimeout: step.mistake === 'chargeTimeout', committed: step.committed ?? false, charges: [], files, ran: [] };
}

/** The workspace files that a missing path may have meant: the files guard's candidates, the same list in every arm that shows one. */
export function pathCandidates(path: string, files: readonly string[] = WORKSPACE_FILES): string[] {
  const base = path.split('/').pop() ?? path;
  return files.filter((f) => f.endsWith(`/${base}`) || f.endsWith(base.replace(/[^A-Za-z.]/g, '')));
}

/** The text Guardtrace's files guard shows for a missing path (and the careful tool author's ENOENT). */
export function missingPathText(path: string, files: readonly string[] = WORKSPACE_FILES): string {
  const base = path.split('/').pop() ?? path;
  const candidates = pathCandidates(path, files);
  return pathNotFoundFeedback(path, `**/${base}`, candidates.length ? candidates : ['src/components/Button.tsx']);
}

/** The reports the caller may read: what the declared discovery tool (list_reports) returns. */
export const READABLE_REPORTS = ['rep_own'];

/**
 * The careful tool author's tools: the same executor, but every error it throws is as
 * informative as Guardtrace's guards. A missing path lists the candidate paths (the files
 * guard's text); a 403 lists the reports the caller may read, in the text Guardtrace's
 * discovery shows. Other errors (503, timeout) carry nothing a model could fix from.
 * The charge sends an idempotency key made from the task's order (Stripe's `Idempotency-Key`,
 * https://docs.stripe.com/api/idempotent_requests: a request again with the same key returns the
 * first result), so a charge sent again after a timeout that had committed is not made twice.
 */
export function execCareful(call: Call, w: World): void {
  if (call.tool === 'charge_card' && typeof call.args.customer_id === 'string' && w.charges.length > 0) {
    w.ran.push(call.tool); // the key's first result
    return;
  }
  try {
    execRaw(call, w);
  } catch (e) {
    const x = e as Error & { code?: string; status?: number };
    if (x.code === 'ENOENT') throw err(missingPathText(String(call.args.path), w.files), { code: 'ENOENT' });
    if (x.status === 403) {
      throw err(`403 Forbidden: report '${String(call.args.report_id)}' is not readable with this credential.\nDiscovery (list_reports) found: ${JSON.stringify(READABLE_REPORTS)}\nChoose from these and call again.`, { status: 403 });
    }
    throw e;
  }
}

const err = (message: string, props: Record<string, unknown>) => Object.assign(new Error(message), props);

/** Executes a call as a bare tool executor would: no validation, raw errors. */
export function execRaw(call: Call, w: World): void {
  run(call, w);
  w.ran.push(call.tool);
}

/** Whether a step's work was done: its own tool ran to success (not another one a repair chose). */
export const stepDone = (step: Step, w: World): boolean => w.ran.includes(step.tool);

function run(call: Call, w: World): void {
  const a = call.args;
  switch (call.tool) {
    case 'read_file':
    case 'edit_file':
      if (typeof a.path !== 'string') throw new TypeError("Cannot read properties of undefined (reading 'length')");
      if (!w.files.includes(a.path)) throw err(`ENOENT: no such file or directory, open '${a.path}'`, { code: 'ENOENT' });
      return;
    case 'lookup_customer':
      if (typeof a.email !== 'string') throw new TypeError('email is required');
      if (w.outage > 0) {
        w.outage -= 1;
        throw err('503 Service Unavailable', { status: 503 });
      }
      return;
    case 'fetch_report':
      if (typeof a.report_id !== 'string') throw new TypeError('report_id is required');
      if (a.report_id !== 'rep_own') throw err('403 Forbidden', { status: 403 });
      return;
    case 'charge_card':
      if (typeof a.customer_id !== 'string') throw new TypeError('customer_id is required');
      if (w.chargeTimeout) {
        w.chargeTimeout = false;
        if (w.committed) {
          w.charges.push('charge');
          w.ran.push(call.tool); // the work was done, though the caller never heard
        }
        throw err('timeout awaiting provider', { code: 'ETIMEDOUT' });
      }
      w.charges.push('charge');
      return;
    default:
      throw new Error(`Tool ${call.tool} not found`);
  }
}
