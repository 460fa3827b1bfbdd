/**
 * What changed between two attempts' arguments, as JSON pointers (RFC 6901) with the values
 * before and after, and what became of the fields a failed check pointed at. The diff itself
 * is jsondiffpatch's (array items matched by their longest common subsequence, moves found);
 * this module only reads its delta. No Node or React imports: used by client components.
 */
import { type ArrayDelta, create, type Delta, type ObjectDelta } from 'jsondiffpatch';

/** Fields that name an array item: items keep their identity across insertions and reorders. */
const ID_FIELDS = ['id', 'key', 'name', 'sku'];

/** An item's identity: its id-like field, else its position (what jsondiffpatch does without a hash). */
function itemHash(item: object, index?: number): string {
  for (const k of ID_FIELDS) {
    const v = (item as Record<string, unknown>)[k];
    if (typeof v === 'string' || typeof v === 'number') return `${k}:${v}`;
  }
  return `#${index ?? ''}`;
}

// Text diffs stay off (no diff-match-patch passed): a changed string is one before/after pair.
const patcher = create({ objectHash: itemHash, arrays: { detectMove: true, includeValueOnMove: false } });

type ChangeKind = 'added' | 'removed' | 'changed' | 'moved';

/** One changed path. `pointer` is where it is after the change (where it was, for a removal). */
export interface JsonChange {
  kind: ChangeKind;
  pointer: string;
  /** Where it was before: differs from `pointer` when array items before it came or went, or it moved. */
  beforePointer: string | null;
  afterPointer: string | null;
  before?: unknown;
  after?: unknown;
}

type Key = string | number;

/** `['items', 3, 'qty']` → `/items/3/qty`; `[]` → `''`, the whole value. */
export function toPointer(path: readonly Key[]): string {
  let out = '';
  for (const k of path) out += `/${String(k).replace(/~/g, '~0').replace(/\//g, '~1')}`;
  return out;
}

/** The reference tokens of a pointer; throws on text that is not a pointer (no leading `/`). */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`Not a JSON pointer: ${JSON.stringify(pointer)} (expected '' or a path starting with '/')`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value a pointer designates, if there is one. */
export function valueAt(root: unknown, pointer: string): { found: true; value: unknown } | { found: false } {
  let cur = root;
  for (const token of parsePointer(pointer)) {
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= cur.length) return { found: false };
      cur = cur[Number(token)];
    } else if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, token)) {
      cur = (cur as Record<string, unknown>)[token];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: cur };
}

/** Arguments as recorded (JSON text) as a value to diff; text that is not JSON stays a string. */
export function parseArguments(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const isArrayDelta = (d: Delta): d is ArrayDelta => d !== null && typeof d === 'object' && !Array.isArray(d) && (d as ArrayDelta)._t === 'a';

function at(v: unknown, k: Key): unknown {
  return v !== null && typeof v === 'object' ? (v as Record<Key, unknown>)[k] : undefined;
}

/**
 * Old index of each new index kept in place: the items neither added, removed nor moved are
 * jsondiffpatch's common subsequence, so they pair up in order.
 */
function keptPairs(d: ArrayDelta, oldLength: number, newLength: number): Map<number, number> {
  const goneOld = new Set<number>();
  const cameNew = new Set<number>();
  for (const [k, v] of Object.entries(d)) {
    if (k === '_t' || !Array.isArray(v)) continue;
    if (k.startsWith('_')) {
      goneOld.add(Number(k.slice(1)));
      if (v[2] === 3) cameNew.add(v[1] as number);
    } else if (v.length === 1) {
      cameNew.add(Number(k));
    }
  }
  const olds = Array.from({ length: oldLength }, (_, i) => i).filter((i) => !goneOld.has(i));
  const news = Array.from({ length: newLength }, (_, i) => i).filter((i) => !cameNew.has(i));
  const pairs = new Map<number, number>();
  news.forEach((n, i) => {
    const o = olds[i];
    if (o !== undefined) pairs.set(n, o);
  });
  return pairs;
}

function walk(d: Delta, before: unknown, after: unknown, bp: Key[], ap: Key[], out: JsonChange[]): void {
  if (d === undefined) return;
  if (Array.isArray(d)) {
    if (d.length === 1) out.push({ kind: 'added', pointer: toPointer(ap), beforePointer: null, afterPointer: toPointer(ap), after: d[0] });
    else if (d.length === 2) out.push({ kind: 'changed', pointer: toPointer(ap), beforePointer: toPointer(bp), afterPointer: toPointer(ap), before: d[0], after: d[1] });
    else if (d[2] === 0) out.push({ kind: 'removed', pointer: toPointer(bp), beforePointer: toPointer(bp), afterPointer: null, before: before });
    return;
  }
  if (!isArrayDelta(d)) {
    for (const [k, sub] of Object.entries(d as ObjectDelta)) walk(sub, at(before, k), at(after, k), [...bp, k], [...ap, k], out);
    return;
  }
  const oldLength = Array.isArray(before) ? before.length : 0;
  const newLength = Array.isArray(after) ? after.length : 0;
  const pairs = keptPairs(d, oldLength, newLength);
  const movedFrom = new Map<number, number>();
  for (const [k, v] of Object.entries(d)) {
    if (!k.startsWith('_') || k === '_t' || !Array.isArray(v)) continue;
    const i = Number(k.slice(1));
    if (v[2] === 3) {
      const to = v[1] as number;
      movedFrom.set(to, i);
      out.push({ kind: 'moved', pointer: toPointer([...ap, to]), beforePointer: toPointer([...bp, i]), afterPointer: toPointer([...ap, to]), before: at(before, i), after: at(after, to) });
    } else {
      walk(v as Delta, at(before, i), undefined, [...bp, i], [...ap, i], out);
    }
  }
  for (const [k, v] of Object.entries(d)) {
    if (k.startsWith('_')) continue;
    const n = Number(k);
    const o = movedFrom.get(n) ?? pairs.get(n) ?? n;
    walk(v as Delta, at(before, o), at(after, n), [...bp, o], [...ap, n], out);
  }
}

const order = (a: JsonChange, b: JsonChange) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0);

/** Every changed path between two values, sorted by pointer; empty when they are equal. */
export function diffJson(before: unknown, after: unknown): JsonChange[] {
  const out: JsonChange[] = [];
  walk(patcher.diff(before, after), before, after, [], [], out);
  return out.sort(order);
}

/** `a` is `b`, or one of them holds the other (`/items` and `/items/3/qty`). */
export function related(a: string, b: string): boolean {
  return a === b || a === '' || b === '' || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/**
 * What the next attempt did about a field a failed check pointed at:
 * - `fixed`: the value at the pointer changed and the next attempt passed that check;
 * - `still-failing`: it changed, and the check still fails there (or the next attempt failed
 *   with the same class without naming a field);
 * - `changed-something-else`: it did not change, other paths did;
 * - `ignored`: nothing changed at all.
 */
export type PointerVerdict = 'fixed' | 'still-failing' | 'changed-something-else' | 'ignored';

export interface PointerOutcome {
  pointer: string;
  verdict: PointerVerdict;
  /** The changes at, inside or around the pointer. */
  changes: JsonChange[];
}

/** One side of a comparison: its arguments and how its checks went. */
export interface AttemptSide {
  args: unknown;
  failedPointers: readonly string[];
  passed: boolean;
  failureClass?: string | null;
}

/** The verdict on each failed pointer of `before`, given the diff to `after`. */
export function pointerVerdicts(before: AttemptSide, after: AttemptSide, changes: readonly JsonChange[] = diffJson(before.args, after.args)): PointerOutcome[] {
  return before.failedPointers.map((pointer) => {
    const here = changes.filter((c) => related(c.beforePointer ?? c.pointer, pointer) || (c.afterPointer !== null && related(c.afterPointer, pointer)));
    let verdict: PointerVerdict;
    if (here.length > 0) {
      // a later failure that names no field counts against it when its class is the same
      const unnamed = after.failedPointers.length === 0 && after.failureClass != null && after.failureClass === before.failureClass;
      const stillFails = !after.passed && (after.failedPointers.some((p) => related(p, pointer)) || unnamed);
      verdict = stillFails ? 'still-failing' : 'fixed';
    } else {
      verdict = changes.length > 0 ? 'changed-something-else' : 'ignored';
    }
    return { pointer, verdict, changes: here };
  });
}
