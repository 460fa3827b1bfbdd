/**
 * The web app on a read replica (DATABASE_READ_URL): a physical streaming replica of the suite's
 * database, made from the embedded Postgres binaries (dev-postgres' startStreamingReplica), and a
 * second standalone web server reading its explorer, replay and analytics from it. With the
 * replica's replay paused while an agent records a session through the collector:
 * - the explorer shows the replica's data, without the new session, under "Showing data as of N s
 *   ago (read replica lagging)", and so do analytics and the replay of a session the replica has;
 * - the new session's replay, opened from its link first, shows its steps (found on the primary),
 *   not "not found";
 * - a setting saved in the UI reads back at once (settings read the primary).
 * Once replay resumes, the explorer lists the session and the notice goes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { createApiKey, createOwnedProject, createPrisma, createSignInLink, type PrismaClient, signInLinkPath } from '@guardtrace/db';
import { freePort, type RunningReplica, startStreamingReplica } from '@guardtrace/db/dev';
import { Guardtrace } from '@guardtrace/sdk';
import { type BrowserContext, expect, request, test } from '@playwright/test';
import { z } from 'zod';
import { ROOT, WEB_SERVE } from '../../scripts/system.ts';
import { agentTelemetry } from '../agent-telemetry.ts';

// Starts a replica and a second Next server on the shared two-core machine.
test.describe.configure({ timeout: 180_000 });

const env = (name: string) => process.env[name] as string;
let web: ChildProcess | undefined;
let replica: RunningReplica | undefined;
let replicaAdmin: PrismaClient | undefined;
let baseURL = '';
let storageState: Awaited<ReturnType<BrowserContext['storageState']>> | undefined;

/** Resolves once something accepts TCP connections on the port. */
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

/** One session recorded by a real agent through the suite's collector (a failed call: always kept). */
async function recordSession(id: string, apiKey?: string): Promise<void> {
  const otel = agentTelemetry('replica-agent', apiKey ? { apiKey } : {});
  const gt = new Guardtrace({ tracer: otel.tracer });
  gt.tool({ name: 'echo', description: 'Echo text', schema: z.object({ text: z.string() }), flags: { readOnly: true }, execute: (a) => a.text });
  const s = gt.session({ id, agentName: 'replica-agent' });
  await s.callTool('echo', { text: 42 });
  await s.callTool('echo', { text: 'fixed' });
  await s.end();
  await otel.shutdown();
}

test.beforeAll(async () => {
  replica = await startStreamingReplica(env('GUARDTRACE_DATABASE_URL'));
  replicaAdmin = createPrisma(replica.url, { max: 1 });
  const port = await freePort();
  web = spawn(process.execPath, [WEB_SERVE], {
    cwd: path.join(ROOT, 'apps/web'),
    env: {
      ...process.env,
      DATABASE_URL: env('GUARDTRACE_DATABASE_URL'),
      DATABASE_READ_URL: replica.url,
      // A second behind shows the notice: the test need not wait ten.
      GUARDTRACE_READ_LAG_NOTICE_SECONDS: '1',
      PORT: String(port),
      GUARDTRACE_WEB_HOST: '127.0.0.1',
      // The shared server's secret (global-setup.ts): its session cookies are valid here too.
      GUARDTRACE_AUTH_SECRET: env('GUARDTRACE_AUTH_SECRET'),
      NEXT_TELEMETRY_DISABLED: '1',
    },
    stdio: 'ignore',
  });
  await listening(port, web, 120_000);

  // Signed in on the shared server: the cookie (host 127.0.0.1, any port) goes to this one.
  const prisma = createPrisma(env('GUARDTRACE_DATABASE_URL'), { max: 1 });
  const owner = await prisma.authUser.findUniqueOrThrow({ where: { email: env('GUARDTRACE_OWNER_EMAIL').toLowerCase() } });
  const link = `${env('GUARDTRACE_WEB_URL')}${signInLinkPath((await createSignInLink(prisma, owner.id)).token)}`;
  await prisma.$disconnect();
  const signer = await request.newContext();
  expect((await signer.get(link, { maxRedirects: 0 })).status()).toBe(302);
  storageState = await signer.storageState();
  await signer.dispose();
  baseURL = `http://127.0.0.1:${port}`;
});

test.afterAll(async () => {
  await replicaAdmin?.$executeRawUnsafe('SELECT pg_wal_replay_resume()').catch(() => {});
  await replicaAdmin?.$disconnect();
  if (web && web.exitCode === null) {
    const exited = new Promise((r) => web?.once('exit', r));
    web.kill('SIGTERM');
    await exited;
  }
  await replica?.stop();
});

test('a lagging replica: the explorer says how old its data is, a new session opens from the primary, settings read back at once', async ({ browser }) => {
  const ctx = await browser.newContext({ baseURL, storageState });
  const page = await ctx.newPage();
  const project = env('GUARDTRACE_PROJECT_ID');
  const id = `replica-e2e-${randomBytes(4).toString('hex')}`;
  const notice = page.getByTestId('replica-lag');
  const rows = page.getByTestId('session-row');

  // Caught up: the demo sessions, read from the replica, and no notice.
  await page.goto(`/sessions?project=${project}`);
  await expect(rows.first()).toBeVisible();
  await expect(notice).toHaveCount(0);

  await replicaAdmin?.$executeRawUnsafe('SELECT pg_wal_replay_pause()');
  try {
    await recordSession(id);

    // The explorer: the replica has not replayed the session; the page says its data is behind.
    await expect(async () => {
      await page.goto(`/sessions?project=${project}&q=${id}`);
      await expect(notice).toHaveText(/Showing data as of \d+ s ago \(read replica lagging\)/, { timeout: 1000 });
    }).toPass({ timeout: 30_000 });
    await expect(page.getByTestId('sessions-none')).toHaveText(/No sessions match this query in the data as of \d+ s ago \(read replica lagging\)/);
    await expect(rows).toHaveCount(0);

    // Analytics and the replay of a session the replica has read the replica too: the same notice.
    await page.goto(`/analytics?project=${project}`);
    await expect(notice).toBeVisible();
    await page.goto(`/sessions?project=${project}`);
    await rows.first().getByRole('link').first().click();
    await expect(page.getByTestId('session-header')).toBeVisible();
    await expect(notice).toHaveText(/Showing data as of \d+ s ago \(read replica lagging\)/);

    // The session's link, opened first: found on the primary, steps and all, with no notice.
    const replay: number[] = [];
    page.on('response', (res) => {
      if (new URL(res.url()).pathname.endsWith('/replay')) replay.push(res.status());
    });
    await page.goto(`/sessions/${encodeURIComponent(id)}?project=${project}`);
    await expect(page.getByTestId('session-header')).toContainText(id);
    await expect(page.getByTestId('step').first()).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('replay-error')).toHaveCount(0);
    await expect(notice).toHaveCount(0);
    expect(replay).toContain(200);
    expect(replay).not.toContain(404);

    // A setting saved now reads back at once: settings read the primary.
    await page.goto(`/settings?project=${project}`);
    const rate = page.getByTestId('sample-rate-form');
    await rate.locator('#percent').fill('37');
    await rate.getByRole('button', { name: 'Save' }).click();
    await expect(rate.getByRole('status')).not.toBeEmpty();
    await page.reload();
    await expect(page.getByTestId('sample-rate-form').locator('#percent')).toHaveValue('37');
  } finally {
    await replicaAdmin?.$executeRawUnsafe('SELECT pg_wal_replay_resume()');
    await page.goto(`/settings?project=${project}`);
    await page.getByTestId('sample-rate-form').locator('#percent').fill('100');
    await page.getByTestId('sample-rate-form').getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('sample-rate-form').getByRole('status')).not.toBeEmpty();
  }

  // Replay resumed: the explorer lists the session, and the notice is gone.
  await replica?.caughtUp();
  await expect(async () => {
    await page.goto(`/sessions?project=${project}&q=${id}`);
    await expect(rows).toHaveCount(1, { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  await expect(notice).toHaveCount(0);
  await ctx.close();
});

test('a new project whose first session the lagging replica has not replayed lists it from the primary, not "no match"', async ({ browser }) => {
  const ctx = await browser.newContext({ baseURL, storageState });
  const page = await ctx.newPage();
  const prisma = createPrisma(env('GUARDTRACE_DATABASE_URL'), { max: 1 });
  const id = `replica-new-${randomBytes(4).toString('hex')}`;
  await replicaAdmin?.$executeRawUnsafe('SELECT pg_wal_replay_pause()');
  try {
    const owner = await prisma.authUser.findUniqueOrThrow({ where: { email: env('GUARDTRACE_OWNER_EMAIL').toLowerCase() } });
    const project = await createOwnedProject(prisma, `replica new ${id}`, { id: owner.id, email: owner.email });
    const { key } = await createApiKey(prisma, project.id);
    await recordSession(id, key);
    // Before: "No sessions match this query." with no query set (the list came from the replica).
    await expect(async () => {
      await page.goto(`/sessions?project=${project.id}`);
      await expect(page.getByTestId('session-row').filter({ hasText: id })).toBeVisible({ timeout: 1000 });
    }).toPass({ timeout: 30_000 });
    await expect(page.getByTestId('sessions-none')).toHaveCount(0);
  } finally {
    await replicaAdmin?.$executeRawUnsafe('SELECT pg_wal_replay_resume()');
    await prisma.$disconnect();
    await ctx.close();
  }
});
