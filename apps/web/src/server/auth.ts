/**
 * The web app's sign-in: HTTP Basic authentication against one user and password from the
 * environment (GUARDTRACE_WEB_USER, GUARDTRACE_WEB_PASSWORD). With no password set the UI is
 * open, as it is on loopback by default. Checked for every request by src/proxy.ts and again
 * by the server actions that change settings.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** The challenge that makes a browser ask for the user and password. */
export const CHALLENGE = 'Basic realm="Guardtrace", charset="UTF-8"';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Whether an Authorization header carries the configured user and password (always true when none is set). */
export function isAuthorized(header: string | null | undefined, user: string, password: string | undefined): boolean {
  if (!password) return true;
  const m = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header ?? '');
  if (!m?.[1]) return false;
  // Compared as digests: equal lengths, and no early exit that times how much of it matched.
  return timingSafeEqual(digest(Buffer.from(m[1], 'base64').toString('utf8')), digest(`${user}:${password}`));
}

/** Whether `host` only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
