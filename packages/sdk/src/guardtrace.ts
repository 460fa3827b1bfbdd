import type { z } from 'zod';
import { type CheckExecute, type CheckOptions, type CheckResult, checkCall } from './check.ts';
import { type GuardtraceOptions, type RegisteredTool, Runtime } from './runtime.ts';
import { Session, SessionCore, type SessionOptions } from './session.ts';
import type { ToolSpec } from './types.ts';

/**
 * The guard runtime. Register tools once, then open a session per agent run:
 *
 * ```ts
 * const gt = new Guardtrace();
 * gt.tool({ name: 'read_file', description: '...', schema, flags: { readOnly: true }, execute });
 * const s = gt.session({ agentName: 'file-agent', userId: 'u1' });
 * const r = await s.callTool('read_file', '{"path":"src/a.ts"}', { callId: 'call_1' });
 * if (!r.ok) feedToModel(r.feedback);
 * await s.end();
 * ```
 */
export class Guardtrace {
  readonly #rt: Runtime;

  constructor(opts: GuardtraceOptions = {}) {
    this.#rt = new Runtime(opts);
  }

  /** Registers a tool: schema, flags, guards, reconcile hook, per-tool policy. */
  tool<S extends z.ZodType, R>(spec: ToolSpec<S, R>): RegisteredTool {
    return this.#rt.register(spec as unknown as ToolSpec);
  }

  /** Registered tools, in registration order. */
  tools(): RegisteredTool[] {
    return [...this.#rt.tools.values()];
  }

  getTool(name: string): RegisteredTool | undefined {
    return this.#rt.tools.get(name);
  }

  session(opts: SessionOptions): Session {
    return new Session(new SessionCore(this.#rt, opts));
  }

  /**
   * A check session: its calls run the schema, guards, auto-repair and policy exactly as a real
   * session's `callTool` decides them, but no tool runs (with `execute: 'read-only'`, read-only
   * tools do, and their post-execution guards), no span is emitted, and the real sessions'
   * budgets, locks, circuit breakers and idempotency store are not touched. Calls of one check
   * session share its session budgets and repeated-rejection rule, as a real session's do.
   */
  checkSession(opts: { execute?: CheckExecute; id?: string } = {}): Session {
    const rt = this.#rt.checkRuntime(opts.execute ?? 'none');
    return new Session(new SessionCore(rt, { agentName: 'guardtrace-check', ...(opts.id === undefined ? {} : { id: opts.id }) }));
  }

  /**
   * What `callTool` would decide for these arguments, in a fresh check session (see
   * `checkSession`): allowed or not, decision, failure class, the feedback the model would be
   * shown, the failed checks, corrections made in code.
   */
  check(toolName: string, args: unknown, opts: CheckOptions = {}): Promise<CheckResult> {
    const execute = opts.execute ?? 'none';
    return checkCall(this.checkSession({ execute }), (t) => Boolean(this.#rt.tools.get(t)?.flags?.readOnly), toolName, args, { ...opts, execute });
  }

  /** Holder of a lock on a resource (e.g. a file), if any. */
  lockHolder(resource: string): string | undefined {
    return this.#rt.locks.holder(resource);
  }
}
