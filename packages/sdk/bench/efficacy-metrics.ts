/**
 * The efficacy metrics of one seed's four arms: success, tokens per completed task, repair
 * tokens on the tasks every contending arm completes, duplicates, escalations, and the repair
 * tokens on those tasks by mistake kind.
 */
import type { ArmStats } from './sim-model.ts';
import type { Mistake } from './sim-world.ts';

export interface SeedRun {
  seed: number;
  /** Reference only: not a contender, not in the common-task set (see `commonTasks`). */
  blind?: ArmStats;
  framework: ArmStats;
  careful: ArmStats;
  /** The careful author who also writes Guardtrace's repairs in code (sim-framework.ts). */
  carefulRepair: ArmStats;
  guardtrace: ArmStats;
}

export type ContenderName = 'framework' | 'careful' | 'carefulRepair' | 'guardtrace';
export const CONTENDERS: ContenderName[] = ['framework', 'careful', 'carefulRepair', 'guardtrace'];

export const success = (s: ArmStats): number => s.completed / s.tasks;
export const perCompletedTask = (s: ArmStats): number => s.tokens / Math.max(1, s.completed);

/**
 * Indexes of the tasks that framework defaults, the careful tool author (with and without
 * repairs in code) and Guardtrace all complete. Blind is left out: it is the floor, not a contender, and it fails a quarter of the
 * tasks (raw errors, no code retries), so intersecting with it would keep only the tasks easy
 * enough for raw-error retries and drop most of the mistakes the comparison is about.
 */
export function commonTasks(r: SeedRun): number[] {
  const out: number[] = [];
  const n = r.framework.perTask.length;
  for (let i = 0; i < n; i++) {
    if (CONTENDERS.every((a) => r[a].perTask[i]!.done)) out.push(i);
  }
  return out;
}

export function repairOn(s: ArmStats, tasks: number[]): number {
  let t = 0;
  for (const i of tasks) for (const v of Object.values(s.perTask[i]!.repairByKind)) t += v ?? 0;
  return t;
}

export function repairByKindOn(s: ArmStats, tasks: number[]): Partial<Record<Mistake, number>> {
  const out: Partial<Record<Mistake, number>> = {};
  for (const i of tasks) {
    for (const [k, v] of Object.entries(s.perTask[i]!.repairByKind) as [Mistake, number][]) out[k] = (out[k] ?? 0) + v;
  }
  return out;
}

export interface SeedMetrics {
  seed: number;
  common: number;
  repairCommon: Record<ContenderName, number>;
  /** 1 - guardtrace / arm, on the common tasks. */
  reductionVsFramework: number;
  reductionVsCareful: number;
  reductionVsCarefulRepair: number;
  /** Guardtrace's success is not lower than framework's and careful's. */
  successNotLower: boolean;
}

export function seedMetrics(r: SeedRun): SeedMetrics {
  const common = commonTasks(r);
  const repairCommon = Object.fromEntries(CONTENDERS.map((a) => [a, repairOn(r[a], common)])) as Record<ContenderName, number>;
  return {
    seed: r.seed,
    common: common.length,
    repairCommon,
    reductionVsFramework: 1 - repairCommon.guardtrace / repairCommon.framework,
    reductionVsCareful: 1 - repairCommon.guardtrace / repairCommon.careful,
    reductionVsCarefulRepair: 1 - repairCommon.guardtrace / repairCommon.carefulRepair,
    successNotLower: success(r.guardtrace) >= success(r.framework) && success(r.guardtrace) >= success(r.careful),
  };
}

/** Repair tokens on the common tasks by mistake kind, summed over seeds, per contender. */
export function repairByKindAllSeeds(runs: SeedRun[]): Record<ContenderName, Partial<Record<Mistake, number>>> {
  const out = { framework: {}, careful: {}, carefulRepair: {}, guardtrace: {} } as Record<ContenderName, Partial<Record<Mistake, number>>>;
  for (const r of runs) {
    const common = commonTasks(r);
    for (const a of CONTENDERS) {
      for (const [k, v] of Object.entries(repairByKindOn(r[a], common)) as [Mistake, number][]) out[a][k] = (out[a][k] ?? 0) + v;
    }
  }
  return out;
}
