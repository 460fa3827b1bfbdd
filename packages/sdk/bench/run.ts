/**
 * `pnpm --filter @guardtrace/sdk bench`: overhead per guarded call vs the floor, and the
 * retry-storm simulation; writes bench/results.json for docs/benchmarks.md.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runOverhead } from './overhead.ts';
import { PACKAGE_METHOD, packageRows, runPackageBench } from './package.ts';
import { type ArmStats, runBlind, runGuardtrace } from './sim.ts';
import { FIX_ODDS, IDENTICAL_REPEAT, RATES, planTasks } from './sim-world.ts';

interface Row {
  benchmark: string;
  metric: string;
  value: string;
  target: string;
  pass: boolean;
}

const TASKS = 2_000;
const SEED = 42;
const here = path.dirname(fileURLToPath(import.meta.url));
const fmtM = (n: number): string => `${(n / 1e6).toFixed(2)}M`;
const pct = (n: number): string => `${(n * 100).toFixed(1)}%`;

const rows: Row[] = [];

const o = await runOverhead();
rows.push(
  { benchmark: 'overhead', metric: 'floor: zod parse + 3 bare spans (µs/call)', value: o.floorUs.toFixed(2), target: 'reference', pass: true },
  { benchmark: 'overhead', metric: 'guarded call: session.callTool (µs/call)', value: o.guardedUs.toFixed(2), target: 'reference', pass: true },
  { benchmark: 'overhead', metric: 'guarded / floor', value: `${o.ratio.toFixed(2)}x`, target: '<= 2x', pass: o.ratio <= 2 },
);

const tasks = planTasks(TASKS, SEED);
const blind = runBlind(tasks, SEED);
const gt = await runGuardtrace(tasks, SEED);
const perTask = (s: ArmStats): number => s.tokens / Math.max(1, s.completed);
const reduction = 1 - gt.repairTokens / blind.repairTokens;
const success = (s: ArmStats): number => s.completed / s.tasks;
rows.push(
  {
    benchmark: 'retry storm',
    metric: 'repair tokens (blind 3x -> guardtrace)',
    value: `${fmtM(blind.repairTokens)} -> ${fmtM(gt.repairTokens)} (-${pct(reduction)})`,
    target: '>= 60% fewer',
    pass: reduction >= 0.6,
  },
  {
    benchmark: 'retry storm',
    metric: 'tokens per completed task (blind -> guardtrace)',
    value: `${Math.round(perTask(blind)).toLocaleString('en')} -> ${Math.round(perTask(gt)).toLocaleString('en')}`,
    target: 'lower',
    pass: perTask(gt) < perTask(blind),
  },
  {
    benchmark: 'retry storm',
    metric: 'wasted retries (blind -> guardtrace)',
    value: `${blind.wastedRetries} -> ${gt.wastedRetries} (of ${blind.retries} / ${gt.retries} retries)`,
    target: 'fewer',
    pass: gt.wastedRetries < blind.wastedRetries,
  },
  {
    benchmark: 'retry storm',
    metric: 'duplicate charges (blind -> guardtrace)',
    value: `${blind.duplicateCharges} -> ${gt.duplicateCharges}`,
    target: '0',
    pass: gt.duplicateCharges === 0,
  },
  {
    benchmark: 'retry storm',
    metric: 'success rate (blind -> guardtrace)',
    value: `${pct(success(blind))} -> ${pct(success(gt))}`,
    target: 'not lower',
    pass: success(gt) >= success(blind),
  },
);

// the same comparison on other seeds: how much the headline depends on the draw
const others: number[] = [];
for (const seed of [1, 2, 3, 4, 5]) {
  const t = planTasks(TASKS, seed);
  const b = runBlind(t, seed);
  const g = await runGuardtrace(t, seed);
  others.push(1 - g.repairTokens / b.repairTokens);
}
rows.push({
  benchmark: 'retry storm',
  metric: 'repair-token reduction on seeds 1-5 (min / mean / max)',
  value: `${pct(Math.min(...others))} / ${pct(others.reduce((a, b) => a + b, 0) / others.length)} / ${pct(Math.max(...others))}`,
  target: '>= 60% fewer',
  pass: Math.min(...others) >= 0.6,
});

rows.push(...packageRows(await runPackageBench()));

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const result = {
  rows,
  machine: `${cpu} x${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`,
  date: new Date().toISOString(),
  method: [
    `Overhead: ${o.calls.toLocaleString('en')} calls per round, ${o.rounds} rounds after a warm-up round, alternating floor and guarded in one process; median round reported.`,
    'Floor = the same zod safeParse + three nested bare OTel spans (tool, attempt, guard); guarded = Guardtrace session.callTool on a read-only tool',
    '(schema guard, execution, execute_tool/attempt/apply_guardrail spans with their attributes). Both export through a BatchSpanProcessor into an InMemorySpanExporter.',
    `Retry storm: ${TASKS.toLocaleString('en')} seeded tasks (seed ${SEED}; 60% file tasks of 3-4 steps, 40% invoice tasks lookup_customer -> fetch_report -> charge_card).`,
    `Mistake rates per step: hallucinated tool ${pct(RATES.hallucinatedTool)}, renamed parameter ${pct(RATES.renamedParameter)}, misspelled path ${pct(RATES.misspelledPath)} of file steps,`,
    `503 ${pct(RATES.transient503)} of lookups (outage of 1/2/5 attempts at 70/20/10%), charge_card timeout ${pct(RATES.chargeTimeout)} (committed ${pct(RATES.timeoutCommitted)}), 403 ${pct(RATES.forbidden403)} of report fetches.`,
    `Scripted model fix odds per turn, structured feedback vs raw error: ${Object.entries(FIX_ODDS).map(([k, v]) => `${k} ${v.structured}/${v.raw}`).join(', ')};`,
    `a failed fix repeats the identical call ${pct(IDENTICAL_REPEAT)} of the time. Blind = any error re-prompts the model with the raw error and retries, up to 3 times.`,
    'Guardtrace = the real runtime with default budgets and policy (tracing off, simulated clock); the model reacts to its decisions (reject -> corrected call, replan ->',
    'new call; on a 403 the runtime runs the declared read-only discovery tool and puts its answer in the feedback; fail_reconcile -> reconciled by idempotency key). Every model turn k costs 4,000 + 2,000 x (k-1) input tokens',
    'plus 150 output tokens (the seeds\' context-replay model); repair tokens are the turns that follow a failed call. Escalated tasks count as not completed.',
    PACKAGE_METHOD,
  ].join(' '),
};
writeFileSync(path.join(here, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
console.table(rows);
console.log(`wrote ${path.join(here, 'results.json')}`);
