/**
 * Requests no page can serve get a clear 400, 404 or 405 (Next answered them with a bare 500),
 * and every response carries the security headers; pages carry a Content-Security-Policy with
 * a nonce that Next's own scripts bear, so the app still runs under it.
 */
import http from 'node:http';
import { expect, test } from '@playwright/test';
import { ownerCookieHeader } from '../sign-in.ts';

const web = () => process.env.GUARDTRACE_WEB_URL as string;

/** A raw request, signed in as the owner: fetch would normalise the URL or refuse the method. */
async function raw(method: string, pathAndQuery: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const { hostname, port } = new URL(web());
  const cookie = await ownerCookieHeader();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path: pathAndQuery, headers: { cookie } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function expectSecurityHeaders(headers: http.IncomingHttpHeaders) {
  expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('same-origin');
}

for (const [what, url, status] of [
  ['a NUL byte in a session id', '/sessions/%00', 400],
  ['a NUL byte in a filter', '/sessions?outcome=%00', 400],
  ['broken percent-encoding in the path', '/sessions/%E0%A4%A', 400],
  ['a lone percent sign in the path', '/sessions/%', 400],
  ['a session that does not exist', '/sessions/no-such-session', 404],
] as const) {
  test(`${what} answers ${status}, never 500`, async () => {
    const res = await raw('GET', url);
    expect(res.status).toBe(status);
    expectSecurityHeaders(res.headers);
  });
}

test('an unknown session says what removes stored sessions (retention, sampling), not only that it does not exist', async () => {
  const res = await raw('GET', '/sessions/sess_deleted_by_retention');
  expect(res.status).toBe(404);
  expect(res.body).toContain('Session not stored');
  expect(res.body).toMatch(/older than the project(?:'|&#x27;|&apos;)s retention are deleted/);
});

for (const method of ['TRACE', 'DELETE', 'PUT', 'PATCH']) {
  test(`${method} answers 405 with Allow`, async () => {
    const res = await raw(method, '/sessions');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expectSecurityHeaders(res.headers);
  });
}

test('pages carry a nonce CSP that Next’s scripts bear, and the page still runs', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  const response = await page.goto('/sessions');
  expect(response?.status()).toBe(200);
  const csp = (await response?.headerValue('content-security-policy')) ?? '';
  const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
  expect(nonce, csp).toBeTruthy();
  expectSecurityHeaders(await response!.allHeaders());
  // Next's inline scripts bear this response's nonce; a second load gets a new one.
  const html = await response!.text();
  expect(html).toContain(`nonce="${nonce}"`);
  const again = await raw('GET', '/sessions');
  expect(again.headers['content-security-policy']).not.toContain(nonce);
  // Client-side code runs under the policy: a click on a row navigates without a full load.
  await page.locator('table tbody tr').first().click();
  await expect(page).toHaveURL(/\/sessions\/[^/?]+/);
  expect(violations).toEqual([]);
});
