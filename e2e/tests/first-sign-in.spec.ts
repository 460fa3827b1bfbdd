/**
 * A new install's owner can always get in: the sign-in page of an install whose owner has no
 * password says how to get a new one-time link, `pnpm sign-in-link` (the real command, against
 * this suite's database, as a deployment runs it with DATABASE_URL and GUARDTRACE_BASE_URL)
 * prints one that signs in, and any account sets (then changes) a password from the account
 * menu and signs in with it in a fresh browser.
 */
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import AxeBuilder from '@axe-core/playwright';
import { createPrisma, createSignInLink, type PrismaClient, signInLinkPath } from '@guardtrace/db';
import { type Browser, type BrowserContext, expect, type Page, test } from '@playwright/test';
import { ROOT } from '../../scripts/system.ts';

const web = () => process.env.GUARDTRACE_WEB_URL as string;
const SIGNED_OUT = { cookies: [], origins: [] };
const rand = () => randomBytes(4).toString('hex');

// Sign-ins hash with argon2id and the command starts tsx: slow on the shared two-core machine.
test.describe.configure({ timeout: 180_000 });

let prisma: PrismaClient;
test.beforeAll(() => {
  prisma = createPrisma(process.env.GUARDTRACE_DATABASE_URL as string, { max: 2 });
});
test.afterAll(async () => {
  await prisma?.$disconnect();
});

/** An account with no password, as an invitation-less sign-in link or `npm start` makes them. */
async function linkOnlyAccount(): Promise<{ id: string; email: string }> {
  const email = `first-${rand()}@example.test`;
  return prisma.authUser.create({ data: { id: randomUUID(), name: 'first', email, emailVerified: true }, select: { id: true, email: true } });
}

/** Runs `pnpm sign-in-link [args]` from the repository root against the suite's system. */
async function signInLinkCommand(args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)('pnpm', ['sign-in-link', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: process.env.GUARDTRACE_DATABASE_URL, GUARDTRACE_BASE_URL: web() },
    timeout: 60_000,
  });
  return stdout;
}

/** Blocking (serious, critical) WCAG 2.1 A/AA violations on the page, as a11y.spec.ts counts them. */
async function blockingViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
}

async function signInWithPassword(browser: Browser, email: string, password: string): Promise<BrowserContext> {
  const context = await browser.newContext({ storageState: SIGNED_OUT });
  const page = await context.newPage();
  await page.goto('/sessions');
  await expect(page).toHaveURL(/\/sign-in/);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/sessions/);
  await expect(page.getByTestId('account-menu')).toContainText(email);
  await page.close();
  return context;
}

test('the sign-in page of an install whose owner has no password says how to get a new sign-in link', async ({ browser }) => {
  // The suite's install: `npm start`'s owner, signed in by link only.
  const owner = await prisma.authUser.findUniqueOrThrow({ where: { email: process.env.GUARDTRACE_OWNER_EMAIL as string }, include: { accounts: true } });
  expect(owner.accounts.filter((a) => a.password)).toEqual([]);
  const anon = await browser.newContext({ storageState: SIGNED_OUT });
  const page = await anon.newPage();
  await page.goto('/sessions');
  await expect(page).toHaveURL(/\/sign-in/);
  const help = page.getByTestId('sign-in-link-help');
  await expect(help).toBeVisible();
  // The command for npm start's embedded database, and the one for a deployment on its own Postgres.
  await expect(help).toContainText('Started with npm start: npm run sign-in-link');
  await expect(help).toContainText('On your own Postgres: DATABASE_URL=postgres://… GUARDTRACE_BASE_URL=https://… pnpm sign-in-link');
  await expect(help).toContainText('set a password from the account menu');
  // The form is still there, for everyone who has a password.
  await expect(page.getByTestId('sign-in-form')).toBeVisible();
  expect(await blockingViolations(page)).toEqual([]);
  await anon.close();
});

test('the sign-in-link command prints a one-time link that signs in, for the owner or a given email', async ({ browser }) => {
  const person = await linkOnlyAccount();
  const out = await signInLinkCommand(['--email', person.email.toUpperCase()]);
  expect(out).toContain(`Sign in as ${person.email}, once, within 30 minutes:`);
  const link = out.match(/https?:\/\/\S+\/api\/auth\/sign-in\/link\?token=\S+/)?.[0] ?? '';
  expect(link.startsWith(`${web()}/api/auth/sign-in/link?token=`)).toBe(true);

  const context = await browser.newContext({ storageState: SIGNED_OUT });
  const page = await context.newPage();
  await page.goto(link);
  await expect(page).toHaveURL(/\/sessions/);
  await expect(page.getByTestId('account-menu')).toContainText(person.email);
  // Once only.
  const again = await browser.newContext({ storageState: SIGNED_OUT });
  const second = await again.newPage();
  await second.goto(link);
  await expect(second).toHaveURL(/\/sign-in\?error=link/);
  await again.close();
  await context.close();

  // Without --email: the install's owner.
  const ownerOut = await signInLinkCommand([]);
  expect(ownerOut).toContain(`Sign in as ${process.env.GUARDTRACE_OWNER_EMAIL}, once`);
  const ownerLink = ownerOut.match(/https?:\/\/\S+\/api\/auth\/sign-in\/link\?token=\S+/)?.[0] ?? '';
  const res = await fetch(ownerLink, { redirect: 'manual' });
  expect(res.status).toBe(302);
  expect(res.headers.get('location')).toMatch(/\/sessions$/);

  // An email no account has: a clear refusal, exit status 1, and nothing made.
  const unknown = `nobody-${rand()}@example.test`;
  await expect(signInLinkCommand(['--email', unknown])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining(`No account has the email "${unknown}"`) });
  expect(await prisma.authUser.count({ where: { email: unknown } })).toBe(0);
});

test('an account signed in by link sets a password from the account menu, signs in with it elsewhere, and changes it', async ({ browser }) => {
  const person = await linkOnlyAccount();
  const context = await browser.newContext({ storageState: SIGNED_OUT });
  const page = await context.newPage();
  await page.goto(`${web()}${signInLinkPath((await createSignInLink(prisma, person.id)).token)}`);
  await expect(page).toHaveURL(/\/sessions/);

  await page.getByTestId('account-menu').locator('summary').click();
  await page.getByTestId('account-menu').getByRole('link', { name: 'Password' }).click();
  await expect(page).toHaveURL(/\/account/);
  await expect(page.getByTestId('password-state')).toContainText('You have no password yet');
  expect(await blockingViolations(page)).toEqual([]);
  const form = page.getByTestId('password-form');
  // Refusals first: nothing is saved.
  await form.getByLabel('New password', { exact: true }).fill('first password one');
  await form.getByLabel('New password again').fill('first password two');
  await form.getByRole('button', { name: 'Set password' }).click();
  await expect(form.getByRole('alert')).toHaveText('The two new passwords differ: type the same one twice.');
  expect(await prisma.authAccount.count({ where: { userId: person.id, password: { not: null } } })).toBe(0);

  const first = `set from the menu ${rand()}`;
  await form.getByLabel('New password', { exact: true }).fill(first);
  await form.getByLabel('New password again').fill(first);
  await form.getByRole('button', { name: 'Set password' }).click();
  await expect(form.getByRole('status')).toHaveText(`Password saved: sign in as ${person.email} with it, in any browser.`);
  // Hashed as sign-up hashes (argon2id, the app's parameters), never stored as typed.
  const stored = await prisma.authAccount.findFirstOrThrow({ where: { userId: person.id, providerId: 'credential' }, select: { password: true } });
  expect(stored.password).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);

  // Another browser, with the password: signed in.
  const elsewhere = await signInWithPassword(browser, person.email, first);
  await elsewhere.close();

  // Changing it needs the current one.
  await page.reload();
  await expect(page.getByTestId('password-state')).toContainText('You sign in with your email and password.');
  const second = `changed from the menu ${rand()}`;
  await form.getByLabel('Current password').fill('not the password at all');
  await form.getByLabel('New password', { exact: true }).fill(second);
  await form.getByLabel('New password again').fill(second);
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByRole('alert')).toHaveText('The current password is not right.');
  await form.getByLabel('Current password').fill(first);
  await form.getByLabel('New password', { exact: true }).fill(second);
  await form.getByLabel('New password again').fill(second);
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByRole('status')).toHaveText(`Password saved: sign in as ${person.email} with it, in any browser.`);
  const changed = await signInWithPassword(browser, person.email, second);
  await changed.close();

  // Guessing the current password from a signed-in browser has the account's budget of sign-in
  // failures (10 in 15 minutes): then even the right one is refused for the rest of the window.
  const storedHash = async () => (await prisma.authAccount.findFirstOrThrow({ where: { userId: person.id, providerId: 'credential' } })).password;
  const kept = await storedHash();
  const counted = () => prisma.authRateLimit.findUnique({ where: { key: `account|${person.email}` } }).then((r) => r?.count ?? 0);
  const tryChange = async (currentPassword: string) => {
    await form.getByLabel('Current password').fill(currentPassword);
    await form.getByLabel('New password', { exact: true }).fill(first);
    await form.getByLabel('New password again').fill(first);
    await form.getByRole('button', { name: 'Change password' }).click();
  };
  for (let i = 1; i <= 10; i++) {
    await tryChange(`wrong guess number ${i}`);
    await expect.poll(counted).toBe(i);
    // The server counted it; the form resets its fields when the answer reaches the page, so the
    // next guess is typed only once the button is back (typed earlier, the reset would empty it).
    await expect(form.getByRole('button', { name: 'Change password' })).toBeEnabled();
  }
  await tryChange(second);
  await expect(form.getByRole('alert')).toHaveText(/^Too many wrong passwords for this account: try again in 15 minutes\.$/);
  expect(await storedHash()).toBe(kept);
  await context.close();
});
