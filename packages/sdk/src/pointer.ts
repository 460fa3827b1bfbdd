/**
 * JSON pointers (RFC 6901) of the fields a failed guard objects to: recorded on its guard span
 * (`guardtrace.guard.pointers`) so a replay can highlight them in the diff between attempts.
 */

/** The pointer of a path of keys: `['items', 3, 'qty']` → `/items/3/qty`; `[]` → `''` (the whole value). */
export function toPointer(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) out += `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
  return out;
}

/** At most this many pointers per guard: a hint for a reader, not an index of the arguments. */
export const MAX_POINTERS = 16;

/**
 * Where `value` (a string or a number a guard read through an accessor) sits in `args`: every
 * pointer whose value is identical, depth-first, at most {@link MAX_POINTERS}. Empty when the
 * accessor derived the value instead of reading it, so nothing is guessed.
 */
export function pointersTo(args: unknown, value: string | number): string[] {
  const out: string[] = [];
  const seen = new Set<object>();
  const walk = (node: unknown, path: PropertyKey[]): void => {
    if (out.length >= MAX_POINTERS) return;
    if (node === value) {
      out.push(toPointer(path));
      return;
    }
    if (node === null || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) for (const [i, v] of node.entries()) walk(v, [...path, i]);
    else for (const [k, v] of Object.entries(node)) walk(v, [...path, k]);
  };
  walk(args, []);
  return out;
}

/** The pointers of several offending values, in order, without repeats. */
export function pointersOfValues(args: unknown, values: readonly (string | number)[]): string[] {
  const out = new Set<string>();
  for (const v of values) for (const p of pointersTo(args, v)) if (out.size < MAX_POINTERS) out.add(p);
  return [...out];
}
