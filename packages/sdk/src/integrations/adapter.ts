/**
 * What the framework adapters share: the per-tool meta a framework has no place for, the
 * error that stops a run on escalation, the map from a framework's run / thread ids to
 * Guardtrace sessions, and the registration of a framework tool whose execution needs the
 * framework's own invocation (run context, tool-call config).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { SessionOutcome } from '@guardtrace/semconv';
import type { z } from 'zod';
import type { Guardtrace } from '../guardtrace.ts';
import type { Session } from '../session.ts';
import type { CallFailure, CallResult, Guard, ToolContext, ToolFlags, ToolSpec } from '../types.ts';


/** Flags, guards and hooks of a framework tool, which the framework has no place for. */
export interface ToolMeta {
  flags?: ToolFlags;
  guards?: Guard[];
  reconcile?: ToolSpec['reconcile'];
  timeoutMs?: number;
  policy?: ToolSpec['policy'];
  maxAttempts?: number;
  /** Auto-repair of this tool's calls (see `ToolSpec.autoRepair`). */
  autoRepair?: ToolSpec['autoRepair'];
}

/** A Guardtrace tool spec from a framework tool's name, description, zod schema and execute. */
export function specOf(
  name: string,
  description: string,
  schema: z.ZodType,
  execute: ToolSpec['execute'],
  meta: ToolMeta = {},
): ToolSpec {
  const spec: ToolSpec = { name, description, schema, execute };
  if (meta.flags) spec.flags = meta.flags;
  if (meta.guards) spec.guards = meta.guards;
  if (meta.reconcile) spec.reconcile = meta.reconcile;
  if (meta.timeoutMs !== undefined) spec.timeoutMs = meta.timeoutMs;
  if (meta.policy) spec.policy = meta.policy;
  if (meta.maxAttempts !== undefined) spec.maxAttempts = meta.maxAttempts;
  if (meta.autoRepair !== undefined) spec.autoRepair = meta.autoRepair;
  return spec;
}

const STOPS_RUN: ReadonlySet<CallFailure['decision']> = new Set(['escalate_human', 'fail_reconcile', 'abort']);

/**
 * Thrown from a guarded tool when the policy takes the call away from the model (a human,
 * reconciliation, abort): the framework surfaces it as the run's error. `result` holds the
 * decision, class, feedback and full attempt history.
 */
export class GuardtraceEscalation extends Error {
  readonly result: CallFailure;
  constructor(result: CallFailure) {
    super(`guardtrace: tool call "${result.tool}" (${result.callId}) stopped the run: ${result.decision} after ${result.failureClass}`);
    this.name = 'GuardtraceEscalation';
    this.result = result;
  }
}

/** Whether a failed call's decision takes it away from the model (a human, reconciliation, abort): the run should stop. */
export function stopsRun(decision: CallFailure['decision']): boolean {
  return STOPS_RUN.has(decision);
}

/** Throws {@link GuardtraceEscalation} when the result must stop the run; else returns it. */
export function escalateOrReturn(r: CallResult): CallResult {
  if (!r.ok && STOPS_RUN.has(r.decision)) throw new GuardtraceEscalation(r);
  return r;
}

/** Which session a framework invocation belongs to. */
export interface SessionKey {
  id: string;
  userId?: string | undefined;
}

/** Sessions of one agent, keyed by the framework's conversation id, opened on first use. */
export class SessionMap {
  readonly #gt: Guardtrace;
  readonly #agentName: string;
  readonly #open = new Map<string, Session>();
  readonly #beforeEnd: ((session: Session) => void) | undefined;

  /** `beforeEnd` runs as a session is ended here, before its root span closes (to record what is left). */
  constructor(gt: Guardtrace, agentName: string, beforeEnd?: (session: Session) => void) {
    this.#gt = gt;
    this.#agentName = agentName;
    this.#beforeEnd = beforeEnd;
  }

  /** The open session with this id, opened now if there is none. */
  get(key: SessionKey): Session {
    let s = this.#open.get(key.id);
    if (!s) {
      s = this.#gt.session(key.userId !== undefined ? { id: key.id, agentName: this.#agentName, userId: key.userId } : { id: key.id, agentName: this.#agentName });
      this.#open.set(key.id, s);
    }
    return s;
  }

  /** The open session with this id, if any. */
  find(id: string): Session | undefined {
    return this.#open.get(id);
  }

  /** Ends one session (by id) or every open one; returns the outcomes by session id. */
  async end(id?: string, outcome?: SessionOutcome): Promise<Record<string, SessionOutcome>> {
    const ids = id === undefined ? [...this.#open.keys()] : [id];
    const out: Record<string, SessionOutcome> = {};
    for (const k of ids) {
      const s = this.#open.get(k);
      if (!s) continue;
      this.#open.delete(k);
      this.#beforeEnd?.(s);
      out[k] = await s.end(outcome);
    }
    return out;
  }
}

/**
 * Registers a framework tool with Guardtrace. The registered execute runs the framework's
 * own tool body with the framework's invocation (run context, config) of the call being
 * guarded; `run` is how the adapter calls the session with that invocation in scope.
 */
export class InvocationScope<I> {
  readonly #als = new AsyncLocalStorage<I>();

  /** A Guardtrace execute that hands the current invocation to `body`. */
  execute(name: string, body: (args: unknown, ctx: ToolContext, invocation: I) => unknown): ToolSpec['execute'] {
    return (args, ctx) => {
      const invocation = this.#als.getStore();
      if (invocation === undefined) {
        throw new Error(`guardtrace: tool "${name}" was called outside its framework adapter; call the guarded framework tool instead`);
      }
      return body(args, ctx, invocation);
    };
  }

  /** Runs `fn` (a session call) with `invocation` as the one the registered executes see. */
  run<T>(invocation: I, fn: () => Promise<T>): Promise<T> {
    return this.#als.run(invocation, fn);
  }
}
