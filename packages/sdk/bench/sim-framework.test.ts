import { describe, expect, it } from 'vitest';
import { frameworkAttempt, runFramework } from './sim-framework.ts';
import { feedbackKind, worldOf } from './sim-model.ts';
import { runGuardtrace } from './sim.ts';
import type { Step, TaskPlan } from './sim-world.ts';

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
