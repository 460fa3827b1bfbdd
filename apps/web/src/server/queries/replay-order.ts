/**
 * Order of the replay's steps: causes before their effects, parents before their children,
 * and only then time. A repair turn comes after the failed attempt it repairs even when the
 * clocks say otherwise or tie; time (to the nanosecond) only breaks what the chain leaves open.
 */

export interface OrderNode {
  key: string;
  /** Start in Unix nanoseconds. */
  startNs: bigint;
  /** Breaks exact start ties between kinds: lower first. */
  rank: number;
  spanId: string;
}

/** `before` must come before `after`. */
export interface OrderEdge {
  before: string;
  after: string;
}

function compare(a: OrderNode, b: OrderNode): number {
  if (a.startNs !== b.startNs) return a.startNs < b.startNs ? -1 : 1;
  return a.rank - b.rank || (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0);
}

/** A binary min-heap of node indexes ordered by `cmp`. */
class Heap {
  private readonly items: number[] = [];
  constructor(private readonly cmp: (a: number, b: number) => number) {}
  get size(): number {
    return this.items.length;
  }
  push(v: number): void {
    const a = this.items;
    a.push(v);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.cmp(a[i] as number, a[p] as number) >= 0) break;
      [a[i], a[p]] = [a[p] as number, a[i] as number];
      i = p;
    }
  }
  pop(): number {
    const a = this.items;
    const top = a[0] as number;
    const last = a.pop() as number;
    if (a.length) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.cmp(a[l] as number, a[m] as number) < 0) m = l;
        if (r < a.length && this.cmp(a[r] as number, a[m] as number) < 0) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m] as number, a[i] as number];
        i = m;
      }
    }
    return top;
  }
}

/**
 * Topological order of `nodes` under `edges`, the earliest ready node first. Edges naming
 * unknown nodes are ignored; nodes caught in a cycle (inconsistent data) follow in time order.
 */
export function orderSteps<T extends OrderNode>(nodes: T[], edges: OrderEdge[]): T[] {
  const index = new Map<string, number>();
  for (let i = 0; i < nodes.length; i++) index.set((nodes[i] as T).key, i);
  const out: number[][] = nodes.map(() => []);
  const indegree = new Array<number>(nodes.length).fill(0);
  for (const e of edges) {
    const b = index.get(e.before);
    const a = index.get(e.after);
    if (b === undefined || a === undefined || a === b) continue;
    out[b]?.push(a);
    indegree[a] = (indegree[a] ?? 0) + 1;
  }
  const heap = new Heap((x, y) => compare(nodes[x] as T, nodes[y] as T));
  indegree.forEach((d, i) => {
    if (d === 0) heap.push(i);
  });
  const done = new Array<boolean>(nodes.length).fill(false);
  const result: T[] = [];
  while (heap.size) {
    const i = heap.pop();
    done[i] = true;
    result.push(nodes[i] as T);
    for (const j of out[i] ?? []) {
      indegree[j] = (indegree[j] ?? 0) - 1;
      if (indegree[j] === 0) heap.push(j);
    }
  }
  if (result.length < nodes.length) {
    result.push(...nodes.filter((_, i) => !done[i]).sort(compare));
  }
  return result;
}
