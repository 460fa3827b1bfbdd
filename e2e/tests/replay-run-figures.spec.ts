/**
 * The figures of a replay run's page, read in a real browser from a run uploaded as
 * `guardtrace-replay --upload` posts it: the attempts counted as replayed are the ones that were,
 * the ones that could not be (a tool the module no longer has) counted apart.
 */
import { expect, test } from '@playwright/test';
import { newProjectWithKey } from '../projects.ts';

test('a run with attempts that could not be replayed says how many were replayed, of how many', async ({ page }) => {
  const { project, apiKey } = await newProjectWithKey(page, 'Replay run figures');
  const collector = process.env.GUARDTRACE_COLLECTOR_URL as string;
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const made = await fetch(`${collector}/v1/datasets`, { method: 'POST', headers, body: JSON.stringify({ name: 'figures', query: 'tool:write_file' }) });
  expect(made.status).toBe(201);
  const datasetId = ((await made.json()) as { id: string }).id;
  const decision = (allowed: boolean) => ({ allowed, decision: allowed ? 'proceed' : 'replan', failureClass: allowed ? null : 'guard_violation', feedback: allowed ? null : 'TOOL CALL REJECTED: no', checks: [] });
  const result = (n: number, change: string) => ({
    itemId: `t:s${n}`, attempt: 1, tool: 'write_file', sessionId: `s${n}`, stepPath: `/sessions/s${n}?project=${project}&call=s${n}`, change, arguments: { path: 'a' },
    recorded: decision(true), now: change === 'not_replayed' ? null : decision(false), definition: { recordedHash: null, currentHash: '', changes: [] },
    ...(change === 'not_replayed' ? { error: 'unknown tool "write_file": not registered in the Guardtrace instance replayed against (registered: save_file)' } : {}),
  });
  const summary = { calls: 5, attempts: 6, unchanged: 3, newly_rejected: 1, newly_allowed: 0, class_changed: 0, feedback_changed: 0, not_replayed: 2 };
  const uploaded = await fetch(`${collector}/v1/datasets/${datasetId}/runs`, {
    method: 'POST', headers,
    body: JSON.stringify({ format: 'guardtrace.replay-run/v1', datasetId, label: 'renamed tool', startedAt: '2026-12-01T10:00:00Z', finishedAt: '2026-12-01T10:00:01Z', options: { execute: 'none', failOn: [] }, summary, results: [result(1, 'newly_rejected'), result(2, 'not_replayed'), result(3, 'not_replayed')] }),
  });
  expect(uploaded.status).toBe(201);
  await page.goto(((await uploaded.json()) as { url: string }).url);
  await expect(page.getByRole('heading', { name: 'Replay run: renamed tool' })).toBeVisible();
  // 6 attempts, 2 of which could not be replayed: 4 were
  await expect(page.getByText(/attempts replayed/)).toHaveText(/ · 5 calls, 4 of 6 attempts replayed \(guards only\)$/);
  // a call not replayed has no decision now: its box never says the call went through
  const notReplayed = page.locator('[data-testid="run-group"][data-change="not_replayed"]').getByTestId('run-result');
  await expect(notReplayed).toHaveCount(2);
  for (const r of await notReplayed.all()) {
    await expect(r.getByTestId('recorded')).toContainText('went through to the tool');
    await expect(r.getByTestId('now')).not.toContainText('went through to the tool');
    await expect(r.getByTestId('now')).toContainText('Not replayed: no decision is made now');
  }
});

test('a call let through then and now, repaired in code now, is not described as rejected then and now', async ({ page }) => {
  const { project, apiKey } = await newProjectWithKey(page, 'Replay run repaired');
  const collector = process.env.GUARDTRACE_COLLECTOR_URL as string;
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const made = await fetch(`${collector}/v1/datasets`, { method: 'POST', headers, body: JSON.stringify({ name: 'repaired', query: 'tool:read_file' }) });
  const datasetId = ((await made.json()) as { id: string }).id;
  // what guardtrace-replay uploads for a call whose field was renamed while auto-repair is on
  const result = {
    itemId: 't:s1', attempt: 1, tool: 'read_file', sessionId: 's1', stepPath: `/sessions/s1?project=${project}&call=s1`, change: 'feedback_changed', arguments: { path: 'a', lines: 5 },
    recorded: { allowed: true, decision: 'proceed', failureClass: null, feedback: null, checks: [] },
    now: { allowed: true, decision: 'auto_repair', failureClass: null, feedback: 'used argument `maxLines` for `lines`; read_file has no argument `lines`', checks: [] },
    definition: { recordedHash: 'a', currentHash: 'b', changes: ['schema: field "lines" renamed? removed "lines", added "maxLines"'] },
  };
  const summary = { calls: 1, attempts: 1, unchanged: 0, newly_rejected: 0, newly_allowed: 0, class_changed: 0, feedback_changed: 1, not_replayed: 0 };
  const uploaded = await fetch(`${collector}/v1/datasets/${datasetId}/runs`, {
    method: 'POST', headers,
    body: JSON.stringify({ format: 'guardtrace.replay-run/v1', datasetId, label: 'renamed field', startedAt: '2026-12-01T10:00:00Z', finishedAt: '2026-12-01T10:00:01Z', options: { execute: 'none', failOn: [] }, summary, results: [result] }),
  });
  expect(uploaded.status).toBe(201);
  await page.goto(((await uploaded.json()) as { url: string }).url);
  const group = page.locator('[data-testid="run-group"][data-change="feedback_changed"]');
  await expect(group.getByRole('heading', { name: 'Feedback changed (1)' })).toBeVisible();
  await expect(group).not.toContainText('rejected then and now');
  await expect(group).toContainText('the same decision then and now, with other feedback for the model');
});
