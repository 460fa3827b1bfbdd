/**
 * The sessions explorer on sessions a real agent sent through the collector: the query language
 * (filters, free text over arguments, inline errors), sorting, keyset paging, ↑/↓ and Enter,
 * the layout with a 200-character id and a 7-digit token count, and a project's empty state.
 */
import { randomBytes } from 'node:crypto';
import { createOwnedProject, createPrisma } from '@guardtrace/db';
import { Guardtrace } from '@guardtrace/sdk';
import { expect, type Page, test } from '@playwright/test';
import { z } from 'zod';
import { agentTelemetry } from '../agent-telemetry.ts';

const collector = () => process.env.GUARDTRACE_COLLECTOR_URL as string;
const tag = `ex${randomBytes(4).toString('hex')}`;
const ids = {
  invalid: `${tag}inv`,
  unknown: `${tag}unk`,
  // 200 characters, no hyphen to break at.
  long: `${tag}long${'z'.repeat(200 - tag.length - 4)}`,
  plain: Array.from({ length: 24 }, (_, i) => `${tag}p${String(i).padStart(2, '0')}`),
};
const ALL = 27;

/** 27 sessions of one agent: one corrected invalid call, one corrected unknown tool, one with 1.2M tokens, 24 clean. */
async function runAgent() {
  const otel = agentTelemetry('explorer-e2e');
  // autoRepair off: the unknown tool below is the model's to correct (a model repair)
  const gt = new Guardtrace({ tracer: otel.tracer, autoRepair: false });
  gt.tool({ name: 'read_file', description: 'Read a file', schema: z.object({ path: z.string() }), flags: { readOnly: true }, execute: (a) => `contents of ${a.path}` });
  const agentName = `explorer-${tag}`;

  const inv = gt.session({ id: ids.invalid, agentName, userId: `u_${tag}_a` });
  expect((await inv.callTool('read_file', { path: 42 })).ok).toBe(false);
  expect((await inv.callTool('read_file', { path: `docs/${tag}notes.txt` })).ok).toBe(true);
  await inv.end();

  const unk = gt.session({ id: ids.unknown, agentName, userId: `u_${tag}_b` });
  expect((await unk.callTool('reed_file', { path: 'a.txt' })).ok).toBe(false);
  expect((await unk.callTool('read_file', { path: 'a.txt' })).ok).toBe(true);
  await unk.end();

  const long = gt.session({ id: ids.long, agentName, userId: `u_${tag}_b` });
  await long.callTool('read_file', { path: 'big.txt' });
  long.recordModelCall({ model: 'gpt-test', inputTokens: 1_234_567, outputTokens: 1_000 });
  await long.end();

  for (const id of ids.plain) {
    const s = gt.session({ id, agentName, userId: `u_${tag}_b` });
    await s.callTool('read_file', { path: 'a.txt' });
    await s.end();
  }
  await otel.shutdown();
}

const rows = (page: Page) => page.getByTestId('session-row');
const rowIds = (page: Page) => rows(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-session-id')));
const search = (page: Page, q: string) => page.goto(`/sessions?q=${encodeURIComponent(q)}`);

// Serial: the tests read the sessions the agent sent once. A loaded 2-core machine gets time.
test.describe.configure({ mode: 'serial', timeout: 180_000 });

test.beforeAll(async () => {
  await runAgent();
});

test('the collector has stored the agent’s sessions', async ({ page }) => {
  await expect(async () => {
    await search(page, tag);
    await expect(page.getByTestId('pagination-summary')).toHaveText(`25 shown of ${ALL} sessions`, { timeout: 1000 });
  }).toPass();
});

test('the query language filters by class, tool, attempts, agent and user', async ({ page }) => {
  await search(page, `${tag} class:invalid_arguments`);
  expect(await rowIds(page)).toEqual([ids.invalid]);
  await expect(rows(page).first().getByTestId('class-bar')).toHaveAttribute('aria-label', /invalid arguments 1/);

  await search(page, `tool:read_file attempts:>1 ${tag}`);
  expect(await rowIds(page)).toEqual([ids.unknown, ids.invalid]);
  await search(page, `class:unknown_tool agent:explorer-${tag}`);
  expect(await rowIds(page)).toEqual([ids.unknown]);
  await search(page, `user:u_${tag}_a`);
  expect(await rowIds(page)).toEqual([ids.invalid]);
});

test('free text reaches into the attempts’ arguments; typed into the box, the query lands in the URL', async ({ page }) => {
  await search(page, tag);
  await page.getByTestId('session-search').fill(`${tag}notes`);
  await page.getByTestId('session-search').press('Enter');
  await expect(page).toHaveURL(new RegExp(`q=${tag}notes`));
  await expect(rows(page)).toHaveCount(1);
  expect(await rowIds(page)).toEqual([ids.invalid]);

  await search(page, `${tag} nothing-matches-this`);
  await expect(page.getByTestId('sessions-none')).toBeVisible();
});

test('an unknown key and a bad value are explained inline, never a 500', async ({ page }) => {
  const response = await search(page, `${tag} colour:red attempts:lots`);
  expect(response?.status()).toBe(200);
  const errors = page.getByTestId('query-error');
  await expect(errors).toHaveCount(2);
  await expect(errors.nth(0)).toContainText('Unknown filter “colour”');
  await expect(errors.nth(0)).toContainText(`column ${tag.length + 2}`);
  await expect(errors.nth(0)).toContainText('class:, tool:, attempts:');
  await expect(errors.nth(1)).toContainText('“attempts:” expects a whole number');
  await expect(page.getByTestId('sessions-table')).toHaveCount(0);
  await expect(page.getByTestId('session-search')).toHaveValue(`${tag} colour:red attempts:lots`);
});

test('column headers sort, and the sort is in the URL', async ({ page }) => {
  await search(page, tag);
  await page.getByTestId('sort-attempts').click();
  await expect(page).toHaveURL(/sort=attempts&dir=desc/);
  await expect(page.locator('th[aria-sort="descending"]')).toHaveText(/Attempts/);
  expect((await rowIds(page)).slice(0, 2)).toEqual([ids.unknown, ids.invalid]);

  await page.getByTestId('sort-attempts').click();
  await expect(page).toHaveURL(/sort=attempts&dir=asc/);
  await expect(page.locator('th[aria-sort="ascending"]')).toHaveText(/Attempts/);
  const ascending = await rowIds(page);
  expect(ascending).not.toContain(ids.invalid);

  await page.getByTestId('sort-tokens').click();
  await expect(page).toHaveURL(/sort=tokens&dir=desc/);
  await expect(page.locator('th[aria-sort="descending"]')).toHaveText(/Tokens/);
  expect((await rowIds(page))[0]).toBe(ids.long);

  await page.getByTestId('sort-session').click();
  await expect(page).toHaveURL(/sort=session&dir=asc/);
  await expect(page.locator('th[aria-sort="ascending"]')).toHaveText(/Session/);
  const byId = await rowIds(page);
  expect(byId).toEqual([...byId].sort());
});

test('pages follow a cursor forward and back without repeating a session', async ({ page }) => {
  await page.goto(`/sessions?q=${tag}&sort=session&dir=asc`);
  const first = await rowIds(page);
  expect(first).toHaveLength(25);
  await page.getByTestId('page-next').click();
  await expect(page).toHaveURL(/after=/);
  await expect(page.getByTestId('pagination-summary')).toHaveText(`2 shown of ${ALL} sessions`);
  const second = await rowIds(page);
  expect(second).toHaveLength(2);
  expect(new Set([...first, ...second]).size).toBe(ALL);
  expect([...first, ...second]).toEqual([...first, ...second].sort());
  await expect(page.getByTestId('page-next')).toHaveCount(0);
  await page.getByTestId('page-prev').click();
  await expect(page).toHaveURL(/before=/);
  await expect(page.getByTestId('pagination-summary')).toHaveText(`25 shown of ${ALL} sessions`);
  expect(await rowIds(page)).toEqual(first);
});

test('↑/↓ move the selected row and Enter opens it; controls are reachable with Tab', async ({ page }) => {
  await page.goto(`/sessions?q=${tag}&sort=session&dir=asc`);
  const list = await rowIds(page);
  // The first ↓ once the page has hydrated (a key pressed before that reaches no handler).
  await expect(async () => {
    if ((await page.locator('tr[data-selected]').count()) === 0) await page.keyboard.press('ArrowDown');
    await expect(page.locator('tr[data-selected]')).toHaveCount(1, { timeout: 500 });
  }).toPass();
  await expect(rows(page).first()).toHaveAttribute('data-selected', '');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  await expect(rows(page).nth(1)).toHaveAttribute('data-selected', '');
  await expect(page.locator('tr[data-selected]')).toHaveCount(1);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/sessions/${list[1]}\\?`));

  // Tab from the search box reaches the sort headers and then the rows.
  await page.goto(`/sessions?q=${tag}`);
  // The table streams in after the page's frame: a person tabs once it shows.
  await expect(rows(page).first()).toBeVisible();
  await page.getByTestId('session-search').focus();
  const reached: string[] = [];
  for (let i = 0; i < 20; i++) {
    await page.keyboard.press('Tab');
    reached.push(await page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.closest('tr')?.getAttribute('data-testid') ?? ''));
  }
  for (const id of ['sort-session', 'sort-attempts', 'sort-tokens', 'sort-status', 'session-row']) expect(reached).toContain(id);
});

test('a 200-character id and a 7-digit token count keep the page within the window', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`/sessions?q=${tag}&sort=tokens`);
  const row = rows(page).first();
  await expect(row).toHaveAttribute('data-session-id', ids.long);
  await expect(row).toContainText('1,235,567');
  const link = row.getByRole('link').first();
  expect((await link.boundingBox())?.width ?? 999).toBeLessThanOrEqual(260);
  // Three lines of it at most (13 px type, 20 px lines), the whole id in its title and its text.
  expect((await link.boundingBox())?.height ?? 999).toBeLessThanOrEqual(3 * 20 + 1);
  await expect(link).toHaveAttribute('title', ids.long);
  await expect(link).toHaveText(ids.long);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
  // The clamped link still stretches over its row: a click on the status cell, far from the id, opens the session.
  const box = await row.boundingBox();
  await row.click({ position: { x: (box?.width ?? 0) - 30, y: 12 } });
  await expect(page).toHaveURL(new RegExp(`/sessions/${ids.long}\\?`));
});

test('a sampled session’s counts are shown scaled by its sampling weight, with thousands separators', async ({ page }) => {
  // A session the SDK kept 1 in 20 of, as the collector stores it (the SDK's keep decision is random).
  const id = `wt${randomBytes(4).toString('hex')}`;
  const prisma = createPrisma(process.env.GUARDTRACE_DATABASE_URL as string, { max: 1 });
  try {
    await prisma.session.create({
      data: {
        projectId: process.env.GUARDTRACE_PROJECT_ID as string,
        id,
        agentName: 'sampled-agent',
        startedAt: new Date(Date.UTC(2026, 0, 1)),
        endedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 5)),
        outcome: 'success',
        toolCallCount: 3,
        attemptCount: 4,
        failedAttemptCount: 1,
        inputTokens: 50_000n,
        outputTokens: 10_000n,
        samplingWeight: 20,
      },
    });
  } finally {
    await prisma.$disconnect();
  }
  await search(page, id);
  const row = rows(page).first();
  await expect(row).toHaveAttribute('data-session-id', id);
  await expect(row).toContainText('×20 sampled');
  const cells = row.locator('td');
  // Estimates, marked as such (the recorded counts are in their titles).
  await expect(cells.nth(5)).toHaveText('≈60');
  await expect(cells.nth(6)).toContainText('≈80');
  await expect(cells.nth(6)).toContainText('≈20 failed');
  await expect(cells.nth(7)).toHaveText('33%');
  await expect(cells.nth(9)).toHaveText('≈1,200,000');
});

test('a project without sessions shows the OTLP endpoint, where keys are made, and a copyable SDK snippet', async ({ page, context }) => {
  const prisma = createPrisma(process.env.GUARDTRACE_DATABASE_URL as string, { max: 1 });
  // A new project of the signed-in owner (its member, as projects made in the app are).
  const project = await (async () => {
    const email = process.env.GUARDTRACE_OWNER_EMAIL as string;
    const owner = await prisma.authUser.findUniqueOrThrow({ where: { email }, select: { id: true, email: true } });
    return createOwnedProject(prisma, `empty ${tag}`, owner);
  })().finally(() => prisma.$disconnect());
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto(`/sessions?project=${project.id}`);
  const empty = page.getByTestId('sessions-empty');
  await expect(empty).toBeVisible();
  await expect(page.getByTestId('otlp-endpoint')).toHaveText(`${collector()}/v1/traces`);
  await expect(page.getByTestId('settings-link')).toHaveAttribute('href', `/settings?project=${project.id}`);
  await expect(page.getByTestId('sdk-snippet')).toContainText(`setupGuardtrace({ endpoint: '${collector()}'`);
  await empty.getByRole('button', { name: 'Copy endpoint' }).click();
  await expect(empty.getByRole('status').first()).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${collector()}/v1/traces`);
  await empty.getByRole('button', { name: 'Copy snippet' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain("import { Guardtrace } from '@guardtrace/sdk';");
  await page.getByTestId('settings-link').click();
  await expect(page).toHaveURL(new RegExp(`/settings\\?project=${project.id}`));
});
