/**
 * Datasets and replay runs by role, through the running app: a member saves a dataset from the
 * explorer and its replay run is uploaded; once the member is made a viewer, every dataset page
 * and run still reads, and nothing offers or accepts a new dataset or a deletion. The owner's
 * audit log names who saved it.
 */
import { expect, test } from '@playwright/test';
import { invite, rand, sendToolCall, signUpFromInvitation } from '../accounts.ts';
import { newProjectWithKey } from '../projects.ts';

// A sign-up and two browsers on a shared two-core machine.
test.describe.configure({ timeout: 240_000 });

test('a member saves datasets; as a viewer the same account reads datasets and runs and cannot save or delete one', async ({ browser, page }) => {
  const { project, apiKey } = await newProjectWithKey(page, 'Datasets by role');
  const email = `dataset-member-${rand()}@example.test`;
  const member = await signUpFromInvitation(browser, await invite(page, project, 'member'), email);
  const mp = await member.newPage();

  // A member saves a dataset (the explorer's query: the project has no sessions yet, so no calls).
  await mp.goto(`/sessions?project=${project}`);
  const save = mp.getByTestId('save-dataset-query');
  await save.locator('summary').click();
  await save.getByLabel('Dataset name').fill('member dataset');
  await save.getByRole('button', { name: 'Save' }).click();
  await expect(mp).toHaveURL(/\/datasets\/[0-9a-f-]{36}\?project=/);
  await expect(mp.getByTestId('dataset-status')).toHaveText('0 calls');
  const datasetUrl = mp.url();
  // A replay run of it, uploaded with the project's key as guardtrace-replay --upload does.
  const datasetId = (/\/datasets\/([0-9a-f-]{36})/.exec(datasetUrl) as RegExpExecArray)[1] as string;
  const counts = { unchanged: 0, newly_rejected: 0, newly_allowed: 0, class_changed: 0, feedback_changed: 0, not_replayed: 0 };
  const uploaded = await fetch(`${process.env.GUARDTRACE_COLLECTOR_URL}/v1/datasets/${datasetId}/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ format: 'guardtrace.replay-run/v1', datasetId, label: 'member run', startedAt: '2026-12-01T10:00:00Z', finishedAt: '2026-12-01T10:00:01Z', options: { execute: 'none', failOn: [] }, summary: { calls: 0, attempts: 0, ...counts }, results: [] }),
  });
  expect(uploaded.status).toBe(201);
  const runUrl = ((await uploaded.json()) as { url: string }).url;
  // A recorded call in the project, for the viewer's replay step below.
  const stepSession = `roles-step-${rand()}`;
  expect(await sendToolCall(apiKey, stepSession)).toBe(200);

  // The owner makes the member a viewer.
  await page.goto(`/settings?project=${project}`);
  const memberRow = page.getByTestId('member-row').filter({ hasText: email });
  await memberRow.getByRole('combobox').selectOption('viewer');
  await memberRow.getByRole('button', { name: 'Change role' }).click();
  await expect(memberRow.getByTestId('member-role')).toHaveText('viewer');

  // Datasets: read, not made or deleted.
  await mp.goto(`/datasets?project=${project}`);
  await expect(mp.getByTestId('datasets').getByRole('link', { name: 'member dataset' })).toBeVisible();
  await mp.goto(datasetUrl);
  await expect(mp.getByTestId('dataset-status')).toHaveText('0 calls');
  await expect(mp.getByRole('button', { name: 'Delete dataset' })).toHaveCount(0);
  // The explorer and the session page offer no saving; a replay step's form is refused by the server.
  await mp.goto(`/sessions?project=${project}`);
  await expect(mp.getByTestId('save-dataset-query')).toHaveCount(0);
  await mp.goto(`/sessions/${stepSession}?project=${project}`);
  await expect(mp.getByTestId('replay-position')).toBeVisible({ timeout: 60_000 });
  await expect(mp.getByTestId('save-dataset-session')).toHaveCount(0);
  const refused = mp.getByTestId('save-dataset-step');
  await refused.locator('summary').click();
  await refused.getByLabel('Dataset name').fill('viewer dataset');
  await refused.getByRole('button', { name: 'Save' }).click();
  await expect(refused.getByRole('status')).toHaveText('Your role in this project (viewer) does not allow this.');
  await mp.goto(`/datasets?project=${project}`);
  await expect(mp.getByTestId('datasets').getByRole('link')).toHaveText(['member dataset']);
  // A viewer reads the dataset's replay runs.
  await mp.goto(datasetUrl);
  await mp.getByTestId('dataset-runs').getByRole('link', { name: 'member run' }).click();
  await expect(mp).toHaveURL(runUrl);
  await expect(mp.getByRole('heading', { name: 'Replay run: member run' })).toBeVisible();
  await expect(mp.getByTestId('run-unchanged')).toBeVisible();
  await member.close();

  // The owner's audit log names the member as the dataset's author.
  await page.goto(`/settings/audit?project=${project}`);
  const saved = page.locator('[data-testid="audit-entry"][data-action="dataset.created"]');
  await expect(saved).toHaveCount(1);
  await expect(saved).toContainText(email);
  await expect(saved).toContainText('created the dataset member dataset from query');
});
