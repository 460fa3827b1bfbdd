/**
 * Runs before every request (pages, server actions, assets): when GUARDTRACE_WEB_PASSWORD is
 * set, a request without the right user and password gets 401 and the browser asks for them.
 * The health checks are the exception: supervisors and load balancers have no password, and
 * the answers say nothing but ok/ready.
 */
import { type NextRequest, NextResponse } from 'next/server';
import { authEnv } from './env';
import { CHALLENGE, isAuthorized } from './server/auth';

const HEALTH_CHECKS = new Set(['/healthz', '/readyz']);

export function proxy(request: NextRequest): NextResponse {
  if (HEALTH_CHECKS.has(request.nextUrl.pathname)) return NextResponse.next();
  const auth = authEnv();
  if (isAuthorized(request.headers.get('authorization'), auth.GUARDTRACE_WEB_USER, auth.GUARDTRACE_WEB_PASSWORD)) {
    return NextResponse.next();
  }
  return new NextResponse('Guardtrace asks for a user name and password (GUARDTRACE_WEB_USER, GUARDTRACE_WEB_PASSWORD).\n', {
    status: 401,
    headers: { 'www-authenticate': CHALLENGE, 'content-type': 'text/plain; charset=utf-8' },
  });
}
