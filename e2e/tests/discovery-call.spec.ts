/**
 * A tool call the runtime made by itself: a 403 on a tool that declares a discovery tool is
 * handed back to the model (`replan`) with what the discovery call found, and that discovery
 * call runs as a tool call of its own. From the real SDK through the collector to the replay: the
 * session's two model-made calls and the runtime's one are told apart, in the header's tool call
 * count, in the step list and on the call itself; and the hand-back is no escalation.
 */
import { randomBytes } from 'node:crypto';
import { Guardtrace } from '@guardtrace/sdk';
import { expect, test } from '@playwright/test';
import { z } from 'zod';
import { agentTelemetry } from '../agent-telemetry.ts';

// A page load on the shared 2-core machine can take tens of seconds; no step here is timed.
test.slow();

test('a discovery call the runtime ran reads as the runtime’s, not as a call the model made', async ({ page }) => {
  const id = `e2e-discovery-${randomBytes(4).toString('hex')}`;
  const otel = agentTelemetry('e2e-discovery-agent');
  const gt = new Guardtrace({ tracer: otel.tracer });
  gt.tool({
    name: 'list_permissions',
    description: 'What the caller may read',
    schema: z.object({ owner: z.string() }),
    flags: { readOnly: true },
    execute: (a) => [`${a.owner}/report_7`],
  });
  gt.tool({
    name: 'fetch_report',
    description: 'Fetch a report',
    schema: z.object({ owner: z.string(), id: z.string() }),
    flags: { readOnly: true, external: true },
    discover: { tool: 'list_permissions', args: (a) => ({ owner: a.owner }) },
    execute: (a) => {
      if (a.id !== 'report_7') throw Object.assign(new Error('403 Forbidden'), { status: 403 });
      return { id: a.id, rows: 3 };
    },
  });
  const s = gt.session({ id, agentName: 'e2e-discovery-agent' });
  // The model's first call is refused (403): the runtime runs the discovery tool itself and hands
  // the call back with what it found; the model's second call uses it.
  const first = await s.callTool('fetch_report', { owner: 'acme', id: 'report_9' }, { callId: 'call_model_1' });
  expect(first).toMatchObject({ ok: false, decision: 'replan' });
  if (!first.ok) expect(first.feedback).toContain('acme/report_7');
  const second = await s.callTool('fetch_report', { owner: 'acme', id: 'report_7' }, { callId: 'call_model_2' });
  expect(second.ok).toBe(true);
  await s.end();
  await otel.shutdown();

  await expect(async () => {
    await page.goto(`/sessions/${id}?project=${process.env.GUARDTRACE_PROJECT_ID}`);
    await expect(page.getByTestId('session-tool-calls')).toHaveText('3', { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  // Three tool calls ran; one of them the model did not make.
  await expect(page.getByTestId('session-tool-calls-note')).toHaveText('1 run by the runtime (discovery), not the model');

  // The step list marks the runtime's call, and only it.
  await expect(page.getByTestId('runtime-call-mark')).toHaveCount(1);
  const runtimeRow = page.getByTestId('step').filter({ has: page.getByTestId('runtime-call-mark') });
  await expect(runtimeRow).toContainText('list_permissions');
  await runtimeRow.click();
  const card = page.locator('[data-testid=tool-call][data-tool=list_permissions]');
  await expect(card.getByTestId('runtime-call')).toHaveText('run by the runtime, not the model: discovery for call call_model_1');

  // The refused call went back to the model with the discovery's answer: not an escalation.
  await expect(page.getByTestId('escalations')).toHaveCount(0);
});
