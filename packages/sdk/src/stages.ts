import { ATTR_GUARDTRACE_CIRCUIT_STATE } from '@guardtrace/semconv';
import { type AttemptContext, type AttemptRun, type AttemptState, fail } from './attempt-state.ts';
import { classifyError } from './classify.ts';
import { ToolTimeout } from './errors.ts';
import { type GuardRun, runGuardSpan } from './guard-span.ts';
import type { IdempotencyEntry } from './idempotency.ts';
import { checkSchema } from './schema-guard.ts';
import type { ReconcileResult } from './types.ts';

/**
 * One stage of an attempt. It returns the finished run to end the attempt there (a failed
 * guard, a failed execution, an answer from the idempotency store), or nothing to hand on to
 * the next stage. A synchronous stage returns synchronously: no promise, no tick.
 */
export type Stage = (s: AttemptState) => AttemptRun | undefined | Promise<AttemptRun | undefined>;

/** An open circuit fails the attempt fast, before anything else runs. */
const circuitBreaker: Stage = (s) => {
  const { rt, tool, inp } = s;
  const circuit = rt.breakers.state(tool.name, rt.clock.now());
  if (circuit === 'closed') return undefined;
  rt.telemetry.set(inp.attemptSpan, { [ATTR_GUARDTRACE_CIRCUIT_STATE]: circuit });
  if (circuit !== 'open') return undefined;
  const g = runGuardSpan(inp, 'circuit_breaker', 'logical', () => ({
    pass: false,
    reason: `Circuit open for ${tool.name} after repeated failures`,
    feedback: `TOOL CALL REJECTED: ${tool.name} is failing repeatedly and is paused.${tool.fallbackTool ? ` Use ${tool.fallbackTool} instead.` : ' Choose another step.'}`,
    failureClass: 'budget_exhausted',
  }), 'budget_exhausted');
  return then(g, (r) => {
    s.run.guards.push(r.record);
    s.run.circuitOpen = true;
    return fail(s.run, r, 'pre');
  });
};

/** Goes on with a guard's result as soon as it is there: synchronously when the guard was. */
function then<T>(g: GuardRun | Promise<GuardRun>, fn: (g: GuardRun) => T): T | Promise<T> {
  return g instanceof Promise ? g.then(fn) : fn(g);
}

/** The schema guard: validated arguments, or a rejection that names what is wrong. */
const schema: Stage = (s) => {
  const g = runGuardSpan(s.inp, 'schema', 'schema', () => {
    const r = checkSchema(s.tool, s.run.rawArgs);
    if (r.ok) {
      s.run.args = r.data;
      return { pass: true };
    }
    return { pass: false, reason: r.reason, feedback: r.feedback, failureClass: 'invalid_arguments', pointers: r.pointers };
  }, 'invalid_arguments');
  return g instanceof Promise ? g.then((r) => schemaChecked(s.run, r)) : schemaChecked(s.run, g);
};

function schemaChecked(run: AttemptRun, g: GuardRun): AttemptRun | undefined {
  run.guards.push(g.record);
  if (!g.outcome.pass) return fail(run, g, 'pre');
  run.parsed = true;
  return undefined;
}

/**
 * The idempotency store, for tools that change the world: a call already done is answered
 * from the store; one with an uncertain outcome is reconciled first, or refused.
 */
const idempotencyStore: Stage = (s) => {
  const { tool, run, ctx } = s;
  // the key is made up front for side-effecting tools (the store needs it), on first read for the others
  s.sideEffect = !(tool.flags?.readOnly || tool.flags?.idempotent);
  if (s.sideEffect || tool.reconcile) run.idempotencyKey = ctx.idempotencyKey;
  if (!s.sideEffect) return undefined;
  const key = run.idempotencyKey ?? '';
  const entry = s.rt.idempotency.get(key);
  return entry ? storeEntry(s, key, entry) : undefined;
};

async function storeEntry(s: AttemptState, key: string, entry: IdempotencyEntry): Promise<AttemptRun | undefined> {
  const { rt, tool, run } = s;
  if (entry.status === 'done') {
    const g = await runGuardSpan(s.inp, 'idempotency', 'logical', () => ({ pass: true }), 'guard_violation');
    run.guards.push(g.record);
    return answered(run, entry.value);
  }
  if (entry.status !== 'uncertain') return undefined;
  let rec = { status: 'unknown', detail: 'no reconcile hook' } as ReconcileResult;
  const g = await runGuardSpan(s.inp, 'idempotency', 'logical', async () => {
    if (tool.reconcile) rec = await tool.reconcile(key, run.args);
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
    return answered(run, rec.value);
  }
  rt.idempotency.delete(key);
  return undefined;
}

function answered(run: AttemptRun, value: unknown): AttemptRun {
  run.ok = true;
  run.value = value;
  run.deduplicated = true;
  return run;
}

/** The tool's own guards that run before execution (preconditions, locks), in declared order. */
const logicalGuards: Stage = (s) => (s.tool.guards?.length ? runLogicalGuards(s) : undefined);

async function runLogicalGuards(s: AttemptState): Promise<AttemptRun | undefined> {
  const { tool, run, ctx } = s;
  for (const guard of tool.guards ?? []) {
    if (guard.stage === 'post_execution') continue;
    const g = await runGuardSpan(s.inp, guard.name, 'logical', () => guard.check(run.args, ctx), 'guard_violation');
    run.guards.push(g.record);
    if (g.outcome.pass && g.outcome.release) s.releases.push(g.outcome.release);
    if (!g.outcome.pass) return fail(run, g, 'pre');
  }
  return undefined;
}

/**
 * Whether the tool runs in this attempt: always in a real session; in a check session
 * (`gt.checkSession()`) only a read-only tool under `execute: 'read-only'`.
 */
function runsTool(s: AttemptState): boolean {
  const mode = s.rt.dryRun;
  return mode === undefined || (mode === 'read-only' && Boolean(s.tool.flags?.readOnly));
}

/** Post-execution guards prepare before the tool runs (a snapshot to roll back to, say). */
const preparePostGuards: Stage = (s) => (s.tool.guards?.length && runsTool(s) ? preparePost(s) : undefined);

async function preparePost(s: AttemptState): Promise<undefined> {
  for (const guard of s.tool.guards ?? []) {
    if (guard.stage !== 'post_execution') continue;
    s.post.push({ guard, prepared: guard.prepare ? await guard.prepare(s.run.args, s.ctx) : undefined });
  }
  return undefined;
}

/** Settled already: a stage that waits for nothing but must take the tick an `await` would. */
const ONE_TICK: Promise<undefined> = Promise.resolve(undefined);

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  (typeof v === 'object' || typeof v === 'function') && v !== null && typeof (v as PromiseLike<unknown>).then === 'function';

/**
 * Runs the tool under the attempt span (and its timeout); a throw is classified. A tool that
 * answers synchronously still costs the attempt one tick (as `await` of its value did), so
 * calls that run side by side interleave as they always have.
 */
const execute: Stage = (s) => {
  const { rt, tool, run, ctx } = s;
  if (!runsTool(s)) return notExecuted(run);
  let out: unknown;
  try {
    const exec = (): unknown => tool.execute(run.args, ctx);
    const ms = tool.timeoutMs;
    out = rt.telemetry.withSpan(s.inp.attemptSpan, ms === undefined ? exec : () => raceTimeout(ms, ctx, exec));
  } catch (err) {
    return executionFailed(s, err);
  }
  if (isThenable(out)) {
    return Promise.resolve(out).then(
      (value) => {
        s.value = value;
        return undefined;
      },
      (err: unknown) => executionFailed(s, err),
    );
  }
  s.value = out;
  return ONE_TICK;
};

/** A check session's verdict on a tool it does not run: the guards let the call through; nothing ran, nothing is stored. */
function notExecuted(run: AttemptRun): AttemptRun {
  run.ok = true;
  run.value = undefined;
  run.notExecuted = true;
  return run;
}

function executionFailed(s: AttemptState, err: unknown): AttemptRun {
  const { rt, tool, run, ctx } = s;
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

/** Post-execution gates (tests, lint, diffs) over the tool's result. */
const postGuards: Stage = (s) => (s.post.length > 0 ? runPostGuards(s) : undefined);

async function runPostGuards(s: AttemptState): Promise<AttemptRun | undefined> {
  const { run, ctx } = s;
  for (const { guard, prepared } of s.post) {
    ctx.result = s.value;
    ctx.prepared = prepared;
    const g = await runGuardSpan(s.inp, guard.name, 'post_execution', () => guard.check(run.args, ctx), 'execution_feedback');
    run.guards.push(g.record);
    if (!g.outcome.pass) return fail(run, g, 'post');
  }
  return undefined;
}

/** Every stage passed: the result is stored for side-effecting tools and the attempt succeeds. */
const succeed: Stage = (s) => {
  const { run } = s;
  if (s.sideEffect) s.rt.idempotency.set(run.idempotencyKey ?? '', { status: 'done', value: s.value });
  run.ok = true;
  run.value = s.value;
  return run;
};

/** The stages of an attempt of a registered tool, in the order they run. */
export const STAGES: readonly Stage[] = [
  circuitBreaker,
  schema,
  idempotencyStore,
  logicalGuards,
  preparePostGuards,
  execute,
  postGuards,
  succeed,
];
