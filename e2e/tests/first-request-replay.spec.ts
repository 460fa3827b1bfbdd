/**
 * A replay opened as the very first request to a freshly started web server (a shared link, an
 * alert's link, a browser restoring its tabs after a restart) shows its steps. The production
 * build holds the database package twice (the pages' graph and the route handlers' graph): the
 * page made the process' Prisma client, and the steps route, which reads rows through
 * `queryArrays`, once could not find that client's connection settings and answered HTTP 500 for
 * the life of the process.
 *
 * Real processes: a second standalone web server, started here on the suite's database (with its
 * demo sessions) and the suite's cookie secret, so a session made on the shared server signs the
 * browser in without any request to this one before the replay's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { createPrisma, createSignInLink, signInLinkPath } from '@guardtrace/db';
import { freePort } from '@guardtrace/db/dev';
import { expect, request, test } from '@playwright/test';
import { ROOT, WEB_SERVE } from '../../scripts/system.ts';

// Starts a second Next server on the shared two-core machine.
test.describe.configure({ timeout: 180_000 });

let web: ChildProcess | undefined;
let freshUrl: string;

/** Resolves once something accepts TCP connections on the port: no HTTP request reaches the server. */
async function listening(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ; ) {
    if (child.exitCode !== null) throw new Error(`the web server exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`the web server did not listen on ${port} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test.beforeAll(async () => {
  const port = await freePort();
  freshUrl = `http://127.0.0.1:${port}`;
  web = spawn(process.execPath, [WEB_SERVE], {
    cwd: path.join(ROOT, 'apps/web'),
    env: {
      ...process.env,
      DATABASE_URL: process.env.GUARDTRACE_DATABASE_URL,
      PORT: String(port),
      GUARDTRACE_WEB_HOST: '127.0.0.1',
      // The shared server's secret (global-setup.ts): its session cookies are valid here too.
      GUARDTRACE_AUTH_SECRET: process.env.GUARDTRACE_AUTH_SECRET,
      NEXT_TELEMETRY_DISABLED: '1',
    },
    stdio: 'ignore',
  });
  await listening(port, web, 120_000);
});

test.afterAll(async () => {
  if (web && web.exitCode === null) {
    const exited = new Promise((r) => web?.once('exit', r));
    web.kill('SIGTERM');
    await exited;
  }
});

test('a replay opened as the first request to a freshly started web server shows its steps', async ({ browser }) => {
  // The demo session with the most steps, read from the database (not through either server).
  const prisma = createPrisma(process.env.GUARDTRACE_DATABASE_URL as string, { max: 1 });
  const [session, link] = await Promise.all([
    prisma.session.findFirstOrThrow({ where: { projectId: process.env.GUARDTRACE_PROJECT_ID as string }, orderBy: { spanCount: 'desc' } }),
    prisma.authUser
      .findUniqueOrThrow({ where: { email: (process.env.GUARDTRACE_OWNER_EMAIL as string).toLowerCase() } })
      .then(async (owner) => `${process.env.GUARDTRACE_WEB_URL}${signInLinkPath((await createSignInLink(prisma, owner.id)).token)}`),
  ]).finally(() => prisma.$disconnect());

  // Signed in on the shared server: the cookie (host 127.0.0.1, any port) goes to the fresh one.
  const signer = await request.newContext();
  const signIn = await signer.get(link, { maxRedirects: 0 });
  expect(signIn.status()).toBe(302);
  const context = await browser.newContext({ baseURL: freshUrl, storageState: await signer.storageState() });
  await signer.dispose();
  const page = await context.newPage();
  const steps: number[] = [];
  page.on('response', (res) => {
    if (new URL(res.url()).pathname.endsWith('/replay')) steps.push(res.status());
  });

  await page.goto(`/sessions/${encodeURIComponent(session.id)}?project=${process.env.GUARDTRACE_PROJECT_ID}`);
  await expect(page.getByTestId('session-header')).toBeVisible();
  // The steps, or the error that once stood in their place ("Could not load the session's steps").
  await expect(page.getByTestId('replay-position').or(page.getByTestId('replay-error'))).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('replay-error')).toHaveCount(0);
  await expect(page.getByTestId('step').first()).toBeVisible();
  expect(steps).toContain(200);
  expect(steps).not.toContain(500);
  await context.close();
});
