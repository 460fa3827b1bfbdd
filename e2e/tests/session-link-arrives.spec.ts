/**
 * Session links a user opens at the wrong moment: one shared before the session's spans reached
 * the collector shows the replay once they are stored, with no reload by hand; and one made while
 * the session was listed under its trace id (its children arrived before the span naming its
 * conversation) leads to the session the trace moved into, not to "Session not stored".
 * Real spans through the real OTel exporter and collector.
 */
import { randomBytes } from 'node:crypto';
import { context, trace } from '@opentelemetry/api';
import { expect, test } from '@playwright/test';
import { exportingProvider } from './replay-helpers.ts';

test('a link opened before its spans arrive shows the replay once they are stored, without a reload by hand', async ({ page }) => {
  const sessionId = `e2e-early-link-${randomBytes(4).toString('hex')}`;
  await page.goto(`/sessions/${sessionId}`);
  await expect(page.getByRole('heading', { name: 'Session not stored' })).toBeVisible();
  await expect(page.getByTestId('check-again')).toContainText('checks again every 5 s');

  const provider = exportingProvider('early-link-agent');
  const tracer = provider.getTracer('e2e');
  const root = tracer.startSpan('invoke_agent support', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': sessionId } });
  const call = tracer.startSpan(
    'execute_tool lookup_order',
    { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order', 'gen_ai.conversation.id': sessionId, 'gen_ai.tool.call.arguments': '{"order":"A-17"}' } },
    trace.setSpan(context.active(), root),
  );
  call.end();
  root.end();
  await provider.forceFlush();
  await provider.shutdown();

  // The page checks again by itself: the replay's header and its tool call appear.
  await expect(page.getByText('lookup_order').first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('heading', { name: 'Session not stored' })).toHaveCount(0);
});

test("a link to a session listed under its trace id leads to the conversation its trace moved into", async ({ page }) => {
  const conversation = `e2e-rekeyed-${randomBytes(4).toString('hex')}`;
  const provider = exportingProvider('rekeyed-agent');
  const tracer = provider.getTracer('e2e');
  const root = tracer.startSpan('invoke_agent support', { attributes: { 'gen_ai.operation.name': 'invoke_agent' } });
  const traceId = root.spanContext().traceId;
  // The child first, with no conversation id: the session is listed under the trace id.
  const call = tracer.startSpan(
    'execute_tool lookup_order',
    { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order' } },
    trace.setSpan(context.active(), root),
  );
  call.end();
  await provider.forceFlush();
  await page.goto(`/sessions/${traceId}`);
  await expect(page.getByText('lookup_order').first()).toBeVisible();
  const shared = page.url();

  // Then the root, naming the conversation: the trace's rows move to it.
  root.setAttribute('gen_ai.conversation.id', conversation);
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
  await expect(async () => {
    await page.goto(shared);
    expect(new URL(page.url()).pathname).toBe(`/sessions/${conversation}`);
  }).toPass({ timeout: 15_000 });
  await expect(page.getByText('lookup_order').first()).toBeVisible();
});
