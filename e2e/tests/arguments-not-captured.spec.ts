/**
 * Content capture as the SDK applies it (`capture: 'failures'`, clean sessions not sampled in for
 * content): the replay says a clean call's arguments were not recorded, instead of an empty box,
 * and shows the failed call's arguments beside it.
 */
import { randomBytes } from 'node:crypto';
import { Guardtrace } from '@guardtrace/sdk';
import { expect, test } from '@playwright/test';
import { z } from 'zod';
import { agentTelemetry } from '../agent-telemetry.ts';
import { goToStep } from './replay-helpers.ts';

test("a clean call whose arguments content capture left out says so; the failed call's arguments are shown", async ({ page }) => {
  const tag = randomBytes(4).toString('hex');
  const otel = agentTelemetry('e2e-capture');
  const gt = new Guardtrace({ tracer: otel.tracer, capture: 'failures', sampling: { cleanSessionRate: 0 } });
  const lookup = `lookup_${tag}`;
  const define = `define_${tag}`;
  for (const name of [lookup, define]) {
    gt.tool({ name, description: 'Look a word up', schema: z.object({ q: z.string() }), flags: { readOnly: true }, execute: (a) => a.q });
  }
  const id = `e2e-capture-${tag}`;
  const s = gt.session({ id, agentName: 'e2e-capture' });
  expect((await s.callTool(lookup, { q: 'clean' })).ok).toBe(true);
  expect((await s.callTool(define, { q: 42 })).ok).toBe(false);
  await s.end();
  await otel.shutdown();

  await expect(async () => {
    await page.goto(`/sessions/${id}?project=${process.env.GUARDTRACE_PROJECT_ID}`);
    await expect(page.locator('[data-testid=step][data-kind=tool]')).toHaveCount(2, { timeout: 1000 });
  }).toPass();
  await goToStep(page, lookup);
  const detail = page.getByTestId('step-detail');
  await expect(detail.getByTestId('arguments-not-captured')).toContainText('Arguments not recorded for this attempt: content capture left them out');
  await expect(detail.getByTestId('payload-arguments')).toHaveCount(0);
  await goToStep(page, define);
  await expect(detail.getByTestId('payload-arguments')).toContainText('42');
  await expect(detail.getByTestId('arguments-not-captured')).toHaveCount(0);
});
