/**
 * Deterministic retry-storm simulation: the same seeded tasks (with the seeds' mistakes) run
 * under blind "retry everything 3x" and under the Guardtrace policy (the real runtime), priced
 * with the seeds' context-replay model: 4k system + 2k per step, 150 output tokens a turn.
 */
import { z } from 'zod';
import { replayInputTokens } from '../src/cost.ts';
import { pathNotFoundFeedback } from '../src/guards/files.ts';
import { type CallResult, type Guard, Guardtrace } from '../src/index.ts';
import type { AttemptRecord, Clock } from '../src/types.ts';
import { FIX_ODDS, GOOD_ARGS, IDENTICAL_REPEAT, type Step, type TaskPlan, WORKSPACE_FILES, prng, wrongCall } from './sim-world.ts';

const OUTPUT_TOKENS = 150;
const MAX_TURNS_PER_STEP = 10; // a runaway-loop stop for the script, not a policy

export interface ArmStats {
  tasks: number;
  completed: number;
  tokens: number;
  repairTokens: number;
  retries: number;
  wastedRetries: number;
  duplicateCharges: number;
}

class Meter {
  turn = 0;
  constructor(private readonly stats: ArmStats) {}
  modelTurn(repair: boolean): void {
    this.turn += 1;
    const t = replayInputTokens(this.turn) + OUTPUT_TOKENS;
    this.stats.tokens += t;
    if (repair) this.stats.repairTokens += t;
  }
}

const empty = (): ArmStats => ({ tasks: 0, completed: 0, tokens: 0, repairTokens: 0, retries: 0, wastedRetries: 0, duplicateCharges: 0 });
type Call = { tool: string; args: Record<string, unknown> };
const fixable = (m: Step['mistake']): m is keyof typeof FIX_ODDS => m in FIX_ODDS;
const firstCall = (step: Step): Call => (fixable(step.mistake) ? wrongCall(step, 0) : { tool: step.tool, args: { ...GOOD_ARGS[step.tool] } });

/** The model's next call after seeing an error: fixed with the odds of what it was shown. */
function nextCall(step: Step, prev: Call, structured: boolean, rand: () => number, variant: number): Call {
  const odds = fixable(step.mistake) ? FIX_ODDS[step.mistake] : { structured: 1, raw: 1 };
  if (rand() < (structured ? odds.structured : odds.raw)) return { tool: step.tool, args: { ...GOOD_ARGS[step.tool] } };
  return rand() < IDENTICAL_REPEAT ? prev : wrongCall(step, variant);
}

/** Per-task world state the tools act on. */
interface World {
  outage: number;
  chargeTimeout: boolean;
  committed: boolean;
  charges: string[];
}

function worldOf(step: Step): World {
  return { outage: step.outage ?? 0, chargeTimeout: step.mistake === 'chargeTimeout', committed: step.committed ?? false, charges: [] };
}

const err = (message: string, props: Record<string, unknown>) => Object.assign(new Error(message), props);

/** Executes a call as a bare tool executor would: no validation, raw errors. */
function execRaw(call: Call, w: World): void {
  const a = call.args;
  switch (call.tool) {
    case 'read_file':
    case 'edit_file':
      if (typeof a.path !== 'string') throw new TypeError("Cannot read properties of undefined (reading 'length')");
      if (!WORKSPACE_FILES.includes(a.path)) throw err(`ENOENT: no such file or directory, open '${a.path}'`, { code: 'ENOENT' });
      return;
    case 'lookup_customer':
      if (typeof a.email !== 'string') throw new TypeError('email is required');
      if (w.outage > 0) {
        w.outage -= 1;
        throw err('503 Service Unavailable', { status: 503 });
      }
      return;
    case 'fetch_report':
      if (typeof a.report_id !== 'string') throw new TypeError('report_id is required');
      if (a.report_id !== 'rep_own') throw err('403 Forbidden', { status: 403 });
      return;
    case 'charge_card':
      if (typeof a.customer_id !== 'string') throw new TypeError('customer_id is required');
      if (w.chargeTimeout) {
        w.chargeTimeout = false;
        if (w.committed) w.charges.push('charge');
        throw err('timeout awaiting provider', { code: 'ETIMEDOUT' });
      }
      w.charges.push('charge');
      return;
    default:
      throw new Error(`Tool ${call.tool} not found`);
  }
}

/** Blind policy: any error -> re-prompt the model with the raw error and retry, up to 3 times. */
export function runBlind(tasks: TaskPlan[], seed: number): ArmStats {
  const stats = empty();
  for (const task of tasks) {
    stats.tasks += 1;
    const rand = prng(seed ^ (task.id * 7919));
    const meter = new Meter(stats);
    let ok = true;
    for (const step of task.steps) {
      const w = worldOf(step);
      meter.modelTurn(false);
      let call = firstCall(step);
      let done = false;
      for (let attempt = 0; attempt <= 3 && !done; attempt++) {
        if (attempt > 0) {
          stats.retries += 1;
          meter.modelTurn(true);
          call = nextCall(step, call, false, rand, attempt);
        }
        try {
          execRaw(call, w);
          done = true;
        } catch {
          if (attempt > 0) stats.wastedRetries += 1;
        }
      }
      stats.duplicateCharges += Math.max(0, w.charges.length - 1);
      if (!done) {
        ok = false;
        break;
      }
    }
    if (ok) {
      meter.modelTurn(false);
      stats.completed += 1;
    }
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
      if (WORKSPACE_FILES.includes(path)) return { pass: true };
      const base = path.split('/').pop() ?? path;
      const candidates = WORKSPACE_FILES.filter((f) => f.endsWith(`/${base}`) || f.endsWith(base.replace(/[^A-Za-z.]/g, '')));
      return { pass: false, reason: `File not found: ${path}`, feedback: pathNotFoundFeedback(path, `**/${base}`, candidates.length ? candidates : ['src/components/Button.tsx']), failureClass: 'missing_resource', candidates };
    },
  };
  const exec = (tool: string) => (args: Record<string, unknown>) => execRaw({ tool, args }, world.current);
  gt.tool({ name: 'read_file', description: 'read', schema: z.object({ path: z.string() }), flags: { readOnly: true }, guards: [pathGuard], execute: exec('read_file') });
  gt.tool({ name: 'edit_file', description: 'edit', schema: z.object({ path: z.string(), content: z.string() }), guards: [pathGuard], execute: exec('edit_file') });
  gt.tool({ name: 'lookup_customer', description: 'crm', schema: z.object({ email: z.string() }), flags: { readOnly: true, external: true }, execute: exec('lookup_customer') });
  gt.tool({ name: 'list_reports', description: 'discovery', schema: z.object({}), flags: { readOnly: true }, execute: () => ['rep_own'] });
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

const STRUCTURED = /Expected schema:|Valid tools|Available paths matching|Closest existing paths|Discovery \(/;

/** Guardtrace policy: the real runtime decides; the scripted model reacts to its decisions. */
export async function runGuardtrace(tasks: TaskPlan[], seed: number): Promise<ArmStats> {
  const stats = empty();
  for (const task of tasks) {
    stats.tasks += 1;
    const rand = prng(seed ^ (task.id * 7919));
    const meter = new Meter(stats);
    const world = { current: worldOf(task.steps[0]!) };
    const gt = new Guardtrace({ tracing: false, clock: simClock() });
    registerSimTools(gt, world);
    const s = gt.session({ agentName: 'sim', userId: `u${task.id}` });
    let ok = true;
    for (const step of task.steps) {
      world.current = worldOf(step);
      meter.modelTurn(false);
      let call = firstCall(step);
      const seen = new Set<AttemptRecord>();
      let attempts = 0;
      let done = false;
      const intentId = step.tool === 'charge_card' ? `task${task.id}_charge` : undefined;
      const run = async (c: Call): Promise<CallResult> => {
        const r = await s.callTool(c.tool, c.args, intentId ? { intentId } : {});
        for (const a of r.attempts) if (!seen.has(a)) { seen.add(a); attempts += 1; }
        return r;
      };
      for (let turn = 0; turn < MAX_TURNS_PER_STEP && !done; turn++) {
        const r = await run(call);
        if (r.ok) { done = true; break; }
        const structured = STRUCTURED.test(r.feedback);
        if (r.decision === 'reject_with_feedback' || r.decision === 'corrected_retry') {
          meter.modelTurn(true);
          call = nextCall(step, call, structured, rand, turn + 1);
        } else if (r.decision === 'replan') {
          meter.modelTurn(true);
          call = nextCall(step, call, structured, rand, turn + 1);
        } else if (r.decision === 'fail_reconcile' && r.reconciliation?.status === 'committed') {
          done = true; // the charge went through: reconciled, not repeated
        } else if (r.decision === 'fail_reconcile' && r.reconciliation?.status === 'not_committed') {
          meter.modelTurn(true);
        } else {
          break; // escalate_human / abort / fallback: a human takes over
        }
      }
      const retries = Math.max(0, attempts - 1);
      stats.retries += retries;
      stats.wastedRetries += done ? Math.max(0, retries - 1) : retries;
      stats.duplicateCharges += Math.max(0, world.current.charges.length - 1);
      if (!done) { ok = false; break; }
    }
    await s.end();
    if (ok) {
      meter.modelTurn(false);
      stats.completed += 1;
    }
  }
  return stats;
}
