/**
 * Runs before every request (pages, server actions, assets):
 * - every response carries the security headers, and pages a Content-Security-Policy with a
 *   fresh nonce, which Next reads from the request's CSP header and puts on its scripts;
 * - when GUARDTRACE_WEB_PASSWORD is set, a request without the right user and password gets
 *   401 and the browser asks for them. The health checks are the exception: supervisors and
 *   load balancers have no password, and the answers say nothing but ok/ready.
 */
import { type NextRequest, NextResponse } from 'next/server';
import { authEnv } from './env';
import { CHALLENGE, isAuthorized } from './server/auth';
import { contentSecurityPolicy, NO_CONTENT_CSP, SECURITY_HEADERS } from './server/http-security';

const HEALTH_CHECKS = new Set(['/healthz', '/readyz']);

function secured(response: NextResponse, csp: string): NextResponse {
  response.headers.set('content-security-policy', csp);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.headers.set(name, value);
  return response;
}

export function proxy(request: NextRequest): NextResponse {
  if (HEALTH_CHECKS.has(request.nextUrl.pathname)) return secured(NextResponse.next(), NO_CONTENT_CSP);
  const auth = authEnv();
  if (!isAuthorized(request.headers.get('authorization'), auth.GUARDTRACE_WEB_USER, auth.GUARDTRACE_WEB_PASSWORD)) {
    const refused = new NextResponse('Guardtrace asks for a user name and password (GUARDTRACE_WEB_USER, GUARDTRACE_WEB_PASSWORD).\n', {
      status: 401,
      headers: { 'www-authenticate': CHALLENGE, 'content-type': 'text/plain; charset=utf-8' },
    });
    return secured(refused, NO_CONTENT_CSP);
  }
  const nonce = btoa(crypto.randomUUID());
  const csp = contentSecurityPolicy(nonce, process.env.NODE_ENV === 'development');
  const headers = new Headers(request.headers);
  headers.set('content-security-policy', csp);
  return secured(NextResponse.next({ request: { headers } }), csp);
}
