/**
 * Sessions held for a sampling decision (weight 0: every process would drop them, and the
 * collector keeps them only until its decision wait ends) are not kept sessions: the explorer
 * neither lists nor counts them unless the query asks with `sampling:pending` or `sampling:all`.
 * A real SDK agent at a clean-session rate of 0 sends them through the collector.
 */
import { randomBytes } from 'node:crypto';
import { Guardtrace } from '@guardtrace/sdk';
import { expect, type Page, test } from '@playwright/test';
import { z } from 'zod';
import { agentTelemetry } from '../agent-telemetry.ts';

/** One clean session (weight 0 at rate 0) and one that fails (kept at 1); every span is forwarded. */
async function runAgent(held: string, kept: string): Promise<void> {
  const otel = agentTelemetry('e2e-sampling', { timeoutMillis: 60_000, shutdownTimeoutMillis: 120_000 });
  // autoRepair off: `echoo` stays a failed call for the model to correct (a failing session)
  const gt = new Guardtrace({ tracer: otel.tracer, sampling: { cleanSessionRate: 0 }, autoRepair: false });
  gt.tool({ name: 'echo', description: 'Echo text', schema: z.object({ text: z.string() }), flags: { readOnly: true }, execute: (a) => a.text });
  for (const [id, tool] of [
    [held, 'echo'],
    [kept, 'echoo'],
  ] as const) {
    const s = gt.session({ id, agentName: 'e2e-sampling' });
    await s.callTool(tool, { text: 'hi' });
    await s.end();
  }
  await otel.shutdown();
}

const rows = (page: Page, id: string) => page.getByTestId('session-row').filter({ hasText: id });
const search = (page: Page, q: string) => page.goto(`/sessions?q=${encodeURIComponent(q)}`);

test('sessions held at weight 0 are left out of the list and its count; sampling:pending and sampling:all show them', async ({ page }) => {
  test.setTimeout(180_000);
  const tag = randomBytes(4).toString('hex');
  const held = `held-${tag}`;
  const kept = `kept-${tag}`;
  await runAgent(held, kept);

  // Both stored: the held one is listed when asked for.
  await expect(async () => {
    await search(page, `${tag} sampling:all`);
    await expect(rows(page, held)).toHaveCount(1, { timeout: 2000 });
    await expect(rows(page, kept)).toHaveCount(1, { timeout: 2000 });
  }).toPass({ timeout: 60_000 });

  // By default only the kept session is listed and counted.
  await search(page, tag);
  await expect(rows(page, kept)).toHaveCount(1);
  await expect(rows(page, held)).toHaveCount(0);
  await expect(page.getByTestId('session-row')).toHaveCount(1);

  // sampling:pending: only the held one, marked, with its counts as recorded (not scaled to 0).
  await search(page, `${tag} sampling:pending`);
  await expect(page.getByTestId('session-row')).toHaveCount(1);
  const row = rows(page, held);
  await expect(row.getByTestId('sampling-pending')).toHaveText('sampling pending');
  await expect(row).not.toContainText('×0');

  // A search that only a held session matches says where it is, and the link shows it.
  await search(page, held);
  await expect(page.getByTestId('sessions-none')).toBeVisible();
  await page.getByTestId('show-pending').click();
  await expect(page).toHaveURL(/sampling%3Apending/);
  await expect(rows(page, held)).toHaveCount(1);
});
