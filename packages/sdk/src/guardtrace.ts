import type { z } from 'zod';
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

  /** Holder of a lock on a resource (e.g. a file), if any. */
  lockHolder(resource: string): string | undefined {
    return this.#rt.locks.holder(resource);
  }
}
