import { realpathSync } from 'node:fs';
import path from 'node:path';

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

/** Closest existing ancestor's real path, so a symlink inside the root cannot point outside it. */
function realish(p: string): string {
  let cur = p;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(realpathSync(cur), ...rest.reverse());
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return p;
      rest.push(path.basename(cur));
      cur = parent;
    }
  }
}

/** Resolves `p` against `root`; undefined when it escapes the root (../, absolute elsewhere, symlink out). */
export function resolveInside(root: string, p: string): string | undefined {
  const realRoot = realish(path.resolve(root));
  const abs = realish(path.resolve(realRoot, p));
  const rel = path.relative(realRoot, abs);
  if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) return abs;
  return undefined;
}

/** Workspace-relative display path with forward slashes. */
export function displayPath(root: string, abs: string): string {
  return path.relative(realish(path.resolve(root)), abs).split(path.sep).join('/');
}
