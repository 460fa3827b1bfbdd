/**
 * A repair done in code, from a real SDK agent over OTLP: a read-only tool called with a misspelled
 * argument name is corrected by the SDK (auto-repair) and runs once. The replay shows the failed
 * attempt like a model repair, but marked as corrected in code: the kind, from → to and the
 * pointers before and after; no repair turn is attributed to it. Likewise a hallucinated tool name
 * and a missing path. Analytics counts them per class apart from the model's repairs.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Guardtrace } from '@guardtrace/sdk';
import { fileExists } from '@guardtrace/sdk/guards/files';
import { expect, test } from '@playwright/test';
import { z } from 'zod';
import { agentTelemetry } from '../agent-telemetry.ts';
import { newProjectWithKey } from '../projects.ts';

// A page load on the shared 2-core machine can take tens of seconds; no step here is timed.
test.slow();

/**
 * Session `sessionId`: two mistakes repaired in code; session `${sessionId}-model`: one the SDK
 * cannot correct (a wrong type), rejected, repaired by the model's turn and corrected by it.
 */
async function runAgent(apiKey: string, sessionId: string): Promise<void> {
  const otel = agentTelemetry('e2e-autorepair-agent', { apiKey });
  const gt = new Guardtrace({ tracer: otel.tracer });
  gt.tool({
    name: 'search_files',
    description: 'Search the files',
    schema: z.object({ query: z.string(), limit: z.number().int().optional() }),
    flags: { readOnly: true },
    execute: (a) => ({ hits: [`${a.query}.ts`] }),
  });
  const root = mkdtempSync(path.join(tmpdir(), 'e2e-autorepair-'));
  mkdirSync(path.join(root, 'src/components'), { recursive: true });
  writeFileSync(path.join(root, 'src/components/Button.tsx'), 'export {}\n');
  gt.tool({
    name: 'read_file',
    description: 'Read a file',
    schema: z.object({ path: z.string() }),
    flags: { readOnly: true },
    guards: [fileExists<{ path: string }>({ root, paths: (a) => a.path })],
    execute: (a) => a.path,
  });
  const s = gt.session({ id: sessionId, agentName: 'e2e-autorepair-agent' });
  s.recordModelCall({ model: 'gpt-test', provider: 'openai', inputTokens: 900, outputTokens: 30 });
  const r = await s.callTool('search_files', { query_text: 'Button', limit: 3 });
  expect(r).toMatchObject({ ok: true, value: { hits: ['Button.ts'] } });
  // A hallucinated tool name with one close registered tool the arguments satisfy.
  expect(await s.callTool('search_codebase', { query: 'Card' })).toMatchObject({ ok: true, tool: 'search_files' });
  // A missing path the files guard resolves to one candidate.
  expect(await s.callTool('read_file', { path: 'src/Button.tsx' })).toMatchObject({ ok: true, value: 'src/components/Button.tsx' });
  s.recordModelCall({ model: 'gpt-test', provider: 'openai', inputTokens: 950, outputTokens: 20 });
  await s.end();
  const m = gt.session({ id: `${sessionId}-model`, agentName: 'e2e-autorepair-agent' });
  const wrong = await m.callTool('search_files', { query: 42 });
  expect(wrong).toMatchObject({ ok: false, decision: 'reject_with_feedback' });
  if (!wrong.ok) m.recordModelCall({ model: 'gpt-test', provider: 'openai', inputTokens: 300, outputTokens: 20, repairs: wrong });
  expect(await m.callTool('search_files', { query: '42' })).toMatchObject({ ok: true });
  await m.end();
  await otel.shutdown();
}

test('repairs in code show as corrected in code (from → to, pointers, no repair turn) and count apart from the model\'s in analytics', async ({ page }) => {
  // A project of its own: analytics' counts meet no other test's sessions.
  const { project, apiKey } = await newProjectWithKey(page, 'Auto-repair');
  const id = `e2e-autorepair-${randomBytes(4).toString('hex')}`;
  await runAgent(apiKey, id);

  const call = page.locator('[data-testid=tool-call][data-tool=search_files]');
  await expect(async () => {
    await page.goto(`/sessions/${id}?project=${project}&step=2`);
    await expect(call).toHaveCount(1, { timeout: 1000 });
  }).toPass({ timeout: 30_000 });

  // One call, two attempts: the first repaired in code, the second ran with the correction.
  const attempts = call.getByTestId('attempt');
  await expect(attempts).toHaveCount(2);
  const repaired = attempts.nth(0);
  await expect(repaired.getByTestId('failure-class').first()).toHaveAttribute('data-class', 'invalid_arguments');
  await expect(repaired.getByTestId('attempt-header')).toContainText('→ auto_repair');
  const note = repaired.getByTestId('corrected-in-code');
  await expect(note).toContainText('Corrected in code');
  await expect(note.getByTestId('auto-repair-kind')).toHaveText('argument name');
  await expect(note.getByTestId('auto-repair-change')).toHaveText('query_text → query');
  await expect(note).toContainText('ran as attempt #2');
  await expect(note.getByTestId('auto-repair-before')).toHaveText('/query /query_text');
  await expect(note.getByTestId('auto-repair-after')).toHaveText('/query');
  await expect(repaired).toContainText('Correction told to the model with the result');
  await expect(repaired).toContainText('used argument `query` for `query_text`');
  // Not a model repair: no repair turn named, none linked.
  await expect(repaired.getByTestId('repaired-by')).toHaveCount(0);
  await expect(attempts.nth(1)).toHaveAttribute('data-outcome', 'success');
  await expect(attempts.nth(1).getByTestId('corrected-in-code')).toHaveCount(0);
  // The session's steps: turn, three calls, turn; each call is one step (not split at a repair turn).
  await expect(page.locator('[data-testid=step][data-kind=tool]')).toHaveCount(3);
  await expect(page.locator('[data-testid=step][data-kind=model]')).toHaveCount(2);

  // The tool-name repair: the model's name → the tool that ran, no pointers.
  await page.goto(`/sessions/${id}?project=${project}&step=3`);
  const byName = page.getByTestId('tool-call').getByTestId('attempt').nth(0);
  await expect(byName.getByTestId('attempt-tool')).toHaveText('as search_codebase');
  await expect(byName.getByTestId('failure-class').first()).toHaveAttribute('data-class', 'unknown_tool');
  await expect(byName.getByTestId('auto-repair-kind')).toHaveText('tool name');
  await expect(byName.getByTestId('auto-repair-change')).toHaveText('search_codebase → search_files');
  await expect(byName.getByTestId('repaired-by')).toHaveCount(0);

  // The path repair: the path the model sent → the one candidate, at the same pointer.
  await page.goto(`/sessions/${id}?project=${project}&step=4`);
  const byPath = page.getByTestId('tool-call').getByTestId('attempt').nth(0);
  await expect(byPath.getByTestId('failure-class').first()).toHaveAttribute('data-class', 'missing_resource');
  await expect(byPath.getByTestId('auto-repair-kind')).toHaveText('path');
  await expect(byPath.getByTestId('auto-repair-change')).toHaveText('src/Button.tsx → src/components/Button.tsx');
  await expect(byPath.getByTestId('auto-repair-before')).toHaveText('/path');
  await expect(byPath.getByTestId('auto-repair-after')).toHaveText('/path');

  // Analytics: repairs in code vs by the model, per class.
  await page.goto(`/analytics?project=${project}`);
  const row = (cls: string) => page.locator(`[data-testid=repair-split-row][data-class=${cls}]`);
  await expect(page.getByTestId('repair-split-row')).toHaveCount(3);
  await expect(row('invalid_arguments').getByTestId('repairs-in-code')).toHaveText('1');
  await expect(row('invalid_arguments').getByTestId('repairs-by-model')).toHaveText('1');
  await expect(row('invalid_arguments')).toContainText('50.0%');
  await expect(row('unknown_tool').getByTestId('repairs-in-code')).toHaveText('1');
  await expect(row('unknown_tool').getByTestId('repairs-by-model')).toHaveText('0');
  await expect(row('unknown_tool')).toContainText('100.0%');
  await expect(row('missing_resource').getByTestId('repairs-in-code')).toHaveText('1');
  await expect(row('missing_resource').getByTestId('repairs-by-model')).toHaveText('0');
  // Tokens saved, estimated: a repair turn not spent each, at the mean of the range's repair turns of
  // the class (the model's one: 300 + 20 tokens), else of all classes (marked *).
  await expect(row('invalid_arguments').getByTestId('tokens-saved')).toHaveText('≈ 320');
  await expect(row('unknown_tool').getByTestId('tokens-saved')).toHaveText('≈ 320 *');
  await expect(row('missing_resource').getByTestId('tokens-saved')).toHaveText('≈ 320 *');
});
