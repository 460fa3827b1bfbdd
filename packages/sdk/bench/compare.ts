/**
 * `pnpm --filter @guardtrace/sdk exec tsx bench/compare.ts OTHER [calls] [rounds]`: the
 * workload of overhead.ts (session.callTool on a read-only tool, spans into an in-memory
 * exporter) on this checkout's SDK and on another one's, side by side in one process. OTHER is
 * the other checkout's packages/sdk/src/index.ts (a commit before a change, say, from
 * `git worktree add ../before <commit>` and `pnpm install` there). Rounds alternate which side
 * goes first; reported: median wall and process CPU time per call, this / other, and the median
 * of the per-round ratios (robust to load that drifts between rounds on a shared machine).
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Guardtrace } from '../src/index.ts';
import { args, median, provider, schema } from './overhead.ts';

const USAGE = 'usage: tsx bench/compare.ts <other checkout>/packages/sdk/src/index.ts [calls per round, default 5000] [rounds, default 41]';

function count(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`bench/compare.ts: ${name} must be a positive integer, got "${value}". ${USAGE}`);
  return n;
}

const [other, callsArg, roundsArg] = process.argv.slice(2);
if (!other || !existsSync(other)) throw new Error(`bench/compare.ts: no file at "${other ?? ''}". ${USAGE}`);
const calls = count(callsArg, 'calls', 5_000);
const rounds = count(roundsArg, 'rounds', 41);
const mod = (await import(pathToFileURL(path.resolve(other)).href)) as { Guardtrace?: typeof Guardtrace };
if (typeof mod.Guardtrace !== 'function') throw new Error(`bench/compare.ts: ${other} exports no Guardtrace class. ${USAGE}`);

const sides = [
  { name: 'this', G: Guardtrace },
  { name: 'other', G: mod.Guardtrace },
].map(({ name, G }) => {
  const p = provider();
  const gt = new G({ tracer: p.tracer });
  gt.tool({ name: 'read_range', description: 'read lines', schema, flags: { readOnly: true }, execute: (a) => a.end_line - a.start_line });
  return { name, p, gt, wallUs: [] as number[], cpuUs: [] as number[] };
});

for (let r = 0; r <= rounds; r++) {
  for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
    const s = side.gt.session({ agentName: 'bench' });
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    for (let i = 0; i < calls; i++) await s.callTool('read_range', args, { callId: `c${i}` });
    const cpu = process.cpuUsage(c0);
    const wall = ((performance.now() - t0) * 1000) / calls;
    await s.end();
    await side.p.p.forceFlush();
    side.p.exporter.reset();
    // round 0 is warm-up (JIT, zod schema compilation)
    if (r > 0) {
      side.wallUs.push(wall);
      side.cpuUs.push((cpu.user + cpu.system) / calls);
    }
  }
}
for (const side of sides) await side.p.p.shutdown();

const [mine, theirs] = sides as [(typeof sides)[0], (typeof sides)[0]];
const paired = (a: number[], b: number[]): number => median(a.map((x, i) => x / (b[i] ?? Number.NaN)));
const fix = (n: number, d = 2): number => Number(n.toFixed(d));
console.log({
  calls,
  rounds,
  wallUsPerCall: { this: fix(median(mine.wallUs)), other: fix(median(theirs.wallUs)) },
  cpuUsPerCall: { this: fix(median(mine.cpuUs)), other: fix(median(theirs.cpuUs)) },
  'this / other, wall': fix(median(mine.wallUs) / median(theirs.wallUs), 3),
  'this / other, cpu': fix(median(mine.cpuUs) / median(theirs.cpuUs), 3),
  'this / other, median of per-round ratios (wall, cpu)': [fix(paired(mine.wallUs, theirs.wallUs), 3), fix(paired(mine.cpuUs, theirs.cpuUs), 3)],
  loadAverage: os.loadavg().map((x) => fix(x, 1)),
});
