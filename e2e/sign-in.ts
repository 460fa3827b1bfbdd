/**
 * How the end-to-end tests sign in: the way `npm start` does, with a one-time sign-in link of
 * the first owner. Global setup saves the owner's session once (OWNER_STATE, every test's
 * default `storageState`); tests that need a fresh session or another account use these helpers.
 */
import path from 'node:path';
import { type APIRequestContext, type BrowserContext, expect, request as playwrightRequest } from '@playwright/test';

/** The owner's signed-in browser state (cookies), written by global-setup.ts. */
export const OWNER_STATE = path.join(import.meta.dirname, '.auth/owner.json');

/** Opens a one-time sign-in link in the context: its session cookie is set, and the link is used up. */
async function signInWithLink(context: BrowserContext | APIRequestContext, link: string): Promise<void> {
  const res = 'request' in context ? await context.request.get(link, { maxRedirects: 0 }) : await context.get(link, { maxRedirects: 0 });
  expect(res.status(), `sign-in link ${link}`).toBe(302);
  expect(res.headers().location ?? '').toMatch(/\/sessions$/);
}

/** Writes the owner's session to OWNER_STATE with a fresh sign-in link. */
export async function saveOwnerState(link: string): Promise<void> {
  const context = await playwrightRequest.newContext();
  try {
    await signInWithLink(context, link);
    await context.storageState({ path: OWNER_STATE });
  } finally {
    await context.dispose();
  }
}

/** The Cookie header of the owner's saved session, for raw HTTP requests. */
export async function ownerCookieHeader(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const state = JSON.parse(await readFile(OWNER_STATE, 'utf8')) as { cookies: { name: string; value: string }[] };
  return state.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
}
