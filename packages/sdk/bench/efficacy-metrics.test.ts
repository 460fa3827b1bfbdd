import { describe, expect, it } from 'vitest';
import { commonTasks, repairByKindOn, repairOn, type SeedRun } from './efficacy-metrics.ts';
import { runGuardtrace } from './sim.ts';
import { frameworkAttempt, runFramework } from './sim-framework.ts';
import { type ArmStats, emptyStats, feedbackKind, type TaskRecord, worldOf } from './sim-model.ts';
import { BASE_SCENARIO, SEED_WORKSPACE_FILES, type TaskPlan } from './sim-world.ts';

const arm = (recs: TaskRecord[]): ArmStats => ({ ...emptyStats(), perTask: recs });
const rec = (done: boolean, repairByKind: TaskRecord['repairByKind'] = {}): TaskRecord => ({ done, escalated: false, repairByKind });

describe('careful tool author arm', () => {
  it('throws a missing path with the candidate paths and a 403 with the readable reports: structured text, structured odds', async () => {
    const path = await frameworkAttempt({ tool: 'read_file', args: { path: 'componets/Button.tsx' } }, worldOf({ tool: 'read_file', mistake: 'none' }), 'careful');
    const report = await frameworkAttempt({ tool: 'fetch_report', args: { report_id: 'rep_x' } }, worldOf({ tool: 'fetch_report', mistake: 'none' }), 'careful');
    const raw = await frameworkAttempt({ tool: 'read_file', args: { path: 'componets/Button.tsx' } }, worldOf({ tool: 'read_file', mistake: 'none' }));
    expect(path.ok ? '' : path.feedback).toContain('- src/components/Button.tsx');
    expect(report.ok ? '' : report.feedback).toContain('["rep_own"]');
    expect(feedbackKind(path.ok ? '' : path.feedback)).toBe('structured');
    expect(feedbackKind(report.ok ? '' : report.feedback)).toBe('structured');
    expect(feedbackKind(raw.ok ? '' : raw.feedback)).toBe('raw');
  });

  it('completes a task the framework arm fails when the structured odds fix it and the raw odds do not', async () => {
    const tasks: TaskPlan[] = [{ id: 0, steps: [{ tool: 'fetch_report', mistake: 'forbidden403' }] }];
    const odds = { hallucinatedTool: { structured: 1, raw: 0 }, renamedParameter: { structured: 1, raw: 0 }, misspelledPath: { structured: 1, raw: 0 }, forbidden403: { structured: 1, raw: 0 } };
    const fw = await runFramework(tasks, 1, 'defaults', { ...BASE_SCENARIO, odds });
    const careful = await runFramework(tasks, 1, 'careful', { ...BASE_SCENARIO, odds });
    expect([fw.completed, careful.completed]).toEqual([0, 1]);
    expect(careful.perTask[0]!.repairByKind.forbidden403).toBeGreaterThan(0);
  });
});

describe('guardtrace arm', () => {
  it("repairs a read_file path with one candidate in code, as the SDK's files guard lets it: no model turn, even when the model could never fix it", async () => {
    const never = { hallucinatedTool: { structured: 0, raw: 0 }, renamedParameter: { structured: 0, raw: 0 }, misspelledPath: { structured: 0, raw: 0 }, forbidden403: { structured: 0, raw: 0 } };
    const read = await runGuardtrace([{ id: 0, steps: [{ tool: 'read_file', mistake: 'misspelledPath' }] }], 1, { ...BASE_SCENARIO, odds: never });
    expect([read.completed, read.repairTokens]).toEqual([1, 0]);
    // edit_file is neither read-only nor idempotent: never run with a path the model did not send
    const edit = await runGuardtrace([{ id: 0, steps: [{ tool: 'edit_file', mistake: 'misspelledPath' }] }], 1, { ...BASE_SCENARIO, odds: never });
    expect(edit.completed).toBe(0);
  });

  it("does not repair a path in the seed's own workspace, where two files match it: the model chooses", async () => {
    const never = { hallucinatedTool: { structured: 0, raw: 0 }, renamedParameter: { structured: 0, raw: 0 }, misspelledPath: { structured: 0, raw: 0 }, forbidden403: { structured: 0, raw: 0 } };
    const tasks: TaskPlan[] = [{ id: 0, steps: [{ tool: 'read_file', mistake: 'misspelledPath' }] }];
    const seedWorld = { ...BASE_SCENARIO, odds: never, files: SEED_WORKSPACE_FILES };
    expect((await runGuardtrace(tasks, 1, seedWorld)).completed).toBe(0);
    expect((await runFramework(tasks, 1, 'carefulRepair', seedWorld)).completed).toBe(0);
    expect((await runFramework(tasks, 1, 'carefulRepair', { ...BASE_SCENARIO, odds: never })).completed).toBe(1);
  });
});

describe('efficacy metrics', () => {
  it('compares repair tokens only on the tasks framework, careful and guardtrace all complete, by mistake kind, whatever blind did', () => {
    const run: SeedRun = {
      seed: 1,
      blind: arm([rec(false), rec(false), rec(false)]),
      framework: arm([rec(true, { misspelledPath: 100 }), rec(false, { forbidden403: 999 }), rec(true, { renamedParameter: 50 })]),
      careful: arm([rec(true, { misspelledPath: 40 }), rec(true), rec(true, { renamedParameter: 50 })]),
      carefulRepair: arm([rec(true), rec(true), rec(true)]),
      guardtrace: arm([rec(true, { misspelledPath: 30 }), rec(true), rec(false, { renamedParameter: 7 })]),
    };
    expect(commonTasks(run)).toEqual([0]);
    expect(repairOn(run.framework, [0])).toBe(100);
    expect(repairByKindOn(run.careful, [0, 2])).toEqual({ misspelledPath: 40, renamedParameter: 50 });
  });
});
