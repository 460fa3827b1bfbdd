/** How guards read values out of a tool's arguments (no Node imports: used by the main entry). */

/**
 * Arguments as seen by a guard's accessors. Inside `gt.tool({ schema, guards })` TypeScript
 * cannot infer a guard's type from the sibling schema, so the accessor falls back to a loose
 * record instead of `unknown`; with an explicit type argument it is exact.
 */
// biome-ignore lint/suspicious/noExplicitAny: loose fallback when inference has nothing to go on
export type Loose<A> = A & Record<string, any>;

/** Reads one or several paths out of a tool's arguments. */
export type PathsOf<A> = (args: Loose<A>) => string | string[] | undefined;

export function pathsOf<A>(fn: PathsOf<A>, args: A): string[] {
  const v = fn(args as Loose<A>);
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}
