/**
 * Runs before every request (pages, server actions, assets):
 * - every response carries the security headers, and pages a Content-Security-Policy with a
 *   fresh nonce, which Next reads from the request's CSP header and puts on its scripts;
 * - a request without a session cookie goes to the sign-in page (a page) or gets 401 (anything
 *   else). This is the quick gate only: pages, actions and route handlers check the session
 *   in Postgres and the account's role (src/server/accounts.ts). Health checks, the sign-in,
 *   sign-up and invitation pages and better-auth's own endpoints are open.
 */
import { getSessionCookie } from 'better-auth/cookies';
import { type NextRequest, NextResponse } from 'next/server';
import { contentSecurityPolicy, NO_CONTENT_CSP, SECURITY_HEADERS } from './server/http-security';

const HEALTH_CHECKS = new Set(['/healthz', '/readyz']);
const OPEN = [/^\/sign-(in|up)$/, /^\/invite\/[^/]+$/, /^\/api\/auth\//, /^\/_next\//, /^\/icon\.svg$/, /^\/favicon\.ico$/];

function secured(response: NextResponse, csp: string): NextResponse {
  response.headers.set('content-security-policy', csp);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.headers.set(name, value);
  return response;
}

export function proxy(request: NextRequest): NextResponse {
  const { pathname } = request.nextUrl;
  if (HEALTH_CHECKS.has(pathname)) return secured(NextResponse.next(), NO_CONTENT_CSP);
  if (!OPEN.some((re) => re.test(pathname)) && !getSessionCookie(request)) {
    const isPage = request.method === 'GET' && !request.headers.has('next-action') && !pathname.startsWith('/api/');
    if (isPage) {
      const to = new URL('/sign-in', request.url);
      if (pathname !== '/') to.searchParams.set('next', `${pathname}${request.nextUrl.search}`);
      return secured(NextResponse.redirect(to, 303), NO_CONTENT_CSP);
    }
    const refused = new NextResponse('Sign in first.\n', { status: 401, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    return secured(refused, NO_CONTENT_CSP);
  }
  const nonce = btoa(crypto.randomUUID());
  const csp = contentSecurityPolicy(nonce, process.env.NODE_ENV === 'development');
  const headers = new Headers(request.headers);
  headers.set('content-security-policy', csp);
  return secured(NextResponse.next({ request: { headers } }), csp);
}
