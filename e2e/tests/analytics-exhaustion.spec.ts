/**
 * Retry exhaustion, from the real SDK through the collector to the pages: an outage whose call ran
 * out of attempts and was handed back to the model (the transient class's policy: `replan`) ran out
 * of a budget all the same. The replay says so on the attempt, without calling it an escalation, and
 * analytics' "Retry exhaustion by tool" counts it, by the class it kept (transient), beside a call
 * the session's retry budget ended (escalated to a human). (The SDK of 2026-12-06 named no budget on the handed-back call,
 * so the replay counted it and analytics did not.)
 */
import { randomBytes } from 'node:crypto';
import { Guardtrace, TransientFailure } from '@guardtrace/sdk';
import { expect, test } from '@playwright/test';
import { z } from 'zod';
import { agentTelemetry } from '../agent-telemetry.ts';
import { newProjectWithKey } from '../projects.ts';

// A page load on the shared 2-core machine can take tens of seconds; no step here is timed.
test.slow();

test('a call handed back to the model after its attempts ran out counts as retry exhaustion, in the replay and in analytics alike', async ({ page }) => {
  // A project of its own: analytics' counts meet no other test's sessions.
  const { project, apiKey } = await newProjectWithKey(page, 'Exhaustion');
  const id = `e2e-exhaustion-${randomBytes(4).toString('hex')}`;
  const otel = agentTelemetry('e2e-exhaustion-agent', { apiKey });
  // Short backoffs and no retry window, so the outage's three attempts take milliseconds; a session
  // budget of three retries, so the second outage call is ended by it.
  const gt = new Guardtrace({ tracer: otel.tracer, backoff: { baseMs: 5, maxMs: 10 }, policy: { transient: { retryWindowMs: 0 } }, budgets: { sessionRetries: 3 } });
  gt.tool({
    name: 'fetch_rate',
    description: 'Exchange rate',
    schema: z.object({ from: z.string(), to: z.string() }),
    flags: { readOnly: true, idempotent: true, external: true },
    execute: () => {
      throw new TransientFailure('rates service returned 503');
    },
  });
  const s = gt.session({ id, agentName: 'e2e-exhaustion-agent' });
  const first = await s.callTool('fetch_rate', { from: 'USD', to: 'EUR' });
  expect(first).toMatchObject({ ok: false, decision: 'replan', failureClass: 'transient', escalation: { reason: 'attempts_per_call' } });
  const second = await s.callTool('fetch_rate', { from: 'USD', to: 'GBP' });
  expect(second).toMatchObject({ ok: false, failureClass: 'budget_exhausted', decision: 'escalate_human', escalation: { reason: 'session_retries' } });
  await s.end();
  await otel.shutdown();

  // The replay: the handed-back attempt names the budget that ran out and says the call went back to
  // the model (the SDK README: "the outage goes back to the model"); only the second call escalated.
  await expect(async () => {
    await page.goto(`/sessions/${id}?project=${project}`);
    await expect(page.getByTestId('escalation-summary')).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId('escalation-summary')).toHaveText('1 escalation: 1 budget exhausted (transient)');
  const handedBack = page.locator('[data-testid=tool-call]').first();
  await expect(handedBack).toContainText('budget exhausted: attempts_per_call');
  await expect(handedBack.getByTestId('handback-reason')).toHaveText('retries ran out (attempts_per_call): handed back to the model');
  await expect(handedBack.getByTestId('escalation-reason')).toHaveCount(0);

  // Analytics: two exhausted calls of fetch_rate, both by the class of their last failure, transient.
  await page.goto(`/analytics?project=${project}`);
  const row = page.locator('[data-testid=exhaustion-row][data-tool=fetch_rate]');
  await expect(row).toBeVisible();
  await expect(row.locator('td').first()).toHaveText('2');
  await expect(row).toContainText('transient ×2');
  // Beside them, every attempt of the tool (3 + 2), under a header that says so.
  await expect(page.getByTestId('exhaustion').locator('th', { hasText: 'Attempts (est.), all calls' })).toBeVisible();
  await expect(row.locator('td').nth(2)).toHaveText('5');
});
