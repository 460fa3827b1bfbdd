import { randomBytes } from 'node:crypto';
import { expect, type Page } from '@playwright/test';

/**
 * A new project of the signed-in owner, made in the UI (Projects > Create, then Settings > Create
 * key), with its API key as the page shows it once. A test whose figures must not meet the shared
 * project's other sessions (demo data, the seed's large session) sends its spans there.
 */
export async function newProjectWithKey(page: Page, name: string): Promise<{ project: string; apiKey: string }> {
  await page.goto('/projects');
  await page.getByTestId('create-project-form').getByPlaceholder('New project name').fill(`${name} ${randomBytes(3).toString('hex')}`);
  await page.getByTestId('create-project-form').getByRole('button', { name: 'Create project' }).click();
  await expect(page).toHaveURL(/\/settings\?project=/);
  const project = new URL(page.url()).searchParams.get('project') as string;
  await page.getByTestId('create-key-form').getByPlaceholder(/Key name/).fill(name.toLowerCase());
  await page.getByTestId('create-key-form').getByRole('button', { name: 'Create key' }).click();
  const apiKey = ((await page.getByTestId('new-api-key').textContent()) ?? '').trim();
  expect(apiKey).toMatch(/^gt_/);
  return { project, apiKey };
}
