/**
 * A Vercel AI SDK agent whose model calls a tool that does not exist: the AI SDK refuses the call
 * without running it (no span of its own; the collector stores it as a rejected attempt under a
 * stand-in call, as the replay shows it) and runs the other call of the same step. Neither call
 * is retried: the explorer's row and the replay's header count two tool calls of one attempt
 * each, and a retry rate of 0%.
 */
import { randomBytes } from 'node:crypto';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { expect, test } from '@playwright/test';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { exportingProvider } from './replay-helpers.ts';

type Gen = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
const usage = (input: number, output: number): Gen['usage'] => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

async function runAgent(sessionId: string) {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const provider = exportingProvider('ai-sdk-refused');
  const script: Gen[] = [
    {
      content: [
        { type: 'tool-call', toolCallId: 'call_no_tool', toolName: 'wether', input: '{"city":"Paris"}' },
        { type: 'tool-call', toolCallId: 'call_ok', toolName: 'weather', input: '{"city":"Oslo"}' },
      ],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage: usage(100, 10),
      warnings: [],
    },
    { content: [{ type: 'text', text: 'Oslo: 20°C.' }], finishReason: { unified: 'stop', raw: undefined }, usage: usage(200, 8), warnings: [] },
  ];
  let step = 0;
  try {
    await generateText({
      model: new MockLanguageModelV3({ provider: 'mock-provider', modelId: 'mock-model', doGenerate: async () => script[step++] as Gen }),
      prompt: 'Weather in Paris and Oslo?',
      stopWhen: stepCountIs(3),
      tools: {
        weather: tool({ description: 'Current weather of a city', inputSchema: z.object({ city: z.string() }), execute: async () => ({ celsius: 20 }) }),
      },
      experimental_telemetry: { isEnabled: true, tracer: provider.getTracer('ai'), functionId: 'weather-chat', metadata: { sessionId } },
    });
  } finally {
    await provider.shutdown();
    contextManager.disable();
    context.disable();
  }
}

test('a call the AI SDK refused counts as a tool call of its own, not as a retry, in the explorer and the replay alike', async ({ page }) => {
  const sessionId = `refused-${randomBytes(4).toString('hex')}`;
  await runAgent(sessionId);

  const row = page.getByTestId('session-row').filter({ hasText: sessionId });
  await expect(async () => {
    await page.goto(`/sessions?q=${sessionId}`);
    await expect(row).toHaveCount(1, { timeout: 1000 });
  }).toPass();
  const cells = row.locator('td');
  await expect(cells.nth(5)).toHaveText('2');
  await expect(cells.nth(6)).toContainText('2');
  await expect(cells.nth(6)).toContainText('1 failed');
  await expect(cells.nth(7)).toHaveText('0%');

  await row.getByRole('link').first().click();
  const header = page.getByTestId('session-header');
  await expect(header).toContainText('Tool calls2');
  await expect(header.getByTestId('session-attempts')).toHaveText('2');
  await expect(header.getByTestId('session-failed-attempts')).toHaveText('1');
});
