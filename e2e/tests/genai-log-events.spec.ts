/**
 * The OpenTelemetry GenAI instrumentations put a model call's prompt and completion in log records
 * (OpenTelemetry events carrying the call's span context), exported to /v1/logs, not on the span.
 * Recorded from @opentelemetry/instrumentation-openai on the real `openai` client
 * (e2e/fixtures/recorded/openai-logs.*), and the semconv 1.37 operation-details event built by
 * hand (e2e/fixtures/genai-events/), posted through the real collector in every order: the replay
 * shows each model call's messages (system, user, the assistant's tool call, the tool's result)
 * and its choice, where before it said the content was not captured.
 */
import { expect, type Page, test } from '@playwright/test';
import { type ExportOrder, openModelReplay, postSpansAndLogs, selectStep } from './recorded-helpers.ts';

// Three replays on the shared 2-core machine.
test.slow();

async function expectModelStep(page: Page, nth: number, prompt: string[], output: string[]): Promise<void> {
  await selectStep(page, 'model', { nth });
  const detail = page.getByTestId('step-detail');
  await expect(detail).not.toContainText('Prompt and output not captured');
  for (const [kind, texts] of [
    ['input', prompt],
    ['output', output],
  ] as const) {
    const payload = detail.getByTestId(`payload-${kind}`);
    // A value longer than its preview: the whole of it, as the reader would expand it.
    const expand = payload.getByTestId('payload-expand');
    if ((await expand.count()) > 0) await expand.click();
    await expect(payload).toHaveAttribute('data-shown', (await payload.getAttribute('data-chars')) ?? '');
    for (const text of texts) await expect(payload).toContainText(text);
  }
}

/** The recorded session's two model calls: the tool call, then the answer after the tool's result. */
async function expectRecordedSteps(page: Page): Promise<void> {
  await expectModelStep(
    page,
    0,
    ['"role": "system"', 'You are a weather assistant. Use the tools.', '"role": "user"', 'What is the weather in Lyon?'],
    ['"finish_reason": "tool_calls"', 'call_weather_1', 'get_weather', '{\\"city\\":\\"Lyon\\"}'],
  );
  await expectModelStep(
    page,
    1,
    ['What is the weather in Lyon?', '"role": "assistant"', 'call_weather_1', '"role": "tool"', '\\"celsius\\":14'],
    ['"finish_reason": "stop"', 'It is 14°C and cloudy in Lyon.'],
  );
}

for (const order of ['logs first', 'spans first', 'interleaved'] as ExportOrder[]) {
  test(`@opentelemetry/instrumentation-openai's GenAI events show as each model call's prompt and output (${order})`, async ({ page }) => {
    const sessionId = await postSpansAndLogs('recorded/openai-logs', order);
    await openModelReplay(page, sessionId, 2);
    await expectRecordedSteps(page);
  });
}

test('GenAI events arriving after the replay was opened show on the next load (the replay answer is not served stale)', async ({ page }) => {
  const sessionId = await postSpansAndLogs('recorded/openai-logs', 'spans first', {
    beforeLogs: async (id) => {
      await openModelReplay(page, id, 2);
      await selectStep(page, 'model', { nth: 0 });
      await expect(page.getByTestId('step-detail')).toContainText("Prompt and output not captured: the agent did not opt in to content capture, or its instrumentation writes them as log records and its OpenTelemetry logs exporter does not send them to this collector's /v1/logs.");
      // no events yet: the spans' export only
      await expect(page.getByTestId('session-export')).toBeVisible();
      await expect(page.getByTestId('session-export-logs')).toHaveCount(0);
    },
  });
  await page.reload();
  await expect(page.locator('[data-testid=step][data-kind=model]')).toHaveCount(2);
  await expectRecordedSteps(page);
  expect(page.url()).toContain(encodeURIComponent(sessionId));
  // The events' own export (the spans' file holds none of them): an OTLP logs document for /v1/logs.
  const link = page.getByTestId('session-export-logs');
  await expect(link).toHaveText('Export GenAI events (OTLP logs JSON)');
  const res = await page.request.get((await link.getAttribute('href')) as string);
  expect(res.status()).toBe(200);
  expect(res.headers()['content-disposition']).toMatch(/\.logs\.otlp\.json"$/);
  const doc = (await res.json()) as { resourceLogs: { scopeLogs: { logRecords: { eventName: string; spanId: string }[] }[] }[] };
  const names = doc.resourceLogs.flatMap((r) => r.scopeLogs.flatMap((sc) => sc.logRecords.map((l) => l.eventName)));
  expect(names).toHaveLength(8);
  expect(new Set(names)).toEqual(new Set(['gen_ai.system.message', 'gen_ai.user.message', 'gen_ai.assistant.message', 'gen_ai.tool.message', 'gen_ai.choice']));
});

test("the semconv 1.37 operation-details event's messages show as the model call's prompt and output", async ({ page }) => {
  const sessionId = await postSpansAndLogs('genai-events/operation-details', 'spans first');
  await openModelReplay(page, sessionId, 1);
  await expectModelStep(
    page,
    0,
    ['"role": "system"', 'You are a weather assistant. Answer in one sentence.', '"role": "user"', 'Will it rain in Nantes tomorrow?'],
    ['"type": "tool_call"', 'call_forecast_7', '"name": "forecast"', '"city": "Nantes"'],
  );
});
