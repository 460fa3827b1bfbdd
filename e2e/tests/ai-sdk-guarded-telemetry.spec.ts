/**
 * An AI SDK agent guarded with `guardedAiSdk` that also turns the AI SDK's own telemetry on
 * (`experimental_telemetry`, as an agent with an exporter of its own does): both instrumentations
 * describe the same tool call and model turns. Inside the host's request span (one trace) the session
 * page counts each call, attempt, model turn and token once; outside it, `generateText` makes a
 * trace of its own, which is part of the session, not a session of its own.
 */
import { randomBytes } from 'node:crypto';
import { Guardtrace } from '@guardtrace/sdk';
import { guardedAiSdk, registerAiSdkTools } from '@guardtrace/sdk/ai-sdk';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { expect, type Page, test } from '@playwright/test';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { agentTelemetry } from '../agent-telemetry.ts';

type Gen = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
const usage = (input: number, output: number): Gen['usage'] => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});
const call = (id: string, input: string): Gen => ({
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'get_weather', input }],
  finishReason: { unified: 'tool-calls', raw: undefined },
  usage: usage(100, 10),
  warnings: [],
});

/** One guarded generateText run: a call with a wrong field, its correction, then the answer (1 call of 2 attempts, 3 model turns). */
async function runAgent(sessionId: string, insideRequestSpan: boolean) {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const otel = agentTelemetry('ai-sdk-guarded-agent');
  try {
    const gt = new Guardtrace({ tracer: otel.tracer });
    registerAiSdkTools(gt, {
      get_weather: { description: 'Weather in a city', inputSchema: z.object({ city: z.string() }), execute: ({ city }: { city: string }) => ({ city, celsius: 20 }) },
    });
    const script: Gen[] = [
      call('call_1', '{"town":"Paris"}'),
      call('call_2', '{"city":"Paris"}'),
      { content: [{ type: 'text', text: 'Sunny, 20 °C.' }], finishReason: { unified: 'stop', raw: undefined }, usage: usage(100, 5), warnings: [] },
    ];
    let step = 0;
    const agent = async () => {
      const s = gt.session({ id: sessionId, agentName: 'ai-sdk-guarded' });
      const result = await generateText({
        model: new MockLanguageModelV3({ provider: 'mock-provider', modelId: 'mock-model', doGenerate: async () => script[step++] as Gen }),
        prompt: 'Weather in Paris?',
        stopWhen: stepCountIs(5),
        experimental_telemetry: { isEnabled: true, tracer: otel.tracer },
        ...guardedAiSdk(s),
      });
      expect(result.text).toBe('Sunny, 20 °C.');
      await s.end();
    };
    if (insideRequestSpan) {
      // the host's own span around the request: the session and the AI SDK's spans share its trace
      await otel.tracer.startActiveSpan('handle_request', async (span) => {
        await agent();
        span.end();
      });
    } else await agent();
  } finally {
    await otel.shutdown();
    contextManager.disable();
    context.disable();
  }
  expect(otel.stats()).toMatchObject({ exported: otel.stats().produced, failed: 0 });
}

async function openSession(page: Page, tag: string, sessionId: string) {
  const row = page.getByTestId('session-row').filter({ hasText: tag });
  await expect(async () => {
    await page.goto(`/sessions?q=${tag}`);
    await expect(row).toHaveCount(1, { timeout: 1000 });
  }).toPass();
  await row.getByRole('link').first().click();
  await expect(page.getByTestId('session-id')).toHaveText(sessionId);
}

/** The session header's counts, as a person reads them. */
async function expectCountedOnce(page: Page) {
  const stat = (label: string) => page.getByTestId('session-header').locator('div', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`, 'i') }) }).locator('dd');
  await expect(stat('Tool calls')).toHaveText('1');
  await expect(page.getByTestId('session-attempts')).toHaveText('2');
  await expect(page.getByTestId('session-failed-attempts')).toHaveText('1');
  await expect(stat('Model calls')).toHaveText('3');
  await expect(stat('Tokens in / out')).toHaveText('300 / 25');
}

test("guardedAiSdk with the AI SDK's own telemetry on, inside the host's request span: each tool call, model call and token counted once", async ({ page }) => {
  test.setTimeout(120_000);
  const tag = randomBytes(4).toString('hex');
  const sessionId = `aisdkguarded${tag}`;
  await runAgent(sessionId, true);
  await openSession(page, tag, sessionId);
  await expectCountedOnce(page);
});

test("guardedAiSdk with the AI SDK's own telemetry on, generateText outside the session's span: its trace is the session's, not a session of its own", async ({ page }) => {
  test.setTimeout(120_000);
  const tag = randomBytes(4).toString('hex');
  const sessionId = `aisdkoutside${tag}`;
  await runAgent(sessionId, false);
  await openSession(page, tag, sessionId);
  await expectCountedOnce(page);
  // two traces: the session's spans and the AI SDK's (ai.generateText and its steps); neither names a session
  const traces = page.getByTestId('session-header').locator('p', { hasText: /^Traces / }).locator('span.font-mono');
  await expect(traces).toHaveCount(2);
  const search = new URL(page.url()).search;
  for (const traceId of await traces.allTextContents()) {
    // No session of its own: a link by the trace's id leads to the session its spans are in.
    await page.goto(`/sessions/${traceId}${search}`);
    expect(new URL(page.url()).pathname, `a session named after trace ${traceId}`).toBe(`/sessions/${sessionId}`);
  }
});
