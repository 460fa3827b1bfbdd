/**
 * Accounts for e2e tests that need more than the signed-in owner: invitation links, accounts
 * signed up from them or signed in with their password, and a recorded tool call sent with a
 * project's key.
 */
import { randomBytes } from 'node:crypto';
import { type Browser, type BrowserContext, expect, type Page } from '@playwright/test';

export const PASSWORD = 'e2e correct horse battery staple';
export const rand = () => randomBytes(4).toString('hex');
export const SIGNED_OUT = { cookies: [], origins: [] };

/** As the owner (the default signed-in state): a new invitation link into `project` with `role`. */
export async function invite(page: Page, project: string, role: 'viewer' | 'member' | 'owner'): Promise<string> {
  await page.goto(`/settings?project=${project}`);
  await page.getByTestId('invite-form').getByLabel('Invite as').selectOption(role);
  await page.getByTestId('invite-form').getByRole('button', { name: 'Create invitation link' }).click();
  const link = (await page.getByTestId('invitation-link').textContent()) ?? '';
  expect(link).toMatch(/\/invite\/[\w-]{20,}$/);
  return link;
}

/** A new account made from an invitation link, joined to its project: its signed-in browser context. */
export async function signUpFromInvitation(browser: Browser, link: string, email: string): Promise<BrowserContext> {
  const context = await browser.newContext({ storageState: SIGNED_OUT });
  const page = await context.newPage();
  await page.goto(link);
  await page.getByRole('link', { name: 'Create an account' }).click();
  const form = page.getByTestId('sign-up-form');
  await form.getByLabel('Name').fill('E2E person');
  await form.getByLabel('Email').fill(email);
  await form.getByLabel('Password').fill(PASSWORD);
  await form.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('button', { name: 'Join project' }).click();
  await expect(page).toHaveURL(/\/sessions\?project=/);
  await page.close();
  return context;
}

export async function signInWithPassword(browser: Browser, email: string): Promise<BrowserContext> {
  const context = await browser.newContext({ storageState: SIGNED_OUT });
  const page = await context.newPage();
  await page.goto('/sessions');
  await expect(page).toHaveURL(/\/sign-in/);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/sessions/);
  await page.close();
  return context;
}

/** One session with a tool call and its attempt, sent to the collector with `key`; the response status. */
export async function sendToolCall(key: string, sessionId: string): Promise<number> {
  const traceId = randomBytes(16).toString('hex');
  const t = BigInt(Date.UTC(2026, 10, 30, 12)) * 1_000_000n;
  const attrs = (a: Record<string, string | number>) =>
    Object.entries({ 'gen_ai.conversation.id': sessionId, ...a }).map(([k, v]) => ({ key: k, value: typeof v === 'number' ? { intValue: v } : { stringValue: v } }));
  const call = randomBytes(8).toString('hex');
  const spans = [
    { traceId, spanId: call, name: 'execute_tool read_file', kind: 1, startTimeUnixNano: String(t), endTimeUnixNano: String(t + 3_000_000n), attributes: attrs({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file', 'guardtrace.outcome': 'success', 'guardtrace.attempt': 1 }), status: { code: 0 } },
    { traceId, spanId: randomBytes(8).toString('hex'), parentSpanId: call, name: 'guardtrace.attempt', kind: 1, startTimeUnixNano: String(t + 1_000_000n), endTimeUnixNano: String(t + 2_000_000n), attributes: attrs({ 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 1, 'gen_ai.tool.call.arguments': '{"path":"a.ts"}', 'guardtrace.outcome': 'success', 'guardtrace.decision': 'proceed' }), status: { code: 0 } },
  ];
  const res = await fetch(`${process.env.GUARDTRACE_COLLECTOR_URL}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'guardtrace' }, spans }] }] }),
  });
  await res.arrayBuffer();
  return res.status;
}
