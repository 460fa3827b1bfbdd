/**
 * Deterministic retry-storm simulation: the same seeded tasks (with the seeds' mistakes) run
 * under blind "retry everything 3x" and under the Guardtrace policy (the real runtime), priced
 * with the seeds' context-replay model (sim-model.ts). The framework-defaults arm is in
 * sim-framework.ts.
 */
import { z } from 'zod';
import { type AttemptRecord, type CallResult, type Clock, correctionNote, type Guard, Guardtrace } from '../src/index.ts';
import {
  type ArmStats,
  addStepRepair,
  type Call,
  emptyStats,
  execRaw,
  feedbackKind,
  firstCall,
  Meter,
  missingPathText,
  nextCall,
  pathCandidates,
  READABLE_REPORTS,
  StepMemory,
  type TaskRecord,
  TURN_CAP_PER_STEP,
  type World,
  worldOf,
} from './sim-model.ts';
import { BASE_SCENARIO, prng, type Scenario, type TaskPlan } from './sim-world.ts';

export type { ArmStats } from './sim-model.ts';

/** Blind policy: any error -> re-prompt the model with the raw error and retry, up to the turn cap. */
export function runBlind(tasks: TaskPlan[], seed: number, scenario: Scenario = BASE_SCENARIO): ArmStats {
  const { odds, repeatedText } = scenario;
  const stats = emptyStats();
  for (const task of tasks) {
    stats.tasks += 1;
    const rand = prng(seed ^ (task.id * 7919));
    const meter = new Meter(stats);
    const rec: TaskRecord = { done: false, escalated: false, repairByKind: {} };
    let ok = true;
    for (const step of task.steps) {
      const w = worldOf(step, scenario.files);
      const before = stats.repairTokens;
      meter.modelTurn(false);
      let call = firstCall(step);
      const memory = new StepMemory();
      let done = false;
      for (let turn = 1; !done; turn++) {
        try {
          execRaw(call, w);
          done = true;
        } catch (e) {
          if (turn > 1) stats.wastedRetries += 1;
          if (turn >= TURN_CAP_PER_STEP) break;
          const text = (e as Error).message;
          stats.retries += 1;
          meter.show(text);
          meter.modelTurn(true);
          const next = nextCall(step, call, feedbackKind(text), rand, turn, odds, memory.keep(call, text, repeatedText), scenario.resend);
          if (next === null) break; // the model stopped and told the user
          call = next;
        }
      }
      stats.duplicateCharges += Math.max(0, w.charges.length - 1);
      addStepRepair(rec, step.mistake, stats.repairTokens - before);
      if (!done) {
        ok = false;
        break;
      }
    }
    if (ok) {
      meter.modelTurn(false);
      stats.completed += 1;
    }
    rec.done = ok;
    stats.perTask.push(rec);
  }
  return stats;
}

const simClock = (): Clock => {
  let t = 1_700_000_000_000;
  return { now: () => t, sleep: async (ms) => { t += ms; }, random: () => 0.5 };
};

function registerSimTools(gt: Guardtrace, world: { current: World }): void {
  const pathGuard: Guard<{ path: string }> = {
    name: 'file_exists',
    check: ({ path }) => {
      const { files } = world.current;
      if (files.includes(path)) return { pass: true };
      const candidates = pathCandidates(path, files);
      // as the SDK's files guard (src/guards/files.ts): a complete search (the whole workspace)
      // with exactly one candidate is the one sound correction, which the runtime may apply
      const only = candidates.length === 1 ? candidates[0] : undefined;
      return {
        pass: false,
        reason: `File not found: ${path}`,
        feedback: missingPathText(path, files),
        failureClass: 'missing_resource',
        candidates,
        pointers: ['/path'],
        ...(only ? { repair: { pointer: '/path', from: path, to: only } } : {}),
      };
    },
  };
  const exec = (tool: string) => (args: Record<string, unknown>) => execRaw({ tool, args }, world.current);
  gt.tool({ name: 'read_file', description: 'read', schema: z.object({ path: z.string() }), flags: { readOnly: true }, guards: [pathGuard], execute: exec('read_file') });
  gt.tool({ name: 'edit_file', description: 'edit', schema: z.object({ path: z.string(), content: z.string() }), guards: [pathGuard], execute: exec('edit_file') });
  gt.tool({ name: 'lookup_customer', description: 'crm', schema: z.object({ email: z.string() }), flags: { readOnly: true, external: true }, execute: exec('lookup_customer') });
  gt.tool({ name: 'list_reports', description: 'discovery', schema: z.object({}), flags: { readOnly: true }, execute: () => READABLE_REPORTS });
  gt.tool({
    name: 'fetch_report',
    description: 'report',
    schema: z.object({ report_id: z.string() }),
    flags: { readOnly: true, external: true },
    discover: { tool: 'list_reports' }, // the runtime runs discovery on a 403 (seed: discovery before action)
    execute: exec('fetch_report'),
  });
  gt.tool({
    name: 'charge_card',
    description: 'charge',
    schema: z.object({ customer_id: z.string(), amount_cents: z.number().int() }),
    flags: { external: true },
    execute: exec('charge_card'),
    reconcile: () => (world.current.charges.length > 0 ? { status: 'committed', value: { charge: 'ch' } } : { status: 'not_committed' }),
  });
}

/** Guardtrace policy: the real runtime decides; the scripted model reacts to its decisions. */
export async function runGuardtrace(tasks: TaskPlan[], seed: number, scenario: Scenario = BASE_SCENARIO): Promise<ArmStats> {
  const { odds, repeatedText } = scenario;
  const stats = emptyStats();
  for (const task of tasks) {
    stats.tasks += 1;
    const rand = prng(seed ^ (task.id * 7919));
    const meter = new Meter(stats);
    const world = { current: worldOf(task.steps[0]!, scenario.files) };
    const gt = new Guardtrace({ tracing: false, clock: simClock() });
    registerSimTools(gt, world);
    const s = gt.session({ agentName: 'sim', userId: `u${task.id}` });
    const rec: TaskRecord = { done: false, escalated: false, repairByKind: {} };
    let ok = true;
    for (const step of task.steps) {
      world.current = worldOf(step, scenario.files);
      const before = stats.repairTokens;
      meter.modelTurn(false);
      let call = firstCall(step);
      const memory = new StepMemory();
      const seen = new Set<AttemptRecord>();
      let attempts = 0;
      let done = false;
      const intentId = step.tool === 'charge_card' ? `task${task.id}_charge` : undefined;
      const run = async (c: Call): Promise<CallResult> => {
        const r = await s.callTool(c.tool, c.args, intentId ? { intentId } : {});
        for (const a of r.attempts) {
          if (!seen.has(a)) {
            seen.add(a);
            attempts += 1;
          }
        }
        return r;
      };
      // turns: model turns taken in this step (the first call is turn 1); the same cap as every arm
      for (let turns = 1; !done; ) {
        const r = await run(call);
        if (r.ok) {
          // a repair in code that ran another tool did not do the step's work: a wrong action, the task fails
          // (a read the runtime answered from its store of identical calls ran nothing, and is the step's own tool)
          done = r.attempts.at(-1)?.tool === step.tool;
          // the note the model is shown with the result of a call repaired in code (the integrations
          // add it to the tool's output): in the history from here on, as every feedback text
          const note = correctionNote(r);
          if (note) meter.show(note);
          break;
        }
        if (r.decision === 'fail_reconcile' && r.reconciliation?.status === 'committed') {
          done = true; // the charge went through: reconciled, not repeated
          break;
        }
        const modelActs =
          r.decision === 'reject_with_feedback' || r.decision === 'corrected_retry' || r.decision === 'replan' || (r.decision === 'fail_reconcile' && r.reconciliation?.status === 'not_committed');
        // escalate_human / abort / fallback: a human takes over; and no turn past the cap
        if (!modelActs) {
          rec.escalated = true;
          const reason = `${step.mistake}: ${r.decision}/${r.attempts.at(-1)?.escalationReason ?? '-'}`;
          stats.escalationReasons[reason] = (stats.escalationReasons[reason] ?? 0) + 1;
          break;
        }
        if (turns >= TURN_CAP_PER_STEP) break;
        meter.show(r.feedback);
        meter.modelTurn(true);
        turns += 1;
        // after a not-committed charge the model sends the same call again (with the same odds of resending as after any timeout)
        const next =
          r.decision === 'fail_reconcile'
            ? scenario.resend < 1 && rand() >= scenario.resend
              ? null
              : call
            : nextCall(step, call, feedbackKind(r.feedback), rand, turns - 1, odds, memory.keep(call, r.feedback, repeatedText), scenario.resend);
        if (next === null) break; // the model stopped and told the user
        call = next;
      }
      const retries = Math.max(0, attempts - 1);
      stats.retries += retries;
      stats.wastedRetries += done ? Math.max(0, retries - 1) : retries;
      stats.duplicateCharges += Math.max(0, world.current.charges.length - 1);
      addStepRepair(rec, step.mistake, stats.repairTokens - before);
      if (!done) {
        ok = false;
        break;
      }
    }
    await s.end();
    if (ok) {
      meter.modelTurn(false);
      stats.completed += 1;
    }
    rec.done = ok;
    if (rec.escalated) stats.escalated += 1;
    stats.perTask.push(rec);
  }
  return stats;
}
