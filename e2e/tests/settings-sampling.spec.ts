import { randomBytes } from 'node:crypto';
import { Guardtrace, remoteSamplingRate } from '@guardtrace/sdk';
import { expect, test } from '@playwright/test';
import { z } from 'zod';
import { agentTelemetry } from '../agent-telemetry.ts';

const collector = () => process.env.GUARDTRACE_COLLECTOR_URL as string;

/** An agent that uses the SDK's remote sampling rate, as a production host would. */
async function runAgent(apiKey: string, sessions: { id: string; fail: boolean }[]) {
  const otel = agentTelemetry('e2e-agent', { apiKey, sampling: {} });
  const remote = remoteSamplingRate({ endpoint: collector(), apiKey });
  const rate = await remote.refresh();
  // autoRepair off: `echoo` stays a failed call for the model to correct (a failing session)
  const gt = new Guardtrace({ tracer: otel.tracer, sampling: { cleanSessionRate: remote.rate }, autoRepair: false });
  gt.tool({ name: 'echo', description: 'Echo text', schema: z.object({ text: z.string() }), flags: { readOnly: true }, execute: (a) => a.text });
  for (const { id, fail } of sessions) {
    const s = gt.session({ id, agentName: 'e2e-agent' });
    await s.callTool(fail ? 'echoo' : 'echo', { text: 'hi' });
    await s.end();
  }
  remote.stop();
  await otel.shutdown();
  return rate;
}

test('a key made in the UI and the sample rate set there drive a real agent; revoking the key locks it out', async ({ page }) => {
  const tag = randomBytes(4).toString('hex');
  await page.goto('/settings');

  // Create a key: shown once.
  const keyForm = page.getByTestId('create-key-form');
  await keyForm.getByPlaceholder(/Key name/).fill(`e2e ${tag}`);
  await keyForm.getByRole('button', { name: 'Create key' }).click();
  const apiKey = ((await page.getByTestId('new-api-key').textContent()) ?? '').trim();
  expect(apiKey).toMatch(/^gt_/);

  // Keep no clean sessions.
  const rateForm = page.getByTestId('sample-rate-form');
  await rateForm.locator('#percent').fill('0');
  await rateForm.getByRole('button', { name: 'Save' }).click();
  await expect(rateForm.getByRole('status')).not.toBeEmpty();

  try {
    const clean = `e2e-clean-${tag}`;
    const failed = `e2e-failed-${tag}`;
    expect(await runAgent(apiKey, [{ id: clean, fail: false }, { id: failed, fail: true }])).toBe(0);

    await page.goto(`/sessions?q=${tag}`);
    await expect(page.getByTestId('session-row').filter({ hasText: failed })).toHaveCount(1);
    await expect(page.getByTestId('session-row').filter({ hasText: clean })).toHaveCount(0);
  } finally {
    await page.goto('/settings');
    await page.getByTestId('sample-rate-form').locator('#percent').fill('100');
    await page.getByTestId('sample-rate-form').getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('sample-rate-form').getByRole('status')).not.toBeEmpty();
  }

  // Revoke it in the UI: the collector answers 403 from then on.
  page.once('dialog', (d) => d.accept());
  const row = page.getByTestId('api-key-row').filter({ hasText: `e2e ${tag}` });
  await row.getByRole('button', { name: 'Revoke' }).click();
  await expect(row).toContainText(/revoked/);
  await expect
    .poll(async () => (await fetch(`${collector()}/v1/sampling`, { headers: { authorization: `Bearer ${apiKey}` } })).status, {
      timeout: 10_000,
    })
    .toBe(403);
});
