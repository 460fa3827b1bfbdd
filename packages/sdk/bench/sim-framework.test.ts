import { describe, expect, it } from 'vitest';
import { runGuardtrace } from './sim.ts';
import { frameworkAttempt, repairToolCall, runFramework } from './sim-framework.ts';
import { feedbackKind, nextCall, StepMemory, worldOf } from './sim-model.ts';
import { BASE_SCENARIO, prng, type Step, type TaskPlan } from './sim-world.ts';

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

  it("runs a tool once, as the AI SDK does: a transient 503 goes to the model, and the model's call again is a repair turn", async () => {
    const step: Step = { tool: 'lookup_customer', mistake: 'transient503', outage: 1 };
    const direct = await frameworkAttempt({ tool: 'lookup_customer', args: { email: 'dana@acme.io' } }, worldOf(step));
    expect(direct).toMatchObject({ ok: false, codeRetries: 0, feedback: '503 Service Unavailable' });
    const s = await runFramework(plan(step), 1);
    expect(s.completed).toBe(1);
    expect(s.repairTokens).toBeGreaterThan(0);
  });

  it('the careful author retries a transient 503 in code, with no model turn, and sends a longer outage to the model', async () => {
    const step: Step = { tool: 'lookup_customer', mistake: 'transient503', outage: 2 };
    const direct = await frameworkAttempt({ tool: 'lookup_customer', args: { email: 'dana@acme.io' } }, worldOf(step), 'careful');
    expect(direct).toMatchObject({ ok: true, codeRetries: 2 });
    const s = await runFramework(plan(step), 1, 'careful');
    expect([s.completed, s.repairTokens, s.tokens]).toEqual([1, 0, cleanTokens(1)]);
    const long = await runFramework(plan({ ...step, outage: 5 }), 1, 'careful');
    expect(long.completed).toBe(1);
    expect(long.repairTokens).toBeGreaterThan(0);
  });

  it('charges twice when the model sends a timed-out charge that had committed again (no idempotency key); the careful author\'s key and Guardtrace\'s reconciliation do not', async () => {
    const committed: Step = { tool: 'charge_card', mistake: 'chargeTimeout', committed: true };
    expect((await runFramework(plan(committed), 1)).duplicateCharges).toBe(1);
    expect((await runFramework(plan({ ...committed, committed: false }), 1)).duplicateCharges).toBe(0);
    const careful = await runFramework(plan(committed), 1, 'careful');
    expect([careful.completed, careful.duplicateCharges, careful.repairTokens]).toEqual([1, 0, 0]);
    expect((await runFramework(plan({ ...committed, committed: false }), 1, 'careful')).duplicateCharges).toBe(0);
    expect((await runGuardtrace(plan(committed), 1)).duplicateCharges).toBe(0);
  });

  it("the careful author's repairToolCall corrects a close tool or argument name of a read-only tool, when exactly one fits", async () => {
    expect(await repairToolCall({ tool: 'read_files', args: { path: 'a' } })).toEqual({ tool: 'read_file', args: { path: 'a' } });
    // read_file and edit_file share "file"; only read_file validates these arguments and only reads
    expect(await repairToolCall({ tool: 'open_file', args: { path: 'a' } })).toEqual({ tool: 'read_file', args: { path: 'a' } });
    expect(await repairToolCall({ tool: 'read_file', args: { filepath: 'a' } })).toEqual({ tool: 'read_file', args: { path: 'a' } });
    // edit_file and charge_card change something: reported to the model, never run with what it did not send
    expect(await repairToolCall({ tool: 'edit_file', args: { filepath: 'a', content: 'x' } })).toBeNull();
    expect(await repairToolCall({ tool: 'charge_customer', args: { customer_id: 'c', amount_cents: 1 } })).toBeNull();
    // an edit's arguments under a made-up name fit edit_file alone (read_file has no `content`): no repair to a read
    expect(await repairToolCall({ tool: 'open_file', args: { path: 'a', content: 'x' } })).toBeNull();
    const s = await runFramework(plan({ tool: 'read_file', mistake: 'renamedParameter' }), 1, 'carefulRepair');
    expect([s.completed, s.repairTokens]).toEqual([1, 0]);
  });
});

describe('assumptions with sensitivity rows', () => {
  it('after a 503 the model sends the call again with the odds `resend`, else it stops and the task is not done', async () => {
    const tasks: TaskPlan[] = Array.from({ length: 400 }, (_, id) => ({ id, steps: [{ tool: 'lookup_customer', mistake: 'transient503', outage: 1 }] }));
    expect((await runFramework(tasks, 1, 'defaults')).completed).toBe(400);
    const half = await runFramework(tasks, 1, 'defaults', { ...BASE_SCENARIO, resend: 0.5 });
    expect(half.completed).toBeGreaterThan(160);
    expect(half.completed).toBeLessThan(240);
    // the careful author retries a one-attempt outage in code: the model never sees it
    expect((await runFramework(tasks, 1, 'careful', { ...BASE_SCENARIO, resend: 0.5 })).completed).toBe(400);
  });

  it('charges the note Guardtrace shows the model after a repair in code: it stays in the history', async () => {
    const repaired = await runGuardtrace(plan({ tool: 'read_file', mistake: 'renamedParameter' }, { tool: 'read_file', mistake: 'none' }), 1);
    const clean = await runGuardtrace(plan({ tool: 'read_file', mistake: 'none' }, { tool: 'read_file', mistake: 'none' }), 1);
    expect(repaired.repairTokens).toBe(0);
    expect(repaired.feedbackTokens).toBeGreaterThan(0);
    expect(repaired.tokens - clean.tokens).toBe(2 * repaired.feedbackTokens);
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
      for (let i = 0; i < 1_000; i++) if ('path' in (nextCall(step, wrong, 'structured', rand, 1, undefined, keep)?.args ?? {})) fixed += 1;
      return fixed;
    };
    expect(fixedWith(0)).toBe(0);
    expect(fixedWith(1)).toBeGreaterThan(900);
  });

  it('a careful tool author who throws the same 403 text at an identical call gets no fix from it the second time; a memoryless model would fix it', async () => {
    // the model's wrong call on a 403 is always the same report id: once it repeats it, the text is spent
    const odds = { hallucinatedTool: { structured: 1, raw: 0 }, renamedParameter: { structured: 1, raw: 0 }, misspelledPath: { structured: 1, raw: 0 }, forbidden403: { structured: 0.5, raw: 0 } };
    const tasks: TaskPlan[] = Array.from({ length: 400 }, (_, id) => ({ id, steps: [{ tool: 'fetch_report', mistake: 'forbidden403' }] }));
    const spent = await runFramework(tasks, 1, 'careful', { ...BASE_SCENARIO, odds, repeatedText: 0 });
    const memoryless = await runFramework(tasks, 1, 'careful', { ...BASE_SCENARIO, odds, repeatedText: 1 });
    // the first text fixes half; every failed fix sends the same call back, which spends the text
    expect(spent.completed / tasks.length).toBeGreaterThan(0.4);
    expect(spent.completed / tasks.length).toBeLessThan(0.6);
    expect(memoryless.completed).toBeGreaterThan(spent.completed + 60);
  });
});
