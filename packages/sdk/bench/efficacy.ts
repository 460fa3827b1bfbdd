/**
 * Efficacy over seeds 1-10: blind 3x retry, framework defaults and Guardtrace on the same
 * seeded tasks, min / mean / max per arm, the ratios against the framework-defaults arm, and
 * a sensitivity table that scales the fix odds and mistake rates.
 */
import type { ArmStats } from './sim-model.ts';
import { runFramework } from './sim-framework.ts';
import { runBlind, runGuardtrace } from './sim.ts';
import { BASE_SCENARIO, type Scenario, planTasks, scaleScenario } from './sim-world.ts';

export const EFFICACY_SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
export const EFFICACY_TASKS = 2_000;
/** Tasks per seed in the sensitivity runs (x1 included, for a like-for-like column): half, to keep `pnpm bench` near 3 minutes. */
export const SENSITIVITY_TASKS = 1_000;
/** Targets of issue 11 against framework defaults. */
const TARGET_REDUCTION = 0.4;

interface Row {
  benchmark: string;
  metric: string;
  value: string;
  target: string;
  pass: boolean;
}

interface SeedRun {
  seed: number;
  blind?: ArmStats;
  framework: ArmStats;
  guardtrace: ArmStats;
}

async function runSeeds(scenario: Scenario, n: number, withBlind: boolean): Promise<SeedRun[]> {
  const out: SeedRun[] = [];
  for (const seed of EFFICACY_SEEDS) {
    const tasks = planTasks(n, seed, scenario.rates);
    out.push({
      seed,
      blind: withBlind ? runBlind(tasks, seed, scenario.odds) : undefined,
      framework: await runFramework(tasks, seed, scenario.odds),
      guardtrace: await runGuardtrace(tasks, seed, scenario.odds),
    });
  }
  return out;
}

const perTask = (s: ArmStats): number => s.tokens / Math.max(1, s.completed);
const success = (s: ArmStats): number => s.completed / s.tasks;
const reduction = (r: SeedRun): number => 1 - r.guardtrace.repairTokens / r.framework.repairTokens;
const pct = (n: number): string => `${(n * 100).toFixed(1)}%`;
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const mmm = (xs: number[], f: (n: number) => string): string => `${f(Math.min(...xs))} / ${f(mean(xs))} / ${f(Math.max(...xs))}`;
const millions = (n: number): string => `${(n / 1e6).toFixed(2)}M`;
const thousands = (n: number): string => Math.round(n).toLocaleString('en');
const count = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(1));

function armRows(runs: SeedRun[]): Row[] {
  const arms: [string, (r: SeedRun) => ArmStats | undefined][] = [
    ['blind 3x', (r) => r.blind],
    ['framework defaults', (r) => r.framework],
    ['guardtrace', (r) => r.guardtrace],
  ];
  const metrics: [string, (s: ArmStats) => number, (n: number) => string][] = [
    ['repair tokens', (s) => s.repairTokens, millions],
    ['tokens per completed task', perTask, thousands],
    ['success rate', success, pct],
    ['duplicate side effects (charges)', (s) => s.duplicateCharges, count],
  ];
  const rows: Row[] = [];
  for (const [metric, get, fmt] of metrics) {
    const value = arms
      .map(([name, arm]) => {
        const xs = runs.map(arm).filter((s): s is ArmStats => !!s).map(get);
        return `${name} ${mmm(xs, fmt)}`;
      })
      .join('; ');
    rows.push({ benchmark: 'efficacy, seeds 1-10', metric: `${metric} per seed (min / mean / max)`, value, target: 'reference', pass: true });
  }
  return rows;
}

/** The headline ratios against framework defaults (and, for continuity, blind 3x). */
function ratioRows(runs: SeedRun[]): Row[] {
  const red = runs.map(reduction);
  const redBlind = runs.map((r) => 1 - r.guardtrace.repairTokens / r.blind!.repairTokens);
  const tpt = runs.map((r) => perTask(r.guardtrace) / perTask(r.framework));
  const succOk = runs.every((r) => success(r.guardtrace) >= success(r.framework));
  const dups = runs.reduce((a, r) => a + r.guardtrace.duplicateCharges, 0);
  const fwDups = runs.reduce((a, r) => a + r.framework.duplicateCharges, 0);
  const b = 'efficacy vs framework defaults';
  const ratio = (arm: (r: SeedRun) => ArmStats, get: (s: ArmStats) => number): string => mmm(runs.map((r) => get(arm(r)) / get(r.framework)), (n) => `${n.toFixed(3)}x`);
  const ratioValue = (get: (s: ArmStats) => number): string => `blind 3x ${ratio((r) => r.blind!, get)}; guardtrace ${ratio((r) => r.guardtrace, get)}`;
  return [
    { benchmark: b, metric: 'repair tokens / framework defaults, per seed (min / mean / max)', value: ratioValue((s) => s.repairTokens), target: 'reference', pass: true },
    { benchmark: b, metric: 'success rate / framework defaults, per seed (min / mean / max)', value: ratioValue(success), target: 'reference', pass: true },
    { benchmark: b, metric: 'repair-token reduction (worst seed / mean / best)', value: mmm(red, pct), target: `>= ${pct(TARGET_REDUCTION)} at the worst seed`, pass: Math.min(...red) >= TARGET_REDUCTION },
    { benchmark: b, metric: 'tokens per completed task, guardtrace / framework (min / mean / max)', value: mmm(tpt, (n) => `${n.toFixed(3)}x`), target: '< 1x', pass: Math.max(...tpt) < 1 },
    {
      benchmark: b,
      metric: 'success rate, framework -> guardtrace (mean; lower on any seed?)',
      value: `${pct(mean(runs.map((r) => success(r.framework))))} -> ${pct(mean(runs.map((r) => success(r.guardtrace))))}; ${succOk ? 'not lower on any seed' : `lower on seeds ${runs.filter((r) => success(r.guardtrace) < success(r.framework)).map((r) => r.seed).join(', ')}`}`,
      target: 'not lower',
      pass: succOk,
    },
    { benchmark: b, metric: 'duplicate side effects, all seeds (framework -> guardtrace)', value: `${fwDups} -> ${dups}`, target: '0', pass: dups === 0 },
    { benchmark: 'efficacy vs blind 3x', metric: 'repair-token reduction (worst seed / mean / best)', value: mmm(redBlind, pct), target: '>= 60% at the worst seed', pass: Math.min(...redBlind) >= 0.6 },
  ];
}

const SENSITIVITY: { name: string; factors: { odds?: number; rates?: number } }[] = [
  { name: 'fix odds x0.5', factors: { odds: 0.5 } },
  { name: 'fix odds x1.5 (capped at 1)', factors: { odds: 1.5 } },
  { name: 'mistake rates x0.5', factors: { rates: 0.5 } },
  { name: 'mistake rates x2', factors: { rates: 2 } },
];

function sensitivityRow(name: string, runs: SeedRun[]): Row {
  const red = runs.map(reduction);
  const succLower = runs.filter((r) => success(r.guardtrace) < success(r.framework)).length;
  const dups = runs.reduce((a, r) => a + r.guardtrace.duplicateCharges, 0);
  const fwDups = runs.reduce((a, r) => a + r.framework.duplicateCharges, 0);
  const sFw = mean(runs.map((r) => success(r.framework)));
  const sGt = mean(runs.map((r) => success(r.guardtrace)));
  const holds = Math.min(...red) >= TARGET_REDUCTION && succLower === 0 && dups === 0;
  return {
    benchmark: 'sensitivity vs framework defaults',
    metric: name,
    value: `repair tokens -${pct(Math.min(...red))} worst seed (mean -${pct(mean(red))}); success ${pct(sFw)} -> ${pct(sGt)} (lower on ${succLower}/10 seeds); duplicates ${fwDups} -> ${dups}`,
    target: '>= 40% fewer at worst seed, success not lower, 0 duplicates',
    pass: holds,
  };
}

export async function runEfficacy(): Promise<Row[]> {
  const base = await runSeeds(BASE_SCENARIO, EFFICACY_TASKS, true);
  const rows = [...armRows(base), ...ratioRows(base)];
  rows.push(sensitivityRow('x1 (as above, fewer tasks)', await runSeeds(BASE_SCENARIO, SENSITIVITY_TASKS, false)));
  for (const s of SENSITIVITY) rows.push(sensitivityRow(s.name, await runSeeds(scaleScenario(s.factors), SENSITIVITY_TASKS, false)));
  return rows;
}
