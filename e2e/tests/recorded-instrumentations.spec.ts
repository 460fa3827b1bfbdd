/**
 * Sessions recorded from the real libraries of four other instrumentations (e2e/fixtures/recorded,
 * made by its record-*.ts scripts: Vercel AI SDK 6, OpenTelemetry GenAI as Traceloop's LangChain
 * instrumentation writes it, OpenInference's LangChain instrumentation, Traceloop's SDK), each
 * posted to the collector under fresh ids. In each, a tool returns a result and a tool throws:
 * the replay shows the model's prompt and output, the tools' arguments and result, and the thrown
 * call as a failed attempt of class tool_error; the session header, the session list, its
 * `class:tool_error` and `has:errors` filters and analytics count that failure, while the root's
 * status keeps the outcome `success`. Then the calls LangChain refuses without a tool span
 * (OpenInference, GenAI), a Traceloop conversation grouped by its `session_id` association
 * property, and the Vercel AI SDK exported through Traceloop's SDK (which renames its spans).
 */
import { expect, type Locator, type Page, test } from '@playwright/test';
import { analyticsFailures, expectAnalyticsFailures, expectListed, openRecordedReplay, postRecording, recordingDay, selectStep, sessionRow } from './recorded-helpers.ts';

// A replay, the list three times and analytics twice on the shared 2-core machine.
test.slow();

interface Case {
  name: string;
  title: string;
  /** Tool steps in the replay, and attempts (one per tool call: each ran once). */
  tools: number;
  /** Text of the first model turn's prompt and output. */
  prompt: string;
  output: string;
  /** The tool that returned a result: its step label, a piece of its arguments and of its result. */
  ok: { label: string; args: string; result: string };
  /** The tool that threw: its step label and reason. */
  failed: { label: string; reason: string };
}

const REASON = 'Error: station LYN-04 is offline for maintenance';
const CASES: Case[] = [
  {
    name: 'vercel-ai',
    title: 'Vercel AI SDK 6',
    tools: 2,
    prompt: 'What is the weather in Lyon',
    output: 'call_forecast',
    ok: { label: 'forecast', args: '"Lyon"', result: 'light rain' },
    failed: { label: 'station_readings', reason: REASON },
  },
  {
    name: 'genai',
    title: 'OpenTelemetry GenAI (Traceloop LangChain instrumentation)',
    tools: 2,
    prompt: 'What is the weather in Lyon',
    output: 'You answer weather questions with the tools.',
    ok: { label: 'DynamicStructuredTool', args: 'Lyon', result: 'light rain' },
    failed: { label: 'DynamicStructuredTool', reason: REASON },
  },
  {
    name: 'openinference',
    title: 'OpenInference (LangChain instrumentation)',
    tools: 2,
    prompt: 'What is the weather in Lyon',
    output: 'generations',
    ok: { label: 'forecast', args: 'Lyon', result: 'light rain' },
    failed: { label: 'station_readings', reason: REASON },
  },
  {
    name: 'traceloop',
    title: 'Traceloop (OpenLLMetry SDK)',
    tools: 3,
    prompt: 'What is the weather in Lyon',
    output: 'You answer weather questions with the tools.',
    ok: { label: 'station_lookup', args: '"Lyon"', result: 'LYN-01' },
    failed: { label: 'DynamicStructuredTool', reason: REASON },
  },
];

/** A payload's text, expanded past its preview when it has more. */
async function expectPayload(payload: Locator, text: string) {
  await expect(payload).toBeVisible();
  const expand = payload.getByTestId('payload-expand');
  if (await expand.count()) {
    await expand.click();
    await expect(expand).toHaveCount(0);
  }
  await expect(payload).toContainText(text);
}

async function checkReplay(page: Page, c: Case, sessionId: string) {
  await openRecordedReplay(page, sessionId, c.tools);
  const header = page.getByTestId('session-header');
  await expect(header.getByTestId('session-attempts')).toHaveText(String(c.tools));
  await expect(header.getByTestId('session-failed-attempts')).toHaveText('1');
  await expect(header.getByTestId('outcome')).toHaveText('success');
  await expect(header.getByTestId('has-errors')).toBeVisible();

  const detail = page.getByTestId('step-detail');
  await selectStep(page, 'model');
  await expectPayload(detail.getByTestId('payload-input'), c.prompt);
  await expectPayload(detail.getByTestId('payload-output'), c.output);
  await expect(detail).not.toContainText('Prompt and output not captured');

  await selectStep(page, 'tool', { failed: false, label: c.ok.label });
  const ok = detail.getByTestId('tool-call');
  await expect(ok.getByTestId('attempt')).toHaveAttribute('data-outcome', 'success');
  await expectPayload(ok.getByTestId('attempt').getByTestId('payload-arguments'), c.ok.args);
  await expectPayload(ok.getByTestId('payload-result'), c.ok.result);

  await selectStep(page, 'tool', { failed: true, label: c.failed.label });
  const bad = detail.getByTestId('tool-call').getByTestId('attempt');
  await expect(bad).toHaveCount(1);
  await expect(bad).toHaveAttribute('data-outcome', 'failed');
  await expect(bad.getByTestId('failure-class')).toHaveAttribute('data-class', 'tool_error');
  await expect(bad.getByTestId('failure-reason')).toContainText(c.failed.reason);
}

for (const c of CASES) {
  test(`${c.title}, recorded: prompt, output, arguments and result shown; the thrown tool a failed attempt, counted everywhere`, async ({ page }) => {
    const day = recordingDay(c.name);
    const before = await analyticsFailures(page, day, c.failed.label, 'tool_error');
    const { sessionId } = await postRecording(c.name);

    await checkReplay(page, c, sessionId);

    // The list: one failed attempt and the marker beside the outcome; found by class:tool_error and has:errors.
    await expectListed(page, sessionId, '', 1);
    const row = sessionRow(page, sessionId);
    await expect(row).toContainText('1 failed');
    await expect(row.getByTestId('has-errors')).toBeVisible();
    await expectListed(page, sessionId, 'class:tool_error', 1);
    await expectListed(page, sessionId, 'has:errors', 1);
    await expectListed(page, sessionId, 'has:errors status:success', 1);
    await expectListed(page, sessionId, 'class:invalid_arguments', 0);

    // Analytics: the segment of the tool that threw counts one more failed attempt on the recording's day.
    await expectAnalyticsFailures(page, day, c.failed.label, 'tool_error', before + 1);
  });
}

// LangChain's agents refuse a call whose input fails the tool's schema and a call of a tool they
// do not have without a tool span; the next model call's input messages carry the refusals.
const REFUSALS = [
  { name: 'openinference-refusals', title: 'OpenInference (LangChain instrumentation)' },
  { name: 'genai-refusals', title: 'OpenTelemetry GenAI (Traceloop LangChain instrumentation)' },
];
for (const c of REFUSALS) {
  test(`${c.title}, recorded: the calls LangChain refused are rejected attempts with their class, in the replay, the list and analytics`, async ({ page }) => {
    const day = recordingDay(c.name);
    const before = await analyticsFailures(page, day, 'forecast', 'invalid_arguments');
    const { sessionId } = await postRecording(c.name);

    // One tool call ran, two were refused: three tool steps, three attempts, two failed.
    await openRecordedReplay(page, sessionId, 3);
    const header = page.getByTestId('session-header');
    await expect(header.getByTestId('session-attempts')).toHaveText('3');
    await expect(header.getByTestId('session-failed-attempts')).toHaveText('2');
    await expect(header.getByTestId('has-errors')).toBeVisible();

    const detail = page.getByTestId('step-detail');
    await selectStep(page, 'tool', { failed: true, label: 'forcast' });
    const unknown = detail.getByTestId('attempt');
    await expect(unknown).toHaveAttribute('data-outcome', 'rejected');
    await expect(unknown.getByTestId('failure-class')).toHaveAttribute('data-class', 'unknown_tool');
    await expect(unknown.getByTestId('failure-reason')).toHaveText('Error: forcast is not a valid tool, try one of [forecast].');

    await selectStep(page, 'tool', { failed: true, label: 'forecast' });
    const invalid = detail.getByTestId('attempt');
    await expect(invalid).toHaveAttribute('data-outcome', 'rejected');
    await expect(invalid.getByTestId('failure-class')).toHaveAttribute('data-class', 'invalid_arguments');
    await expect(invalid.getByTestId('failure-reason')).toContainText("Error invoking tool 'forecast' with kwargs");
    await expectPayload(invalid.getByTestId('payload-arguments'), '"town": "Lyon"');

    await expectListed(page, sessionId, '', 1);
    await expect(sessionRow(page, sessionId)).toContainText('2 failed');
    await expectListed(page, sessionId, 'class:invalid_arguments', 1);
    await expectListed(page, sessionId, 'class:unknown_tool', 1);
    await expectListed(page, sessionId, 'has:errors', 1);

    await expectAnalyticsFailures(page, day, 'forecast', 'invalid_arguments', before + 1);
  });
}

test("Traceloop (OpenLLMetry SDK), recorded: two turns under one session_id association property are one session in the list and the replay, its user_id the user", async ({ page }) => {
  const { sessionId } = await postRecording('traceloop-session');
  // Each turn: forecast returned, station_readings threw.
  await openRecordedReplay(page, sessionId, 4);
  const header = page.getByTestId('session-header');
  await expect(header.getByTestId('session-attempts')).toHaveText('4');
  await expect(header.getByTestId('session-failed-attempts')).toHaveText('2');
  // The user_id association property is the session's user.
  await expect(page.getByTestId('session-user')).toHaveText('user-lyon');
  await expectListed(page, sessionId, '', 1);
  await expect(sessionRow(page, sessionId)).toContainText('2 failed');
});

test('Vercel AI SDK exported through Traceloop, recorded: two model steps (not the outer span), the refused calls as rejected attempts', async ({ page }) => {
  const { sessionId } = await postRecording('traceloop-vercel-ai');
  // forecast and station_readings ran; the wrong argument and the unknown tool were refused.
  await openRecordedReplay(page, sessionId, 4);
  await expect(page.locator('[data-testid=step][data-kind=model]')).toHaveCount(2);
  const header = page.getByTestId('session-header');
  await expect(header.getByTestId('session-attempts')).toHaveText('4');
  await expect(header.getByTestId('session-failed-attempts')).toHaveText('3');
  await expect(page.getByTestId('session-user')).toHaveText('user-lyon');
  const detail = page.getByTestId('step-detail');
  await selectStep(page, 'tool', { failed: true, label: 'forcast' });
  await expect(detail.getByTestId('attempt')).toHaveAttribute('data-outcome', 'rejected');
  await expect(detail.getByTestId('attempt').getByTestId('failure-class')).toHaveAttribute('data-class', 'unknown_tool');
  await expectListed(page, sessionId, 'class:invalid_arguments', 1);
  await expect(sessionRow(page, sessionId)).toContainText('3 failed');
});

for (const c of [
  { name: 'traceloop-openai', title: "Traceloop's" },
  { name: 'openinference-openai', title: "OpenInference's" },
]) {
  test(`LangChain's ChatOpenAI traced by ${c.title} LangChain and OpenAI instrumentations, recorded: each model call one step, its tokens once`, async ({ page }) => {
    const { sessionId } = await postRecording(c.name);
    // One forecast call; two model calls (the tool call, the answer), each recorded by both instrumentations.
    await openRecordedReplay(page, sessionId, 1);
    await expect(page.locator('[data-testid=step][data-kind=model]')).toHaveCount(2);
    const header = page.getByTestId('session-header');
    await expect(header.getByTestId('session-model-calls')).toHaveText('2');
    await expect(header.getByTestId('session-tokens')).toHaveText('280 / 42');
    // The step shown is the OpenAI client's span: its prompt and answer.
    await selectStep(page, 'model', { nth: 1 });
    await expect(page.getByTestId('step-detail')).toContainText('Light rain in Lyon, 18 °C.');
    await expectListed(page, sessionId, '', 1);
    await expect(sessionRow(page, sessionId).getByTestId('session-row-tokens')).toHaveText('322');
  });
}
