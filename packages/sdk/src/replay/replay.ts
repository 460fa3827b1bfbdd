/**
 * Replays recorded tool calls (dataset items) through the current guards and policy, in check
 * sessions (`gt.checkSession`, the same code as `callTool`), and says per attempt what changed.
 */
import {
  type DatasetItem,
  type DatasetItemAttempt,
  INEXACT_ARGUMENT_MARKS,
  REPLAY_CHANGE,
  REPLAY_RUN_FORMAT,
  type ReplayChange,
  type ReplayDecision,
  type ReplayResult,
  type ReplayRunReport,
} from '@guardtrace/semconv';
import type { CheckExecute } from '../check.ts';
import { toolDefinition } from '../definition.ts';
import { diffDefinitions } from '../definition-diff.ts';
import type { Guardtrace } from '../guardtrace.ts';
import type { Session } from '../session.ts';
import { clip } from '../span-text.ts';
import type { ToolCall } from '../tool-call.ts';
import type { AttemptRecord } from '../types.ts';
import { changeOf, nowDecision, recordedDecision } from './compare.ts';
import { itemProblem } from './item.ts';

export interface ReplayOptions {
  /** `none` (default): no tool runs. `read-only`: read-only tools run, with their post-execution checks. */
  execute?: CheckExecute;
}

/** A line of a dataset file that is not an item: replayed as `not_replayed` with this error. */
export interface DatasetLineError {
  format: 'guardtrace.dataset-line-error';
  /** 1-based line of the file (the array element's index + 1 for a JSON array). */
  line: number;
  error: string;
}

export interface ReplayProgress {
  calls: number;
  attempts: number;
  /** Attempts whose change is not `unchanged`. */
  changed: number;
}

export interface ReplayDatasetOptions extends ReplayOptions {
  datasetId?: string | null;
  /** Free label of the run (the git commit or branch of the guard change). */
  label?: string | null;
  /** Changes that fail the run (recorded in the report's options; `failedBy` reads them). */
  failOn?: ReplayChange[];
  /** Called after each call is replayed. */
  onProgress?: (p: ReplayProgress) => void;
  /** The run's clock, for `startedAt` / `finishedAt` (default: the system clock). */
  now?: () => Date;
}

/** Check sessions kept per recorded session, so a session's calls share session rules as they did; bounded. */
const MAX_SESSIONS = 1_000;
const MAX_DEFINITIONS = 1_000;
const RUNTIME_MADE: ReadonlySet<string> = new Set(['auto_repair', 'retry_backoff']);

/** Built-in checks that answer from live state, which a replay does not have. */
const STATEFUL = new Map([
  ['circuit_breaker', 'an open circuit after repeated failures'],
  ['idempotency', 'an earlier call of the same intent in the idempotency store'],
]);

const NONE: ReplayDecision = { allowed: false, decision: null, failureClass: null, feedback: null, checks: [] };

/** Replays items one after the other; keeps only bounded caches (check sessions, definition diffs). */
class Replayer {
  readonly #sessions = new Map<string, Session>();
  readonly #diffs = new Map<string, string[]>();
  constructor(
    readonly gt: Guardtrace,
    readonly execute: CheckExecute,
  ) {}

  #session(id: string): Session {
    let s = this.#sessions.get(id);
    if (s) {
      this.#sessions.delete(id);
    } else {
      s = this.gt.checkSession({ execute: this.execute });
      if (this.#sessions.size >= MAX_SESSIONS) this.#sessions.delete(this.#sessions.keys().next().value as string);
    }
    this.#sessions.set(id, s);
    return s;
  }

  #definition(item: DatasetItem): ReplayResult['definition'] {
    const tool = this.gt.getTool(item.tool);
    const current = tool ? toolDefinition(tool) : undefined;
    const currentHash = current?.hash ?? '';
    const recordedHash = item.definition?.hash ?? null;
    if (!current || !recordedHash || recordedHash === currentHash) return { recordedHash, currentHash, changes: [] };
    const key = `${item.tool}\u0000${recordedHash}`;
    let changes = this.#diffs.get(key);
    if (!changes) {
      const summary = item.definition?.summary;
      changes = summary ? diffDefinitions(summary, current.summary) : ['definition changed (recorded summary unavailable)'];
      if (changes.length === 0) changes = ['definition changed (no difference in the readable summary)'];
      if (this.#diffs.size >= MAX_DEFINITIONS) this.#diffs.clear();
      this.#diffs.set(key, changes);
    }
    return { recordedHash, currentHash, changes };
  }

  /** Why an attempt cannot be replayed, or undefined. */
  #unreplayable(a: DatasetItemAttempt, tool: string): string | undefined {
    if (a.failureClass === 'unknown_tool' && typeof a.tool !== 'string' && this.gt.getTool(tool) !== undefined) {
      // the name this attempt called (unknown, then corrected) is not in the item: saved before items named it, or not recorded
      return `the tool name this attempt called is not in the item (it was rejected as an unknown tool and the call took the corrected name "${tool}"; items saved before attempts named their tool lack it: save the dataset again)`;
    }
    if (this.gt.getTool(tool) === undefined && a.failureClass !== 'unknown_tool') {
      const names = this.gt.tools().map((t) => t.name);
      return `unknown tool "${tool}": not registered in the Guardtrace instance replayed against (registered: ${names.join(', ') || 'none'})`;
    }
    const live = (a.checks ?? []).find((c) => c.verdict === 'fail' && STATEFUL.has(c.guard));
    if (live) return `rejected by ${live.guard}, which the runtime's state at the time decided (${STATEFUL.get(live.guard)}), not the guards`;
    const text = argumentsText(a);
    if (text === null) return 'arguments not captured (the recorded span has no gen_ai.tool.call.arguments: capture mode or sampling)';
    const mark = INEXACT_ARGUMENT_MARKS.find((m) => text.includes(m));
    if (mark) return `arguments inexact: redacted, sanitized or shortened when recorded (they hold "${mark}..."): a replay of them would not be exact`;
    if (a.argumentsInexact) return 'arguments inexact (shortened or redacted when recorded): a replay of them would not be exact';
    return undefined;
  }

  async replay(raw: DatasetItem | DatasetLineError): Promise<ReplayResult[]> {
    if ((raw as DatasetLineError).format === 'guardtrace.dataset-line-error') return [lineError(raw as DatasetLineError)];
    const problem = itemProblem(raw);
    if (problem) return [badItem(raw, problem)];
    const item = raw as DatasetItem;
    const definition = this.#definition(item);
    const session = this.#session(String(item.sessionId ?? ''));
    const out: ReplayResult[] = [];
    let call: ToolCall | undefined;
    // attempts the runtime made in the current batch, matched to recorded runtime-made attempts
    let pending: AttemptRecord[] = [];
    let prev: DatasetItemAttempt | undefined;
    // what the previous recorded attempt is now: rejected before it runs, let through, or not made at all
    let prevNow: 'rejected' | 'allowed' | 'not made' | undefined;
    const attempts = [...item.attempts].sort((x, y) => x.number - y.number);
    for (const [i, a] of attempts.entries()) {
      let recorded = recordedDecision(a);
      const base = {
        itemId: String(item.id ?? ''), attempt: a.number, tool: item.tool, sessionId: String(item.sessionId ?? ''),
        stepPath: String(item.stepPath ?? ''), arguments: a.arguments ?? null, recorded, definition,
      };
      const runtimeMade = prev !== undefined && RUNTIME_MADE.has(prev.decision ?? '');
      const retried = runtimeMade && prev?.decision === 'retry_backoff' ? prev : undefined;
      const repairedThen = runtimeMade && prev?.decision === 'auto_repair' ? prev : undefined;
      prev = a;
      // the name this attempt called: an unknown one the call was later corrected from, or the call's
      const tool = typeof a.tool === 'string' && a.tool !== '' ? a.tool : item.tool;
      let now: AttemptRecord | undefined = runtimeMade ? pending.shift() : undefined;
      if (!now && repairedThen && prevNow) {
        // The runtime ran this corrected call by itself after repairing the previous attempt in
        // code; now that attempt is not repaired, so this call is never made: not the model's to replay.
        const then = prevNow === 'rejected' ? 'rejected, not repaired' : prevNow === 'allowed' ? 'let through as sent' : 'not made';
        out.push({
          ...base, change: REPLAY_CHANGE.NOT_REPLAYED, now: null,
          error: `a call the runtime made by itself after it repaired attempt ${repairedThen.number} in code (auto_repair); attempt ${repairedThen.number} is now ${then}, so this call is not made`,
        });
        prevNow = 'not made';
        continue;
      }
      if (!now && retried && (prevNow === 'rejected' || prevNow === 'not made')) {
        // The runtime retried the previous attempt by itself (same arguments, no model turn) after
        // it failed while running; now that attempt never runs, so no retry is made: not the model's call to replay.
        out.push({
          ...base, change: REPLAY_CHANGE.NOT_REPLAYED, now: null,
          error: `an automatic retry the runtime made after attempt ${retried.number} failed (retry_backoff); attempt ${retried.number} is now ${prevNow === 'rejected' ? 'rejected before it runs' : 'not made'}, so no retry is made`,
        });
        prevNow = 'not made';
        continue;
      }
      prevNow = undefined;
      if (!now) {
        pending = [];
        const why = this.#unreplayable(a, tool);
        if (why) {
          out.push({ ...base, change: REPLAY_CHANGE.NOT_REPLAYED, now: null, error: why });
          continue;
        }
        try {
          if (!call || call.done) call = session.toolCall(tool);
          const before = call.attempts.length;
          await call.attempt(replayArguments(a), { tool });
          [now, ...pending] = call.attempts.slice(before);
        } catch (err) {
          out.push({ ...base, change: REPLAY_CHANGE.NOT_REPLAYED, now: null, error: `replay failed: ${err instanceof Error ? err.message : String(err)}` });
          call = undefined;
          continue;
        }
      }
      if (!now) {
        out.push({ ...base, change: REPLAY_CHANGE.NOT_REPLAYED, now: null, error: 'the call made no attempt' });
        continue;
      }
      // Repaired in code now but not when recorded: the runtime runs the corrected call at once, so
      // what the model's call gets is what that corrected call gets (through, with a note; or rejected).
      const chain = [now];
      if (!runtimeMade && a.decision !== 'auto_repair') {
        while ((chain.at(-1) as AttemptRecord).decision === 'auto_repair' && pending.length > 0) chain.push(pending.shift() as AttemptRecord);
      }
      const last = chain.at(-1) as AttemptRecord;
      const d = chain.length > 1 ? repairedDecision(chain) : nowDecision(now);
      const ranNow = d.allowed && Boolean(this.gt.getTool(last.tool)?.flags?.readOnly) && this.execute === 'read-only';
      prevNow = d.allowed ? 'allowed' : 'rejected';
      // Repaired in code when recorded but not now: the model's call went through (as corrected)
      // then; compare what it gets now with that, not with the repaired attempt's own rejection.
      if (a.decision === 'auto_repair' && now.decision !== 'auto_repair') {
        recorded = recordedRepair(attempts, i) ?? recorded;
        base.recorded = recorded;
      }
      const change = changeOf(recorded, d, ranNow, chain.length > 1);
      const budget = sessionBudgetOnly(a, recorded, last, d, change);
      if (budget) {
        out.push({ ...base, change: REPLAY_CHANGE.NOT_REPLAYED, now: d, error: budget });
        continue;
      }
      out.push({ ...base, change, now: d });
    }
    return out;
  }
}

/** Budgets of the session (or the user) that other calls spend: a dataset may hold only some of those calls. */
const SESSION_BUDGETS: ReadonlySet<string> = new Set(['session_retries', 'rejections_per_task', 'added_latency', 'repair_tokens']);
const BUDGET_FEEDBACK = /^Retry budget exhausted \(([a-z_]+)\)\. Escalating with the attempt history\.\n\n/;
/** The preface of an escalation because an identical call was already rejected in the session (sdk failure.ts). */
const REPEATED_REJECTION_FEEDBACK = /^The same call was already rejected with this feedback; it is not being sent again\. Escalating\.\n\n/;

/** The session budget a recorded attempt ran out of: its `budgetExhausted`, or (older items) its feedback's preface. */
function recordedBudget(a: DatasetItemAttempt): string | null {
  if (typeof a.budgetExhausted === 'string') return a.budgetExhausted;
  if (a.budgetExhausted === null) return null;
  return BUDGET_FEEDBACK.exec(a.feedback ?? '')?.[1] ?? null;
}

/**
 * Why a change is only a session budget's doing, or undefined: the recorded attempt escalated
 * because the session ran out of a budget its other calls spent (or the replayed one does),
 * and underneath the guards decide as recorded (rejected, same class, same feedback once the
 * budget's preface is set aside). The replay holds only the dataset's calls of a session, so
 * whether that budget would run out again is not something it can say.
 */
function sessionBudgetOnly(a: DatasetItemAttempt, recorded: ReplayDecision, last: AttemptRecord, now: ReplayDecision, change: ReplayChange): string | undefined {
  if (change !== REPLAY_CHANGE.FEEDBACK_CHANGED || recorded.allowed || now.allowed || recorded.failureClass !== now.failureClass) return undefined;
  const repeatedThen = REPEATED_REJECTION_FEEDBACK.test(recorded.feedback ?? '');
  const repeatedNow = last.escalationReason === 'repeated_rejection';
  if (repeatedThen !== repeatedNow) {
    const strip = (f: string | null) => (f ?? '').replace(REPEATED_REJECTION_FEEDBACK, '');
    if (strip(recorded.feedback) !== strip(now.feedback)) return undefined;
    const what = repeatedThen ? 'escalated when recorded' : 'escalates now';
    return `${what} because an identical call was rejected earlier in the session with the same feedback (repeated_rejection), a call ${repeatedThen ? 'this replay does not hold' : 'this replay holds'}; the guards decide it as recorded (${now.failureClass ?? 'rejected'}, the same feedback), but whether that earlier rejection happens again depends on the session's other calls`;
  }
  const then = recordedBudget(a);
  const nowBudget = last.escalationReason ?? null;
  const sessionThen = then !== null && SESSION_BUDGETS.has(then);
  const sessionNow = nowBudget !== null && SESSION_BUDGETS.has(nowBudget);
  if (!sessionThen && !sessionNow) return undefined;
  const strip = (f: string | null) => (f ?? '').replace(BUDGET_FEEDBACK, '');
  if (strip(recorded.feedback) !== strip(now.feedback)) return undefined;
  const what = sessionThen
    ? `escalated when recorded because the session ran out of its ${then} budget`
    : `escalates now because the session runs out of its ${nowBudget} budget`;
  return `${what}, which the session's other calls spent; the guards decide it as recorded (${now.failureClass ?? 'rejected'}, the same feedback), but this replay cannot say whether the budget would run out again`;
}

/**
 * The decision of a call repaired in code: the corrected call's (allowed, class, failed checks),
 * decided `auto_repair` when it got through; the feedback the correction notes and the corrected
 * call's feedback, as the model is shown them.
 */
function repairedDecision(chain: AttemptRecord[]): ReplayDecision {
  const final = nowDecision(chain.at(-1) as AttemptRecord);
  const text = [...chain.slice(0, -1).map((r) => r.feedback), final.feedback].filter((f): f is string => typeof f === 'string' && f !== '').join('\n\n');
  return { ...final, decision: final.allowed ? 'auto_repair' : final.decision, feedback: text === '' ? null : clip(text) };
}

/**
 * What the call whose recorded attempt `i` was repaired in code got, as the model saw it: the
 * runtime-made attempts that followed (the corrected call), decided `auto_repair` when it got
 * through, with the correction's note and the corrected call's feedback. Undefined when the item
 * does not hold the corrected attempt.
 */
function recordedRepair(attempts: DatasetItemAttempt[], i: number): ReplayDecision | undefined {
  let j = i;
  while (attempts[j]?.decision === 'auto_repair') j += 1;
  const final = attempts[j];
  if (final === undefined || j === i) return undefined;
  const d = recordedDecision(final);
  const text = [...attempts.slice(i, j).map((x) => x.feedback), d.feedback].filter((f): f is string => typeof f === 'string' && f !== '').join('\n\n');
  return { ...d, decision: d.allowed ? 'auto_repair' : d.decision, feedback: text === '' ? null : clip(text) };
}

/** The attempt's argument text as recorded: exact when the item has it, else the parsed arguments' JSON; null when not captured. */
function argumentsText(a: DatasetItemAttempt): string | null {
  if (typeof a.argumentsText === 'string') return a.argumentsText;
  if (a.arguments === null || a.arguments === undefined) return null;
  return typeof a.arguments === 'string' ? a.arguments : JSON.stringify(a.arguments);
}

/**
 * What the replay sends: the recorded text parsed (its keys in the order the model wrote them, which
 * feedback echoes), or the text itself when it is not JSON (the model's broken JSON, rejected again
 * as it was); the parsed arguments for items without the text.
 */
function replayArguments(a: DatasetItemAttempt): unknown {
  if (typeof a.argumentsText !== 'string') return a.arguments;
  try {
    return JSON.parse(a.argumentsText);
  } catch {
    return a.argumentsText;
  }
}

function lineError(e: DatasetLineError): ReplayResult {
  return {
    itemId: `line:${e.line}`, attempt: 0, tool: '', sessionId: '', stepPath: '', change: REPLAY_CHANGE.NOT_REPLAYED,
    arguments: null, recorded: NONE, now: null, definition: { recordedHash: null, currentHash: '', changes: [] }, error: e.error,
  };
}

function badItem(x: unknown, problem: string): ReplayResult {
  const o = (typeof x === 'object' && x !== null ? x : {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return { ...lineError({ format: 'guardtrace.dataset-line-error', line: 0, error: `not a dataset item: ${problem}` }), itemId: str(o.id), tool: str(o.tool), sessionId: str(o.sessionId), stepPath: str(o.stepPath) };
}

/**
 * Replays one recorded call: each attempt's recorded arguments through the current guards and
 * policy, in a fresh check session, in the order they were made (an attempt the runtime made
 * itself, after an auto-repair or an automatic retry, is matched to the one it makes now).
 */
export function replayItem(gt: Guardtrace, item: DatasetItem, opts: ReplayOptions = {}): Promise<ReplayResult[]> {
  return new Replayer(gt, opts.execute ?? 'none').replay(item);
}

function emptySummary(): ReplayRunReport['summary'] {
  const s = { calls: 0, attempts: 0 } as ReplayRunReport['summary'];
  for (const c of Object.values(REPLAY_CHANGE)) s[c] = 0;
  return s;
}

/**
 * Replays a dataset (items streamed from an iterable or async iterable, e.g. `readDatasetFile`)
 * and returns the run report: counts per change, and the results of every attempt that changed
 * (unchanged ones are counted, not kept: memory stays flat). Calls of the same recorded session
 * share one check session, in the dataset's order.
 */
export async function replayDataset(
  gt: Guardtrace,
  items: AsyncIterable<DatasetItem | DatasetLineError> | Iterable<DatasetItem | DatasetLineError>,
  opts: ReplayDatasetOptions = {},
): Promise<ReplayRunReport> {
  const now = opts.now ?? (() => new Date());
  const execute = opts.execute ?? 'none';
  const startedAt = now().toISOString();
  const r = new Replayer(gt, execute);
  const summary = emptySummary();
  const results: ReplayResult[] = [];
  for await (const item of items) {
    const rs = await r.replay(item);
    summary.calls += 1;
    for (const x of rs) {
      summary.attempts += 1;
      summary[x.change] += 1;
      if (x.change !== REPLAY_CHANGE.UNCHANGED) results.push(x);
    }
    opts.onProgress?.({ calls: summary.calls, attempts: summary.attempts, changed: results.length });
  }
  return {
    format: REPLAY_RUN_FORMAT,
    datasetId: opts.datasetId ?? null,
    label: opts.label ?? null,
    startedAt,
    finishedAt: now().toISOString(),
    options: { execute, failOn: opts.failOn ?? [] },
    summary,
    results,
  };
}

/** The changes of a report that its `failOn` names (what makes a CI run fail). */
export function failedBy(report: ReplayRunReport, failOn: readonly ReplayChange[] = report.options.failOn): ReplayResult[] {
  return report.results.filter((x) => failOn.includes(x.change));
}
