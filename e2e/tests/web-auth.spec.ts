/**
 * A second web server on the same database, started with GUARDTRACE_WEB_PASSWORD: every page
 * and every server action needs the user and password; with them the UI works as usual.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { freePort } from '@guardtrace/db/dev';
import { expect, test } from '@playwright/test';
import { ROOT, WEB_SERVE } from '../../scripts/system.ts';

const USER = 'ops';
const PASSWORD = 'e2e correct horse battery';
let web: ChildProcess;
let url = '';

test.beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  web = spawn(process.execPath, [WEB_SERVE], {
    cwd: path.join(ROOT, 'apps/web'),
    env: {
      ...process.env,
      DATABASE_URL: process.env.GUARDTRACE_DATABASE_URL,
      PORT: String(port),
      GUARDTRACE_WEB_HOST: '127.0.0.1',
      GUARDTRACE_WEB_USER: USER,
      GUARDTRACE_WEB_PASSWORD: PASSWORD,
      NEXT_TELEMETRY_DISABLED: '1',
    },
    stdio: 'ignore',
  });
  // Up once it answers at all (401: it wants the password).
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await fetch(`${url}/sessions`).then((r) => r.status, () => 0);
    if (status > 0) break;
    if (Date.now() > deadline) throw new Error(`the web app on ${url} did not start`);
    await new Promise((r) => setTimeout(r, 200));
  }
});

test.afterAll(() => {
  web?.kill('SIGTERM');
});

test('with GUARDTRACE_WEB_PASSWORD set, every page and action needs the user and password', async ({ browser }) => {
  // No credentials: 401 with a Basic challenge, for pages and for a server action's POST alike.
  for (const p of ['/', '/sessions', '/settings', '/analytics']) {
    const res = await fetch(`${url}${p}`, { redirect: 'manual' });
    expect(res.status, p).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="Guardtrace"/);
  }
  const action = await fetch(`${url}/settings`, { method: 'POST', headers: { 'next-action': 'any', 'content-type': 'text/plain' }, body: '[]' });
  expect(action.status).toBe(401);
  // The health checks need no password (a load balancer has none), and say nothing else.
  for (const [p, body] of [['/healthz', { status: 'ok' }], ['/readyz', { status: 'ready' }]] as const) {
    const res = await fetch(`${url}${p}`);
    expect(res.status, p).toBe(200);
    expect(await res.json()).toEqual(body);
  }

  const wrong = await browser.newContext({ httpCredentials: { username: USER, password: `${PASSWORD}!` } });
  expect((await (await wrong.newPage()).goto(`${url}/sessions`))?.status()).toBe(401);
  await wrong.close();

  // The right user and password: the demo sessions show, and keys can be made and revoked.
  const signedIn = await browser.newContext({ httpCredentials: { username: USER, password: PASSWORD } });
  const page = await signedIn.newPage();
  await page.goto(`${url}/sessions`);
  await expect(page.getByTestId('session-row').first()).toBeVisible();

  const name = `e2e auth ${randomBytes(4).toString('hex')}`;
  await page.goto(`${url}/settings`);
  await page.getByTestId('create-key-form').getByPlaceholder(/Key name/).fill(name);
  await page.getByTestId('create-key-form').getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByTestId('new-api-key')).toHaveText(/gt_/);
  page.once('dialog', (d) => d.accept());
  const row = page.getByTestId('api-key-row').filter({ hasText: name });
  await row.getByRole('button', { name: /Revoke/ }).click();
  await expect(row).toContainText(/revoked/i);
  await signedIn.close();
});
