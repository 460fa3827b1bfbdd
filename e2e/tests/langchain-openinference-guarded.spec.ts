/**
 * A LangChain agent with guarded tools (guardLangChainTools) and its own OpenInference tracing on
 * the same provider, as a Phoenix user who adds Guardtrace would run it: OpenInference makes a
 * TOOL span for every execution of the original tool, beside Guardtrace's attempt span of the same
 * execution. From the real instrumentations through the collector to the replay's header: each
 * logical call and attempt counts once (before the run's metadata marked those TOOL spans, a
 * retried 503 counted as three calls and three failed attempts).
 */
import { randomBytes } from 'node:crypto';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import { Guardtrace, TransientFailure } from '@guardtrace/sdk';
import { guardLangChainTools } from '@guardtrace/sdk/langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { expect, test } from '@playwright/test';
import { createAgent, FakeToolCallingModel } from 'langchain';
import { z } from 'zod';
import { agentTelemetry } from '../agent-telemetry.ts';

// A page load on the shared 2-core machine can take tens of seconds; no step here is timed.
test.slow();

test('OpenInference’s TOOL spans of guarded LangChain tools do not count a call or an attempt twice', async ({ page }) => {
  const id = `e2e-lc-oi-${randomBytes(4).toString('hex')}`;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const otel = agentTelemetry('e2e-lc-oi-agent');
  const instrumentation = new LangChainInstrumentation({ tracerProvider: otel.provider });
  instrumentation.manuallyInstrument(CallbackManagerModule);
  try {
    const gt = new Guardtrace({ tracer: otel.tracer, backoff: { baseMs: 5, maxMs: 10 } });
    let bookings = 0;
    const tools = [
      tool(({ city }) => JSON.stringify({ city, sky: 'clear' }), { name: 'get_weather', description: 'Weather for a city', schema: z.object({ city: z.string() }) }),
      tool(
        ({ restaurant }) => {
          bookings += 1;
          if (bookings === 1) throw new TransientFailure('503 from the booking API');
          return `booked ${restaurant}`;
        },
        { name: 'book_table', description: 'Book a table', schema: z.object({ restaurant: z.string(), people: z.number() }) },
      ),
    ];
    const guarded = guardLangChainTools(gt, tools, { agentName: 'e2e-lc-oi-agent', meta: { get_weather: { flags: { readOnly: true } }, book_table: { flags: { idempotent: true } } } });
    const model = new FakeToolCallingModel({
      toolCalls: [
        [{ name: 'get_weather', args: { town: 'Lyon' }, id: 'call_1' }],
        [{ name: 'get_weather', args: { city: 'Lyon' }, id: 'call_2' }],
        [{ name: 'book_table', args: { restaurant: 'Chez Nous', people: 2 }, id: 'call_3' }],
        [],
      ],
    });
    const agent = createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware] });
    await agent.invoke({ messages: [new HumanMessage('Weather in Lyon, then book Chez Nous for two')] }, { configurable: { thread_id: id } });
    await guarded.sessions.end(id);
    // The truth: the schema rejection, its corrected call, the 503 the SDK retried, the booking.
    expect(bookings).toBe(2);
  } finally {
    await otel.shutdown();
    instrumentation.disable();
  }

  await expect(async () => {
    await page.goto(`/sessions/${id}?project=${process.env.GUARDTRACE_PROJECT_ID}`);
    await expect(page.getByTestId('session-tool-calls')).toHaveText('2', { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId('session-attempts')).toHaveText('4');
  await expect(page.getByTestId('session-failed-attempts')).toHaveText('2');
  // The booking, retried in code, is one tool step (OpenInference's TOOL spans stay raw spans).
  await expect(page.locator('[data-testid=step][data-kind=tool]').filter({ hasText: 'book_table' })).toHaveCount(1);
});
