import { realpathSync } from 'node:fs';
import path from 'node:path';

export type { Loose, PathsOf } from './args.ts';
export { pathsOf } from './args.ts';

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
