/**
 * Accounts, projects, roles, invitations and the audit log, through the running app: sign-up
 * from an invitation link, sign-in and out (everywhere), throttling per IP and per account,
 * role changes taking effect, and every attempt on another account's project (pages, server
 * actions, route handlers) answered 404 or 403 with nothing changed.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { createPrisma, type PrismaClient } from '@guardtrace/db';
import { type Browser, expect, test } from '@playwright/test';
import { invite, PASSWORD, rand, SIGNED_OUT, signInWithPassword, signUpFromInvitation } from '../accounts.ts';

const web = () => process.env.GUARDTRACE_WEB_URL as string;
const ownerProject = () => process.env.GUARDTRACE_PROJECT_ID as string;

// Long flows (sign-ups, several accounts' browsers) on a shared two-core machine.
test.describe.configure({ timeout: 240_000 });

let prisma: PrismaClient;
test.beforeAll(() => {
  prisma = createPrisma(process.env.GUARDTRACE_DATABASE_URL as string, { max: 2 });
});
test.afterAll(async () => {
  await prisma?.$disconnect();
});

/** A POST to better-auth from a given loopback address (each test its own, so throttles do not meet). */
function post(pathname: string, body: unknown, localAddress: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(web());
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: hostname,
        port,
        localAddress,
        method: 'POST',
        path: pathname,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), origin: web() },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

test('signed out, pages go to the sign-in page and everything else is 401; the session cookie is HttpOnly and SameSite=Lax', async ({ browser, page }) => {
  const anon = await browser.newContext({ storageState: SIGNED_OUT });
  const p = await anon.newPage();
  for (const path of ['/sessions', '/analytics', '/settings', '/projects', `/settings/audit?project=${ownerProject()}`]) {
    await p.goto(path);
    await expect(p, path).toHaveURL(/\/sign-in/);
  }
  const action = await fetch(`${web()}/settings`, { method: 'POST', headers: { 'next-action': 'any', 'content-type': 'text/plain' }, body: '[]' });
  expect(action.status).toBe(401);
  const exported = await fetch(`${web()}/settings/audit/export?project=${ownerProject()}`, { redirect: 'manual' });
  expect(exported.status).toBe(303);
  expect(exported.headers.get('location')).toMatch(/\/sign-in\?next=/);
  // A forged session cookie passes the quick gate but not the route handler's check in Postgres.
  const forged = await fetch(`${web()}/settings/audit/export?project=${ownerProject()}`, {
    redirect: 'manual',
    headers: { cookie: 'better-auth.session_token=forged.forged' },
  });
  expect(forged.status).toBe(401);
  await anon.close();

  await page.goto('/sessions');
  const cookie = (await page.context().cookies()).find((c) => c.name.endsWith('session_token'));
  expect(cookie?.httpOnly).toBe(true);
  expect(cookie?.sameSite).toBe('Lax');
  // Served over http on loopback: no Secure flag (a browser would drop the cookie); https sets it (docs/deployment.md).
  expect(cookie?.secure).toBe(false);
});

test('a used sign-in link signs nobody in', async ({ browser }) => {
  const anon = await browser.newContext({ storageState: SIGNED_OUT });
  // The link global setup used is spent: try a made-up one and see the explanation.
  const p = await anon.newPage();
  await p.goto('/api/auth/sign-in/link?token=not-a-real-token');
  await expect(p).toHaveURL(/\/sign-in\?error=link/);
  await expect(p.getByText(/sign-in link is unknown, used or expired/)).toBeVisible();
  await anon.close();
});

test('projects: create, rename, invite a member who signs up, change roles, audit; the link works once', async ({ browser, page }) => {
  const name = `Acme ${rand()}`;
  await page.goto('/projects');
  await page.getByTestId('create-project-form').getByPlaceholder('New project name').fill(name);
  await page.getByTestId('create-project-form').getByRole('button', { name: 'Create project' }).click();
  await expect(page).toHaveURL(/\/settings\?project=/);
  const project = new URL(page.url()).searchParams.get('project') as string;

  const link = await invite(page, project, 'member');
  const email = `member-${rand()}@example.test`;
  const member = await signUpFromInvitation(browser, link, email);
  // The password is stored as an argon2id hash with the app's parameters (19 MiB, 2 passes), never as typed.
  const account = await prisma.authAccount.findFirstOrThrow({ where: { user: { email } }, select: { password: true } });
  expect(account.password).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  expect(account.password).not.toContain(PASSWORD);

  // The same link again: refused, whoever opens it.
  const other = await browser.newContext({ storageState: SIGNED_OUT });
  const op = await other.newPage();
  await op.goto(link);
  await expect(op.getByText(/unknown, used, revoked or expired/)).toBeVisible();
  await other.close();

  // A member manages keys and reads the audit log, but not members.
  const mp = await member.newPage();
  await mp.goto(`/settings?project=${project}`);
  await expect(mp.getByTestId('create-key-form')).toBeVisible();
  await expect(mp.getByTestId('invite-form')).toHaveCount(0);
  await mp.getByTestId('create-key-form').getByPlaceholder(/Key name/).fill('member key');
  await mp.getByTestId('create-key-form').getByRole('button', { name: 'Create key' }).click();
  await expect(mp.getByTestId('new-api-key')).toHaveText(/gt_/);
  await mp.goto(`/settings/alerts?project=${project}`);
  await expect(mp.getByTestId('alert-rule-form')).toBeVisible();
  // The owner renames the project and makes the member a viewer.
  await page.goto('/projects');
  const row = page.getByTestId('project-row').filter({ hasText: name });
  await row.getByTestId('rename-project-form').getByRole('textbox').fill(`${name} renamed`);
  await row.getByTestId('rename-project-form').getByRole('button', { name: 'Rename' }).click();
  await expect(page.getByTestId('project-row').filter({ hasText: `${name} renamed` })).toBeVisible();
  await page.goto(`/settings?project=${project}`);
  const memberRow = page.getByTestId('member-row').filter({ hasText: email });
  await memberRow.getByRole('combobox').selectOption('viewer');
  await memberRow.getByRole('button', { name: 'Change role' }).click();
  await expect(memberRow.getByTestId('member-role')).toHaveText('viewer');

  // As a viewer: settings read-only, the audit log is not there.
  await mp.goto(`/settings?project=${project}`);
  await expect(mp.getByTestId('create-key-form')).toHaveCount(0);
  await expect(mp.getByTestId('sample-rate')).toBeVisible();
  expect((await mp.goto(`/settings/audit?project=${project}`))?.status()).toBe(404);
  // Alert rules: read, not changed (no form, no buttons).
  expect((await mp.goto(`/settings/alerts?project=${project}`))?.status()).toBe(200);
  await expect(mp.getByRole('heading', { name: 'Alerts' })).toBeVisible();
  await expect(mp.getByTestId('alert-rule-form')).toHaveCount(0);
  expect((await mp.request.get(`/settings/audit/export?project=${project}`)).status()).toBe(403);
  // The owner reads who did what.
  await page.goto(`/settings/audit?project=${project}`);
  const actions = await page.getByTestId('audit-entry').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
  expect(actions).toEqual(['member.role_changed', 'project.renamed', 'key.created', 'member.joined', 'member.invited', 'project.created']);
  await expect(page.getByTestId('audit-entry').first()).toContainText(`changed the role of ${email} from member to viewer`);
  const exported = await page.request.get(`/settings/audit/export?project=${project}`);
  expect(exported.status()).toBe(200);
  expect(((await exported.json()) as { entries: unknown[] }).entries).toHaveLength(6);

  // Removed: the project is gone from the member's view (404).
  await page.goto(`/settings?project=${project}`);
  await memberRow.getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByTestId('member-row').filter({ hasText: email })).toHaveCount(0);
  expect((await mp.goto(`/sessions?project=${project}`))?.status()).toBe(404);
  await member.close();

  // Deleted by its owner: gone.
  await page.goto('/projects');
  const renamed = page.getByTestId('project-row').filter({ hasText: `${name} renamed` });
  await renamed.getByPlaceholder(/to delete/).fill(`${name} renamed`);
  await renamed.getByRole('button', { name: 'Delete project' }).click();
  await expect(page.getByTestId('project-row').filter({ hasText: name })).toHaveCount(0);
  expect(await prisma.project.count({ where: { id: project } })).toBe(0);
});

test("another project's sessions, keys, settings and audit log: every page, action and route answers 404/403 and changes nothing", async ({ browser, page }) => {
  // An outsider: invited into a project of its own, no member of the owner's default project.
  await page.goto('/projects');
  await page.getByTestId('create-project-form').getByPlaceholder('New project name').fill(`Outsider home ${rand()}`);
  await page.getByTestId('create-project-form').getByRole('button', { name: 'Create project' }).click();
  await expect(page).toHaveURL(/\/settings\?project=/);
  const home = new URL(page.url()).searchParams.get('project') as string;
  const outsiderEmail = `outsider-${rand()}@example.test`;
  const outsider = await signUpFromInvitation(browser, await invite(page, home, 'owner'), outsiderEmail);
  const target = ownerProject();
  const session = await prisma.session.findFirstOrThrow({ where: { projectId: target }, select: { id: true } });
  const key = await prisma.apiKey.create({ data: { id: randomUUID(), projectId: target, name: `victim ${rand()}`, prefix: 'gt_victim', hash: rand() + rand() } });
  const before = {
    keys: await prisma.apiKey.count({ where: { projectId: target } }),
    rate: (await prisma.project.findUniqueOrThrow({ where: { id: target } })).cleanSampleRate,
    // the outsider's entries only: the alerts test runs beside this one and audits its rules in the same project
    audit: await prisma.auditEntry.count({ where: { projectId: target, actorEmail: outsiderEmail } }),
    members: await prisma.projectMember.count({ where: { projectId: target } }),
    invitations: await prisma.invitation.count({ where: { projectId: target } }),
  };

  const p = await outsider.newPage();
  // Pages: the project does not exist for this account.
  for (const path of [
    `/sessions?project=${target}`,
    `/sessions/${encodeURIComponent(session.id)}?project=${target}`,
    `/sessions/${encodeURIComponent(session.id)}`,
    `/analytics?project=${target}`,
    `/settings?project=${target}`,
    `/settings/audit?project=${target}`,
  ]) {
    expect((await p.goto(path))?.status(), path).toBe(404);
  }
  // The project picker lists only its own project.
  await p.goto('/sessions');
  expect(await p.getByTestId('project-picker').locator('a[href*="project="]').evaluateAll((as) => as.map((a) => a.getAttribute('href')))).not.toContainEqual(
    expect.stringContaining(target),
  );
  // Route handler.
  const exported = await p.request.get(`/settings/audit/export?project=${target}`);
  expect(exported.status()).toBe(404);

  // Server actions: its own settings forms, pointed at the other project.
  await p.goto(`/settings?project=${home}`);
  await p.getByTestId('create-key-form').getByPlaceholder(/Key name/).fill('own key');
  await p.getByTestId('create-key-form').getByRole('button', { name: 'Create key' }).click();
  await expect(p.getByTestId('new-api-key')).toHaveText(/gt_/);
  await p.reload();
  // Hydrated first: the forms then keep the values set below until they are submitted.
  await p.waitForLoadState('networkidle');
  await expect(p.getByTestId('create-key-form').getByRole('status')).toHaveCount(0);
  const aim = () =>
    p.evaluate(
      (id) =>
        document.querySelectorAll<HTMLInputElement>('input[name="project"]').forEach((i) => {
          i.value = id;
        }),
      target,
    );
  await aim();
  await expect(p.getByTestId('create-key-form').locator('input[name="project"]')).toHaveValue(target);
  await p.getByTestId('create-key-form').getByPlaceholder(/Key name/).fill('stolen');
  await p.getByTestId('create-key-form').getByRole('button', { name: 'Create key' }).click();
  await expect(p.getByTestId('create-key-form').getByRole('status')).toHaveText('Project not found.');
  await aim();
  await p.getByTestId('sample-rate-form').getByLabel('Clean sessions kept').fill('3');
  await p.getByTestId('sample-rate-form').getByRole('button', { name: 'Save' }).click();
  await expect(p.getByTestId('sample-rate-form').getByRole('status')).toHaveText('Project not found.');
  await aim();
  await p.getByTestId('invite-form').getByRole('button', { name: 'Create invitation link' }).click();
  await expect(p.getByTestId('invite-form').getByRole('status')).toHaveText('Project not found.');
  await expect(p.getByTestId('invitation-link')).toHaveCount(0);
  // Revoke, change a role, remove a member: aimed at the other project's key and owner.
  const ownerId = (await prisma.projectMember.findFirstOrThrow({ where: { projectId: target, role: 'owner' } })).userId;
  await p.evaluate(
    ([keyId, userId]) => {
      document.querySelectorAll<HTMLInputElement>('input[name="key"]').forEach((i) => {
        i.value = keyId as string;
      });
      document.querySelectorAll<HTMLInputElement>('input[name="user"]').forEach((i) => {
        i.value = userId as string;
      });
    },
    [key.id, ownerId],
  );
  p.once('dialog', (d) => d.accept());
  const revoked = p.waitForResponse((r) => r.request().method() === 'POST');
  await p.getByTestId('api-key-row').first().getByRole('button', { name: /Revoke/ }).click();
  await revoked;
  const memberRow = p.getByTestId('member-row').first();
  await memberRow.getByRole('combobox').selectOption('viewer');
  await memberRow.getByRole('button', { name: 'Change role' }).click();
  await expect(memberRow.getByRole('status')).toHaveText('Project not found.');
  await memberRow.getByRole('button', { name: 'Remove' }).click();
  await expect(memberRow.getByRole('status')).toHaveText('Project not found.');

  const after = {
    keys: await prisma.apiKey.count({ where: { projectId: target } }),
    rate: (await prisma.project.findUniqueOrThrow({ where: { id: target } })).cleanSampleRate,
    audit: await prisma.auditEntry.count({ where: { projectId: target, actorEmail: outsiderEmail } }),
    members: await prisma.projectMember.count({ where: { projectId: target } }),
    invitations: await prisma.invitation.count({ where: { projectId: target } }),
  };
  expect(after).toEqual(before);
  expect((await prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } })).revokedAt).toBeNull();
  await outsider.close();
});

test('sign out everywhere ends every session of the account; signing in with the password works again', async ({ browser, page }) => {
  await page.goto('/projects');
  await page.getByTestId('create-project-form').getByPlaceholder('New project name').fill(`Sessions ${rand()}`);
  await page.getByTestId('create-project-form').getByRole('button', { name: 'Create project' }).click();
  await expect(page).toHaveURL(/\/settings\?project=/);
  const project = new URL(page.url()).searchParams.get('project') as string;
  const email = `traveller-${rand()}@example.test`;
  const first = await signUpFromInvitation(browser, await invite(page, project, 'viewer'), email);
  const second = await signInWithPassword(browser, email);
  expect(await prisma.authSession.count({ where: { user: { email } } })).toBe(2);

  const p1 = await first.newPage();
  await p1.goto('/sessions');
  await p1.getByTestId('account-menu').locator('summary').click();
  await p1.getByRole('button', { name: 'Sign out everywhere' }).click();
  await expect(p1).toHaveURL(/\/sign-in/);
  expect(await prisma.authSession.count({ where: { user: { email } } })).toBe(0);
  const p2 = await second.newPage();
  await p2.goto('/sessions');
  await expect(p2).toHaveURL(/\/sign-in/);
  await first.close();
  await second.close();
  await (await signInWithPassword(browser, email)).close();
});

test('sign-in is throttled per IP, and per account whatever the IP', async ({ page }) => {
  // Per IP: the sixth try within a minute from one address is refused.
  const nobody = `nobody-${rand()}@example.test`;
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await post('/api/auth/sign-in/email', { email: nobody, password: 'wrong password!' }, '127.0.0.21')).status);
  expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  // Another address is not held up by it.
  expect((await post('/api/auth/sign-in/email', { email: nobody, password: 'wrong password!' }, '127.0.0.22')).status).toBe(401);

  // Per account: ten failures spread over five addresses lock the account, the right password included.
  await page.goto('/projects');
  await page.getByTestId('create-project-form').getByPlaceholder('New project name').fill(`Throttle ${rand()}`);
  await page.getByTestId('create-project-form').getByRole('button', { name: 'Create project' }).click();
  await expect(page).toHaveURL(/\/settings\?project=/);
  const project = new URL(page.url()).searchParams.get('project') as string;
  const email = `target-${rand()}@example.test`;
  await (await signUpFromInvitation(page.context().browser() as Browser, await invite(page, project, 'viewer'), email)).close();
  for (let i = 0; i < 10; i++) {
    expect((await post('/api/auth/sign-in/email', { email, password: 'guess guess guess' }, `127.0.0.${30 + Math.floor(i / 2)}`)).status).toBe(401);
  }
  const locked = await post('/api/auth/sign-in/email', { email, password: PASSWORD }, '127.0.0.40');
  expect(locked.status).toBe(429);
  expect(locked.body).toMatch(/Too many failed sign-ins for this account/);
});
