/** How guards read values out of a tool's arguments (no Node imports: used by the main entry). */
import type { GuardFail } from '../types.ts';

/**
 * Arguments as seen by a guard's accessors. Inside `gt.tool({ schema, guards })` TypeScript
 * cannot infer a guard's type from the sibling schema, so the accessor falls back to a loose
 * record instead of `unknown`; with a type argument (`insideWorkspace<Args>(...)`) or a
 * contextual type (`const g: Guard<Args> = ...`) it is exact, and a misspelt field is an error.
 */
// biome-ignore lint/suspicious/noExplicitAny: loose fallback when inference has nothing to go on
export type Loose<A> = unknown extends A ? Record<string, any> : A;

/** Reads one or several paths out of a tool's arguments; `[]` when the call names no path. */
export type PathsOf<A> = (args: Loose<A>) => string | string[] | undefined;

/**
 * The paths a guard checks. A callback that yields no path (`undefined`, e.g. a misspelt field
 * the loose fallback let through) or anything but strings is a configuration error: the guard
 * fails closed with class `fatal`, naming the guard and the tool, rather than passing the call
 * unchecked. A call that legitimately names no path returns `[]`.
 */
export function pathsOf<A>(fn: PathsOf<A>, args: A, where: { guard: string; tool: string }): string[] | GuardFail {
  const v: unknown = fn(args as Loose<A>);
  const list: unknown[] = Array.isArray(v) ? v : [v];
  if (list.every((p): p is string => typeof p === 'string')) return list;
  const got = v === undefined ? 'no path (undefined)' : `a value that is not a path (${Array.isArray(v) ? 'an array with non-strings' : typeof v})`;
  return {
    pass: false,
    reason: `Guard ${where.guard} of tool ${where.tool} is misconfigured: its paths callback returned ${got}. Make it read a field of the tool's arguments, or return [] when a call names no path.`,
    feedback: `TOOL CALL FAILED: ${where.tool} is misconfigured (guard ${where.guard}) and cannot run. Do not retry it.`,
    failureClass: 'fatal',
  };
}
