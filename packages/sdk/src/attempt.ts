import type { Span } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_GUARDRAIL_NAME,
  ATTR_GEN_AI_GUARDRAIL_REASON,
  ATTR_GEN_AI_GUARDRAIL_VERDICT,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GUARDTRACE_CIRCUIT_STATE,
  ATTR_GUARDTRACE_DECISION,
  ATTR_GUARDTRACE_FAILURE_CLASS,
  ATTR_GUARDTRACE_GUARD_CANDIDATES,
  ATTR_GUARDTRACE_GUARD_DURATION_US,
  ATTR_GUARDTRACE_GUARD_STAGE,
  type FailureClass,
  type GuardStage,
  OP_APPLY_GUARDRAIL,
} from '@guardtrace/semconv';
import { classifyError } from './classify.ts';
import { ToolTimeout } from './errors.ts';
import { canonicalJson, idempotencyKey } from './idempotency.ts';
import type { RegisteredTool, Runtime } from './runtime.ts';
import { sanitizeFeedback } from './sanitize.ts';
import { checkSchema } from './schema-guard.ts';
import type { Guard, GuardContext, GuardOutcome, GuardRecord, ReconcileResult, ToolContext } from './types.ts';
import { rankNames, unknownToolFeedback } from './unknown-tool.ts';

/** A guard span whose decision is set once the policy has decided, then ended at the guard's own end time. */
export interface PendingGuardSpan {
  span: Span;
  endTime: number;
}

export interface AttemptRun {
  ok: boolean;
  value?: unknown;
  deduplicated?: boolean;
  failureClass?: FailureClass;
  feedback?: string;
  errorType?: string;
  retryAfterMs?: number;
  candidates?: string[];
  /** Where the attempt stopped: before execution (rejected), during or after it (failed). */
  stage?: 'pre' | 'execution' | 'post';
  /** Arguments as the model sent them. */
  rawArgs: unknown;
  /** True once the schema guard passed; `args` then holds the validated arguments. */
  parsed: boolean;
  args?: unknown;
  idempotencyKey?: string;
  guards: GuardRecord[];
  failingGuard?: PendingGuardSpan;
  reconciliation?: ReconcileResult;
  /** The tool's circuit was open: the attempt failed fast. */
  circuitOpen?: boolean;
}

export interface AttemptInput {
  rt: Runtime;
  tool: RegisteredTool | undefined;
  toolName: string;
  rawArgs: unknown;
  attemptSpan: Span;
  sessionId: string;
  callId: string;
  intentId: string | undefined;
  attempt: number;
}

const nowMs = (): number => performance.timeOrigin + performance.now();

type GuardRun = { outcome: GuardOutcome; record: GuardRecord; pending?: PendingGuardSpan; failureClass?: FailureClass };

/**
 * Runs one guard (or a built-in check) inside its own `apply_guardrail` span. Synchronous
 * guards (the schema guard, most predicates) complete synchronously: no promise, no tick.
 */
export function runGuardSpan(
  inp: Pick<AttemptInput, 'rt' | 'attemptSpan' | 'sessionId'>,
  name: string,
  stage: GuardStage,
  fn: () => GuardOutcome | Promise<GuardOutcome>,
  defaultClass: FailureClass,
): GuardRun | Promise<GuardRun> {
  const { rt } = inp;
  const span = rt.telemetry.start(`${OP_APPLY_GUARDRAIL} ${name}`, {
    [ATTR_GEN_AI_OPERATION_NAME]: OP_APPLY_GUARDRAIL,
    [ATTR_GEN_AI_CONVERSATION_ID]: inp.sessionId,
    [ATTR_GEN_AI_GUARDRAIL_NAME]: name,
    [ATTR_GUARDTRACE_GUARD_STAGE]: stage,
  }, inp.attemptSpan);
  const t0 = performance.now();
  let o: GuardOutcome | Promise<GuardOutcome>;
  try {
    o = fn();
  } catch (err) {
    o = guardThrew(name, err);
  }
  if (o instanceof Promise) {
    return o.catch((err: unknown) => guardThrew(name, err)).then((outcome) => finishGuard(rt, span, name, stage, t0, outcome, defaultClass));
  }
  return finishGuard(rt, span, name, stage, t0, o, defaultClass);
}

function guardThrew(name: string, err: unknown): GuardOutcome {
  return { pass: false, reason: `Guard ${name} threw: ${classifyError(err, {}).message}`, failureClass: 'guard_violation' };
}

function finishGuard(rt: Runtime, span: Span, name: string, stage: GuardStage, t0: number, outcome: GuardOutcome, defaultClass: FailureClass): GuardRun {
  const durationUs = Math.max(0, Math.round((performance.now() - t0) * 1000));
  const record: GuardRecord = { name, stage, verdict: outcome.pass ? 'pass' : 'fail', durationUs };
  if (outcome.pass) {
    rt.telemetry.set(span, { [ATTR_GEN_AI_GUARDRAIL_VERDICT]: 'pass', [ATTR_GUARDTRACE_GUARD_DURATION_US]: durationUs });
    rt.telemetry.end(span);
    return { outcome, record };
  }
  const failureClass = outcome.failureClass ?? defaultClass;
  record.reason = sanitizeFeedback(outcome.reason, rt.sanitize);
  if (outcome.candidates) record.candidates = outcome.candidates;
  rt.telemetry.set(span, {
    [ATTR_GEN_AI_GUARDRAIL_VERDICT]: 'fail',
    [ATTR_GUARDTRACE_GUARD_DURATION_US]: durationUs,
    [ATTR_GEN_AI_GUARDRAIL_REASON]: record.reason,
    [ATTR_GUARDTRACE_FAILURE_CLASS]: failureClass,
    [ATTR_ERROR_TYPE]: failureClass,
    [ATTR_GUARDTRACE_GUARD_CANDIDATES]: outcome.candidates,
  });
  return { outcome, record, pending: { span, endTime: nowMs() }, failureClass };
}

/** Sets the decision on a failed guard's span and ends it. */
export function closeGuardSpan(rt: Runtime, pending: PendingGuardSpan | undefined, decision: string): void {
  if (!pending) return;
  rt.telemetry.set(pending.span, { [ATTR_GUARDTRACE_DECISION]: decision });
  rt.telemetry.end(pending.span, { endTime: pending.endTime, error: 'guard failed' });
}

function fail(run: AttemptRun, g: GuardRun, stage: AttemptRun['stage']): AttemptRun {
  const o = g.outcome as Extract<GuardOutcome, { pass: false }>;
  run.ok = false;
  run.failureClass = g.failureClass ?? 'guard_violation';
  run.feedback = o.feedback ?? o.reason;
  run.errorType = run.failureClass;
  run.stage = stage;
  run.failingGuard = g.pending;
  if (o.candidates) run.candidates = o.candidates;
  return run;
}

/** Canonical JSON of an attempt's arguments: validated ones when the schema passed, else what was sent. */
export function canonicalArgs(run: AttemptRun): string {
  if (run.parsed) return canonicalJson(run.args);
  return typeof run.rawArgs === 'string' ? run.rawArgs : canonicalJson(run.rawArgs);
}

/** Shared by tools without a timeout: never aborts, saves an AbortController per call. */
const NEVER = new AbortController().signal;

/**
 * The context handed to guards and to the tool: one object per attempt, the idempotency key
 * (a SHA-256) made on first read for tools that do not need it up front.
 */
class AttemptContext implements GuardContext, ToolContext {
  #key: string | undefined;
  result?: unknown;
  prepared?: unknown;
  signal: AbortSignal = NEVER;
  readonly holder: string;
  constructor(
    readonly tool: string,
    readonly sessionId: string,
    readonly callId: string,
    readonly attempt: number,
    readonly locks: GuardContext['locks'],
    private readonly keyInput: { tool: RegisteredTool; args: unknown; intent: string },
  ) {
    this.holder = `${sessionId}/${callId}`;
  }
  get idempotencyKey(): string {
    if (this.#key === undefined) {
      const { tool, args, intent } = this.keyInput;
      this.#key = idempotencyKey(tool.name, tool.idempotencyArgs ? tool.idempotencyArgs(args) : args, intent);
    }
    return this.#key;
  }
}


async function raceTimeout<T>(ms: number, ctx: AttemptContext, fn: () => T | Promise<T>): Promise<T> {
  const ac = new AbortController();
  ctx.signal = ac.signal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new ToolTimeout(ms);
      ac.abort(err);
      reject(err);
    }, ms);
  });
  try {
    return await Promise.race([Promise.resolve().then(fn), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** One attempt: circuit breaker, schema, idempotency store, logical guards, execution, post-execution gates. */
export async function runAttempt(inp: AttemptInput): Promise<AttemptRun> {
  const { rt, tool, toolName, rawArgs } = inp;
  const run: AttemptRun = { ok: false, rawArgs, parsed: false, guards: [] };

  if (!tool) {
    const ranked = rankNames(toolName, [...rt.tools.keys()]);
    const g = await runGuardSpan(inp, 'tool_exists', 'schema', () => ({
      pass: false,
      reason: `Unknown tool "${toolName}"`,
      feedback: unknownToolFeedback(toolName, ranked),
      failureClass: 'unknown_tool',
      candidates: ranked,
    }), 'unknown_tool');
    run.guards.push(g.record);
    return fail(run, g, 'pre');
  }

  const circuit = rt.breakers.state(tool.name, rt.clock.now());
  if (circuit !== 'closed') rt.telemetry.set(inp.attemptSpan, { [ATTR_GUARDTRACE_CIRCUIT_STATE]: circuit });
  if (circuit === 'open') {
    const g = await runGuardSpan(inp, 'circuit_breaker', 'logical', () => ({
      pass: false,
      reason: `Circuit open for ${tool.name} after repeated failures`,
      feedback: `TOOL CALL REJECTED: ${tool.name} is failing repeatedly and is paused.${tool.fallbackTool ? ` Use ${tool.fallbackTool} instead.` : ' Choose another step.'}`,
      failureClass: 'budget_exhausted',
    }), 'budget_exhausted');
    run.guards.push(g.record);
    run.circuitOpen = true;
    return fail(run, g, 'pre');
  }

  let args: unknown;
  const schemaRun = runGuardSpan(inp, 'schema', 'schema', () => {
    const r = checkSchema(tool, rawArgs);
    if (r.ok) {
      args = r.data;
      return { pass: true };
    }
    return { pass: false, reason: r.reason, feedback: r.feedback, failureClass: 'invalid_arguments' };
  }, 'invalid_arguments');
  const schema = schemaRun instanceof Promise ? await schemaRun : schemaRun;
  run.guards.push(schema.record);
  if (!schema.outcome.pass) return fail(run, schema, 'pre');
  run.parsed = true;
  run.args = args;
  const intent = inp.intentId ?? `session:${inp.sessionId}`;
  const ctx = new AttemptContext(tool.name, inp.sessionId, inp.callId, inp.attempt, rt.locks, { tool, args, intent });
  // the key is made up front for side-effecting tools (the store needs it), on first read for the others
  const sideEffect = !(tool.flags?.readOnly || tool.flags?.idempotent);
  if (sideEffect || tool.reconcile) run.idempotencyKey = ctx.idempotencyKey;
  const key = run.idempotencyKey ?? '';

  if (sideEffect) {
    const entry = rt.idempotency.get(key);
    if (entry?.status === 'done') {
      const g = await runGuardSpan(inp, 'idempotency', 'logical', () => ({ pass: true }), 'guard_violation');
      run.guards.push(g.record);
      run.ok = true;
      run.value = entry.value;
      run.deduplicated = true;
      return run;
    }
    if (entry?.status === 'uncertain') {
      let rec = { status: 'unknown', detail: 'no reconcile hook' } as ReconcileResult;
      const g = await runGuardSpan(inp, 'idempotency', 'logical', async () => {
        if (tool.reconcile) rec = await tool.reconcile(key, args);
        if (rec.status === 'committed') return { pass: true };
        if (rec.status === 'not_committed') return { pass: true };
        return {
          pass: false,
          reason: `An earlier call with idempotency key ${key} has no confirmed outcome`,
          feedback: `TOOL CALL REJECTED: an earlier ${tool.name} call for this intent may already have taken effect and is not reconciled. Do not repeat it; wait for reconciliation.`,
          failureClass: 'uncertain_side_effect',
        };
      }, 'uncertain_side_effect');
      run.guards.push(g.record);
      run.reconciliation = rec;
      if (!g.outcome.pass) return fail(run, g, 'pre');
      if (rec.status === 'committed') {
        rt.idempotency.set(key, { status: 'done', value: rec.value });
        run.ok = true;
        run.value = rec.value;
        run.deduplicated = true;
        return run;
      }
      rt.idempotency.delete(key);
    }
  }

  const releases: (() => void | Promise<void>)[] = [];
  const post: { guard: Guard; prepared: unknown }[] = [];
  try {
    for (const guard of tool.guards ?? []) {
      if (guard.stage === 'post_execution') continue;
      const g = await runGuardSpan(inp, guard.name, 'logical', () => guard.check(args, ctx), 'guard_violation');
      run.guards.push(g.record);
      if (g.outcome.pass && g.outcome.release) releases.push(g.outcome.release);
      if (!g.outcome.pass) return fail(run, g, 'pre');
    }
    for (const guard of tool.guards ?? []) {
      if (guard.stage !== 'post_execution') continue;
      post.push({ guard, prepared: guard.prepare ? await guard.prepare(args, ctx) : undefined });
    }

    let value: unknown;
    try {
      const exec = (): unknown => tool.execute(args, ctx);
      const ms = tool.timeoutMs;
      value = await rt.telemetry.withSpan(inp.attemptSpan, ms === undefined ? exec : () => raceTimeout(ms, ctx, exec));
    } catch (err) {
      const c = classifyError(err, tool.flags);
      run.failureClass = c.failureClass;
      run.errorType = c.errorType;
      run.feedback = `${tool.name} failed: ${c.message}`;
      if (c.retryAfterMs !== undefined) run.retryAfterMs = c.retryAfterMs;
      run.stage = 'execution';
      if (c.failureClass === 'uncertain_side_effect') {
        run.idempotencyKey = ctx.idempotencyKey;
        rt.idempotency.set(run.idempotencyKey, { status: 'uncertain' });
      }
      return run;
    }

    for (const { guard, prepared } of post) {
      ctx.result = value;
      ctx.prepared = prepared;
      const g = await runGuardSpan(inp, guard.name, 'post_execution', () => guard.check(args, ctx), 'execution_feedback');
      run.guards.push(g.record);
      if (!g.outcome.pass) return fail(run, g, 'post');
    }
    if (sideEffect) rt.idempotency.set(key, { status: 'done', value });
    run.ok = true;
    run.value = value;
    return run;
  } finally {
    for (const release of releases.reverse()) {
      try {
        await release();
      } catch {
        // a failing release must not turn a finished attempt into a failure
      }
    }
  }
}
