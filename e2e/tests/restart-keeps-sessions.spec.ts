/**
 * Restarting `npm start` signs nobody out: the cookie secret is kept in the data folder
 * (`<data folder>/auth-secret`), so a session cookie from before the restart still opens the app.
 *
 * Real processes: the whole system of `npm start` (scripts/system.ts: embedded Postgres on a data
 * folder of this test, the built collector and web app) started, stopped and started again.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@guardtrace/db/dev';
import { expect, test } from '@playwright/test';
import { fileOutput, ROOT, type RunningSystem, startSystem } from '../../scripts/system.ts';

// Two starts of a whole system (a fresh cluster's migrations included) on the shared two-core machine.
test.describe.configure({ timeout: 300_000 });

/** The session cookie (name=value) a one-time sign-in link sets. */
async function signIn(link: string): Promise<string> {
  const res = await fetch(link, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('better-auth.session_token='));
  expect(cookie).toBeTruthy();
  return (cookie as string).split(';')[0] as string;
}

const sessionsPage = (system: RunningSystem, cookie: string) => fetch(`${system.webUrl}/sessions`, { headers: { cookie }, redirect: 'manual' });

test('a session cookie from before a restart of npm start still opens the app', async () => {
  const base = mkdtempSync(path.join(os.tmpdir(), 'gt-restart-'));
  const dataDir = path.join(base, 'pg');
  // This test is about the secret npm start keeps; the suite's own (global-setup.ts) must not win.
  const suiteSecret = process.env.GUARDTRACE_AUTH_SECRET;
  delete process.env.GUARDTRACE_AUTH_SECRET;
  const logFile = path.join(ROOT, 'e2e/test-results/restart-system.log');
  const start = async () =>
    startSystem({
      dataDir,
      collectorPort: await freePort(),
      webPort: await freePort(),
      demo: 'never',
      build: false,
      log: fileOutput(logFile).bind(null, 'start'),
      childOutput: fileOutput(logFile),
    });
  let system: RunningSystem | undefined;
  try {
    system = await start();
    const cookie = await signIn(system.signInUrl);
    expect((await sessionsPage(system, cookie)).status).toBe(200);
    await system.stop();
    system = undefined;

    system = await start();
    const again = await sessionsPage(system, cookie);
    expect(again.status, `after the restart: ${again.headers.get('location') ?? ''}`).toBe(200);
    expect(await again.text()).toContain(system.ownerEmail);
    // Kept beside the cluster's files, readable by this OS user only.
    expect(statSync(path.join(dataDir, 'auth-secret')).mode & 0o777).toBe(0o600);
  } finally {
    await system?.stop();
    if (suiteSecret !== undefined) process.env.GUARDTRACE_AUTH_SECRET = suiteSecret;
    rmSync(base, { recursive: true, force: true });
  }
});
