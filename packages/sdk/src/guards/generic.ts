/** Guards with no I/O of their own: part of the main entry. */
import type { FailureClass } from '@guardtrace/semconv';
import { pointersTo } from '../pointer.ts';
import type { Guard, GuardOutcome } from '../types.ts';
import type { Loose } from './args.ts';

/**
 * Per-resource lock: a second concurrent edit of the same resource is rejected, naming the
 * holder. Held for the attempt, released when it ends.
 */
export function resourceLock<A>(opts: { resource: (args: Loose<A>) => string | string[]; name?: string; describe?: (resource: string) => string }): Guard<A> {
  return {
    name: opts.name ?? 'resource_lock',
    options: { resource: opts.resource, describe: opts.describe },
    check(args, ctx): GuardOutcome {
      const raw = opts.resource(args as Loose<A>);
      const resources = [...new Set(Array.isArray(raw) ? raw : [raw])].sort();
      const taken: string[] = [];
      for (const r of resources) {
        const got = ctx.locks.acquire(r, ctx.holder);
        if (!got.ok) {
          for (const t of taken) ctx.locks.release(t, ctx.holder);
          const what = opts.describe ? opts.describe(r) : `File ${r}`;
          return {
            pass: false,
            reason: `${what} is locked by ${got.holder}`,
            feedback: `TOOL CALL REJECTED: ${what} is already being edited by operation ${got.holder}. Retry when complete, or work on another file.`,
            failureClass: 'guard_violation',
            pointers: pointersTo(args, r),
          };
        }
        taken.push(r);
      }
      return { pass: true, release: () => { for (const t of taken) ctx.locks.release(t, ctx.holder); } };
    },
  };
}

/** A custom precondition with its own message. */
export function predicate<A>(opts: {
  name: string;
  test: (args: Loose<A>) => boolean | Promise<boolean>;
  message: string | ((args: Loose<A>) => string);
  failureClass?: FailureClass;
  /** JSON pointers of the fields the test reads (e.g. `['/amount']`), recorded when it fails so a replay can highlight them. */
  pointers?: string[] | ((args: Loose<A>) => string[]);
}): Guard<A> {
  return {
    name: opts.name,
    options: { test: opts.test, message: opts.message, failureClass: opts.failureClass ?? 'guard_violation', pointers: opts.pointers },
    async check(args): Promise<GuardOutcome> {
      const a = args as Loose<A>;
      if (await opts.test(a)) return { pass: true };
      const message = typeof opts.message === 'function' ? opts.message(a) : opts.message;
      const fail: GuardOutcome = { pass: false, reason: message, feedback: `TOOL CALL REJECTED: ${message}`, failureClass: opts.failureClass ?? 'guard_violation' };
      const pointers = typeof opts.pointers === 'function' ? opts.pointers(a) : opts.pointers;
      if (pointers) fail.pointers = pointers;
      return fail;
    },
  };
}
