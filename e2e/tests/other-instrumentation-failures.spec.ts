/**
 * Agents built without Guardtrace send their own spans over OTLP to the collector. A Vercel AI SDK
 * agent: the replay shows why its tool calls failed, the refused calls as rejected attempts with their
 * class, and the user from its telemetry metadata; ids of 200 characters without hyphens do not overflow
 * the page. OpenTelemetry GenAI guardrail spans: their decisions with reason and violations. Older
 * GenAI conventions' content (OpenLLMetry's indexed attributes, the gen_ai.content.* events) in the replay.
 */
import { randomBytes } from 'node:crypto';
import { type Attributes, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { expect, type Page, test } from '@playwright/test';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { exportingProvider, goToStep } from './replay-helpers.ts';

type Gen = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
const usage = (input: number, output: number): Gen['usage'] => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

/** Opens a session from the sessions list, once the collector has stored it. */
async function openSession(page: Page, tag: string) {
  const row = page.getByTestId('session-row').filter({ hasText: tag });
  await expect(async () => {
    await page.goto(`/sessions?q=${tag}`);
    await expect(row).toHaveCount(1, { timeout: 1000 });
  }).toPass();
  await row.getByRole('link').first().click();
}

/** One generateText run whose model asks for a call with bad input, an unknown tool and a call that throws. */
async function runAiSdkAgent(sessionId: string, userId: string) {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const provider = exportingProvider('ai-sdk-agent');
  const script: Gen[] = [
    {
      content: [
        { type: 'tool-call', toolCallId: 'call_bad_input', toolName: 'weather', input: '{"town":"Paris"}' },
        { type: 'tool-call', toolCallId: 'call_no_tool', toolName: 'wether', input: '{"city":"Paris"}' },
        { type: 'tool-call', toolCallId: 'call_throws', toolName: 'weather', input: '{"city":"Oslo"}' },
      ],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage: usage(100, 10),
      warnings: [],
    },
    {
      content: [{ type: 'text', text: 'Sorry, no weather today.' }],
      finishReason: { unified: 'stop', raw: undefined },
      usage: usage(300, 12),
      warnings: [],
    },
  ];
  let step = 0;
  try {
    const result = await generateText({
      model: new MockLanguageModelV3({ provider: 'mock-provider', modelId: 'mock-model', doGenerate: async () => script[step++] as Gen }),
      prompt: 'Weather in Paris and Oslo?',
      stopWhen: stepCountIs(3),
      tools: {
        weather: tool({
          description: 'Current weather of a city',
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => {
            if (city === 'Oslo') throw new Error('weather service answered 503 for Oslo');
            return { celsius: 20 };
          },
        }),
      },
      experimental_telemetry: { isEnabled: true, tracer: provider.getTracer('ai'), functionId: 'weather-chat', metadata: { sessionId, userId } },
    });
    expect(result.text).toBe('Sorry, no weather today.');
  } finally {
    await provider.shutdown();
    contextManager.disable();
    context.disable();
  }
}

test('a Vercel AI SDK agent: the replay shows why its calls failed, the refused calls with their class, and the user', async ({ page }) => {
  // A real AI SDK run, the collector and two viewport widths on a shared 2-core machine: 60 s is too tight.
  test.setTimeout(120_000);
  const tag = randomBytes(4).toString('hex');
  // 200 characters, no hyphen or space to break at.
  const sessionId = `aisdk${tag}`.padEnd(200, 'x');
  const userId = `user${tag}`.padEnd(200, 'u');
  await runAiSdkAgent(sessionId, userId);

  await openSession(page, tag);
  await expect(page.getByTestId('session-id')).toHaveText(sessionId);
  await expect(page.getByTestId('session-user')).toHaveText(userId);

  // The call whose tool threw: the exception, as `Type: message`, on the call and on its attempt.
  await goToStep(page, 'call_throws');
  const thrown = page.getByTestId('tool-call').filter({ hasText: 'call_throws' });
  await expect(thrown.getByTestId('failure-reason').first()).toHaveText('Error: weather service answered 503 for Oslo');

  // The calls the AI SDK refused before running anything: rejected attempts with their class and reason.
  await goToStep(page, 'unknown_tool');
  const unknown = page.getByTestId('attempt').filter({ has: page.getByTestId('failure-class').filter({ hasText: /unknown[ _]tool/i }) });
  await expect(unknown).toHaveCount(1);
  await expect(unknown).toHaveAttribute('data-outcome', 'rejected');
  await expect(unknown.getByTestId('failure-reason')).toHaveText("Model tried to call unavailable tool 'wether'. Available tools: weather.");
  await goToStep(page, 'invalid_arguments');
  const invalid = page.getByTestId('attempt').filter({ has: page.getByTestId('failure-class').filter({ hasText: /invalid[ _]arguments/i }) });
  await expect(invalid).toHaveCount(1);
  await expect(invalid).toHaveAttribute('data-outcome', 'rejected');
  await expect(invalid.getByTestId('failure-reason')).toContainText(/^Invalid input for tool weather: Type validation failed/);

  // Long ids and reasons wrap inside the page: nothing of the session, nor the top bar, sticks out sideways, on a wide and a narrow screen.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, 'horizontal overflow of the page').toBe(0);
  for (const width of [1280, 420]) {
    await page.setViewportSize({ width, height: 900 });
    const sticking = await page.evaluate(() =>
      Array.from(
        document.querySelectorAll(
          'header, header *, [data-testid=session-header], [data-testid=session-header] *, [data-testid=timeline], [data-testid=timeline] *',
        ),
      )
        .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
        .map((e) => `${e.tagName} ${e.getAttribute('data-testid') ?? e.getAttribute('class')}`),
    );
    expect(sticking, `elements past the right edge at ${width}px`).toEqual([]);
  }
});

test("OpenTelemetry GenAI guardrail spans: the replay shows each decision, and a denial's reason with its violations", async ({ page }) => {
  const tag = randomBytes(4).toString('hex');
  const provider = exportingProvider('guarded-agent');
  const tracer = provider.getTracer('guardrails');
  const conversation = { 'gen_ai.conversation.id': `guardrails${tag}` };
  const root = tracer.startSpan('invoke_agent support', { attributes: { ...conversation, 'gen_ai.operation.name': 'invoke_agent' } });
  const under = trace.setSpan(context.active(), root);
  const guard = (name: string, attributes: Attributes, findings: Attributes[] = []) => {
    const span = tracer.startSpan(name, { attributes: { ...conversation, ...attributes } }, under);
    for (const f of findings) span.addEvent('gen_ai.security.finding', f);
    span.end();
  };
  guard('run_guardrail pii_filter', {
    'gen_ai.operation.name': 'run_guardrail',
    'gen_ai.guardrail.component.name': 'pii_filter',
    'gen_ai.guardrail.verdict.type': 'deny',
    'gen_ai.guardrail.verdict.reason': 'email address in input',
  });
  guard(
    'apply_guardrail Content Filter',
    { 'gen_ai.operation.name': 'apply_guardrail', 'gen_ai.guardian.name': 'Content Filter', 'gen_ai.security.decision.type': 'deny', 'gen_ai.security.decision.reason': 'PII detected in output' },
    [{ 'gen_ai.security.risk.category': 'sensitive_info_disclosure', 'gen_ai.security.risk.severity': 'high' }],
  );
  guard('run_guardrail jailbreak', { 'gen_ai.operation.name': 'run_guardrail', 'gen_ai.guardrail.component.name': 'jailbreak', 'gen_ai.guardrail.verdict.type': 'allow' });
  root.end();
  await provider.shutdown();

  await openSession(page, tag);
  await expect(page.locator('[data-testid=step][data-kind=guard]')).toHaveCount(3);
  const check = page.getByTestId('step-detail').getByTestId('guard-check');
  await goToStep(page, 'pii_filter', 'guard');
  await expect(check).toContainText('pii_filter');
  await expect(check).toHaveAttribute('data-verdict', 'fail');
  await expect(check.getByTestId('guard-reason')).toHaveText('email address in input');
  await goToStep(page, 'Content Filter', 'guard');
  await expect(check).toContainText('Content Filter');
  await expect(check).toHaveAttribute('data-verdict', 'fail');
  await expect(check.getByTestId('guard-reason')).toHaveText('PII detected in output (violations: sensitive_info_disclosure: high)');
  await goToStep(page, 'jailbreak', 'guard');
  await expect(check).toContainText('jailbreak');
  await expect(check).toHaveAttribute('data-verdict', 'pass');
  await expect(check.getByTestId('guard-reason')).toHaveCount(0);
});

test("older GenAI conventions' content: OpenLLMetry's indexed gen_ai.prompt.{i}.* attributes and the gen_ai.content.* events show in the replay", async ({ page }) => {
  const tag = randomBytes(4).toString('hex');
  const provider = exportingProvider('older-genai-agent');
  const tracer = provider.getTracer('older-genai');
  const conversation = { 'gen_ai.conversation.id': `oldgenai${tag}` };
  // Each call at its own time (the step list orders by start; two in the same millisecond could swap).
  const t0 = Date.now() - 60_000;
  const root = tracer.startSpan('invoke_agent weather', { startTime: t0, attributes: { ...conversation, 'gen_ai.operation.name': 'invoke_agent' } });
  const under = trace.setSpan(context.active(), root);
  const usage = { 'gen_ai.usage.input_tokens': 20, 'gen_ai.usage.output_tokens': 5 };
  // OpenLLMetry before the GenAI message attributes: every message flattened into indexed attributes.
  tracer
    .startSpan(
      'openai.chat',
      {
        startTime: t0 + 10,
        attributes: {
          ...conversation,
          ...usage,
          'gen_ai.system': 'openai',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.prompt.0.role': 'user',
          'gen_ai.prompt.0.content': 'Weather in Lyon?',
          'gen_ai.completion.0.role': 'assistant',
          'gen_ai.completion.0.content': 'Light rain in Lyon.',
        },
      },
      under,
    )
    .end(t0 + 20);
  // Semantic conventions 1.26-1.27: the prompt and completion as span events.
  const chat = tracer.startSpan('chat gpt-4o-mini', { startTime: t0 + 30, attributes: { ...conversation, ...usage, 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini' } }, under);
  chat.addEvent('gen_ai.content.prompt', { 'gen_ai.prompt': '[{"role":"user","content":"Weather in Oslo?"}]' });
  chat.addEvent('gen_ai.content.completion', { 'gen_ai.completion': '[{"role":"assistant","content":"Snow in Oslo."}]' });
  chat.end(t0 + 40);
  root.end(t0 + 50);
  await provider.shutdown();

  await openSession(page, tag);
  await expect(page.locator('[data-testid=step][data-kind=model]')).toHaveCount(2);
  const detail = page.getByTestId('step-detail');
  for (const [n, prompt, output] of [
    [0, 'Weather in Lyon?', 'Light rain in Lyon.'],
    [1, 'Weather in Oslo?', 'Snow in Oslo.'],
  ] as const) {
    const step = page.locator('[data-testid=step][data-kind=model]').nth(n);
    await step.click();
    await expect(step).toHaveAttribute('data-current', 'true');
    await expect(detail).not.toContainText('Prompt and output not captured');
    await expect(detail.getByTestId('payload-input')).toContainText(prompt);
    await expect(detail.getByTestId('payload-output')).toContainText(output);
  }
});
