/**
 * Tail sampling with the host's own tracing around the agent: the session nests under the active
 * request span (as the SDK README sets it up). A clean session the rate drops takes the host's
 * request span with it; before, that span reached the collector alone and was stored as a session
 * of its own (keyed by its trace id: empty, "success", counted in analytics). A failed session is
 * kept whole, the request span in it.
 */
import { randomBytes } from 'node:crypto';
import { Guardtrace } from '@guardtrace/sdk';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { expect, test } from '@playwright/test';
import { z } from 'zod';
import { agentTelemetry } from '../agent-telemetry.ts';

// A page load on the shared 2-core machine can take tens of seconds; no step here is timed.
test.slow();

test('a dropped session takes the request span around it along; a kept one keeps it', async ({ page }) => {
  // the host's OpenTelemetry setup propagates the active span (NodeSDK does)
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const tag = randomBytes(4).toString('hex');
  const otel = agentTelemetry('e2e-host-span', { sampling: {} });
  // autoRepair off: `echoo` stays a failed call, so its session is kept
  const gt = new Guardtrace({ tracer: otel.tracer, sampling: { cleanSessionRate: 0 }, autoRepair: false });
  gt.tool({ name: 'echo', description: 'Echo text', schema: z.object({ text: z.string() }), flags: { readOnly: true }, execute: (a) => a.text });
  const request = (id: string, tool: string) =>
    otel.tracer.startActiveSpan('GET /chat', async (req) => {
      const s = gt.session({ id, agentName: 'e2e-host-span' });
      await s.callTool(tool, { text: 'hi' });
      await s.end();
      req.end();
      return req.spanContext().traceId;
    });
  const droppedTrace = await request(`dropped-${tag}`, 'echo');
  const keptTrace = await request(`kept-${tag}`, 'echoo');
  await otel.shutdown();
  expect(droppedTrace).not.toBe(keptTrace);

  const project = process.env.GUARDTRACE_PROJECT_ID;
  // The kept session is stored, its request span with it (the span tree lists it).
  await expect(async () => {
    await page.goto(`/sessions/kept-${tag}?project=${project}&view=tree`);
    await expect(page.getByText('GET /chat').first()).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 60_000 });
  // The dropped session's request span made no session of its own.
  await page.goto(`/sessions/${droppedTrace}?project=${project}`);
  await expect(page.getByRole('heading', { name: 'Session not stored' })).toBeVisible();
  await page.goto(`/sessions/dropped-${tag}?project=${project}`);
  await expect(page.getByRole('heading', { name: 'Session not stored' })).toBeVisible();
});
