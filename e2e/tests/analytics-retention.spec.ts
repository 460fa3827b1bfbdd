/**
 * A project that keeps sessions 7 days after they end (Settings > Retention) has no figures left
 * for the sessions that ended before that: an analytics window reaching back past it says so,
 * rather than passing the kept sessions' totals off as those of every session of the window.
 */
import { expect, test } from '@playwright/test';
import { newProjectWithKey } from '../projects.ts';

test('an analytics window older than the project’s retention says its figures count only the sessions still kept', async ({ page }) => {
  const { project } = await newProjectWithKey(page, 'Retention window');
  const form = page.getByTestId('retention-form');
  await form.getByLabel('Keep sessions for').fill('7');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByRole('status')).toBeVisible();

  // A window long past the retention (fixed days: nothing depends on the day the test runs).
  await page.goto(`/analytics?project=${project}&from=2020-01-01&to=2020-01-31`);
  await expect(page.getByTestId('analytics-window')).toHaveText('2020-01-01 to 2020-01-31 (UTC)');
  const notice = page.getByTestId('retention-notice');
  await expect(notice).toContainText('keeps sessions 7 days after they end');
  await expect(notice).toContainText('count only the sessions still kept');

  // A window the retention has not reached: no notice.
  await page.goto(`/analytics?project=${project}&from=2999-01-01&to=2999-01-02`);
  await expect(page.getByTestId('analytics-window')).toHaveText('2999-01-01 to 2999-01-02 (UTC)');
  await expect(page.getByTestId('retention-notice')).toHaveCount(0);
});
