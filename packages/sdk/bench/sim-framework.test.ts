import { describe, expect, it } from 'vitest';
import { frameworkAttempt, runFramework } from './sim-framework.ts';
import { feedbackKind, nextCall, StepMemory, worldOf } from './sim-model.ts';
import { runGuardtrace } from './sim.ts';
import { prng, type Step, type TaskPlan } from './sim-world.ts';

const plan = (...steps: Step[]): TaskPlan[] => [{ id: 0, steps }];
/** Tokens of a clean task of n steps: n + 1 turns at 4k + 2k x (k-1) input + 150 output. */
const cleanTokens = (steps: number): number => {
  let t = 0;
  for (let k = 1; k <= steps + 1; k++) t += 4_000 + 2_000 * (k - 1) + 150;
  return t;
};

describe('framework-defaults arm', () => {
  it("shows zod's issue list with the failing field path for a renamed argument, as the AI SDK does", async () => {
    const r = await frameworkAttempt({ tool: 'read_file', args: { filepath: 'src/components/Button.tsx' } }, worldOf({ tool: 'read_file', mistake: 'none' }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.feedback).toContain('Invalid input for tool read_file');
    expect(r.feedback).toMatch(/"path":\s*\[\s*"path"\s*\]/);
    expect(feedbackKind(r.feedback)).toBe('structured');
  });

  it('lists the available tools for an unknown tool name', async () => {
    const r = await frameworkAttempt({ tool: 'open_file', args: {} }, worldOf({ tool: 'read_file', mistake: 'none' }));
    expect(r.ok ? '' : r.feedback).toContain("Model tried to call unavailable tool 'open_file'. Available tools: read_file, edit_file");
  });

  it('forwards a missing file as the raw ENOENT text, which gets the raw odds', async () => {
    const r = await frameworkAttempt({ tool: 'read_file', args: { path: 'componets/Button.tsx' } }, worldOf({ tool: 'read_file', mistake: 'misspelledPath' }));
    const text = r.ok ? '' : r.feedback;
    expect(text).toContain('ENOENT');
    expect(feedbackKind(text)).toBe('raw');
  });

  it('retries a transient 503 in code, with no model turn', async () => {
    const step: Step = { tool: 'lookup_customer', mistake: 'transient503', outage: 2 };
    const direct = await frameworkAttempt({ tool: 'lookup_customer', args: { email: 'dana@acme.io' } }, worldOf(step));
    expect(direct).toMatchObject({ ok: true, codeRetries: 2 });
    const s = await runFramework(plan(step), 1);
    expect(s.completed).toBe(1);
    expect(s.repairTokens).toBe(0);
    expect(s.tokens).toBe(cleanTokens(1));
  });

  it('sends an outage longer than its code retries to the model as a repair turn', async () => {
    const s = await runFramework(plan({ tool: 'lookup_customer', mistake: 'transient503', outage: 5 }), 1);
    expect(s.completed).toBe(1);
    expect(s.repairTokens).toBeGreaterThan(0);
  });

  it('charges twice when a timed-out charge had committed (no idempotency key); Guardtrace reconciles instead', async () => {
    const committed: Step = { tool: 'charge_card', mistake: 'chargeTimeout', committed: true };
    expect((await runFramework(plan(committed), 1)).duplicateCharges).toBe(1);
    expect((await runFramework(plan({ ...committed, committed: false }), 1)).duplicateCharges).toBe(0);
    expect((await runGuardtrace(plan(committed), 1)).duplicateCharges).toBe(0);
  });
});

describe("the scripted model's memory of what it was shown (seed 001: an identical call back means the text is not actionable)", () => {
  const step: Step = { tool: 'read_file', mistake: 'renamedParameter' };
  const wrong = { tool: 'read_file', args: { filepath: 'src/components/Button.tsx' } };
  const other = { tool: 'read_file', args: { filepath_2: 'src/components/Button.tsx' } };

  it('keeps a text its odds until the model sends the identical call back after reading it, then for every call in the step', () => {
    const m = new StepMemory();
    expect(m.keep(wrong, 'T', 0.25)).toBe(1);
    expect(m.keep(other, 'T', 0.25)).toBe(1);
    expect(m.keep(wrong, 'T', 0.25)).toBe(0.25);
    expect(m.keep(other, 'T', 0.25)).toBe(0.25);
    expect(m.keep(wrong, 'another text', 0.25)).toBe(1);
  });

  it('never fixes the call from a text that keeps none of its odds, and fixes it as often as the odds say otherwise', () => {
    const rand = prng(3);
    const fixedWith = (keep: number): number => {
      let fixed = 0;
      for (let i = 0; i < 1_000; i++) if ('path' in nextCall(step, wrong, 'structured', rand, 1, undefined, keep).args) fixed += 1;
      return fixed;
    };
    expect(fixedWith(0)).toBe(0);
    expect(fixedWith(1)).toBeGreaterThan(900);
  });

  it('a careful tool author who throws the same 403 text at an identical call gets no fix from it the second time; a memoryless model would fix it', async () => {
    // the model's wrong call on a 403 is always the same report id: once it repeats it, the text is spent
    const odds = { hallucinatedTool: { structured: 1, raw: 0 }, renamedParameter: { structured: 1, raw: 0 }, misspelledPath: { structured: 1, raw: 0 }, forbidden403: { structured: 0.5, raw: 0 } };
    const tasks: TaskPlan[] = Array.from({ length: 400 }, (_, id) => ({ id, steps: [{ tool: 'fetch_report', mistake: 'forbidden403' }] }));
    const spent = await runFramework(tasks, 1, odds, true, 0);
    const memoryless = await runFramework(tasks, 1, odds, true, 1);
    // the first text fixes half; every failed fix sends the same call back, which spends the text
    expect(spent.completed / tasks.length).toBeGreaterThan(0.4);
    expect(spent.completed / tasks.length).toBeLessThan(0.6);
    expect(memoryless.completed).toBeGreaterThan(spent.completed + 60);
  });
});
