import 'server-only';
/**
 * What every route under `/sessions/{id}/…` checks first: a signed-in account (src/proxy.ts
 * only saw a cookie), its project from `?project=` (else its oldest), and a session id Postgres
 * can hold. Answers are JSON; a refusal says what was wrong.
 */
import { decodeParam, parseProjectParam } from '@/lib/search-params';
import { currentAccount } from '@/server/accounts';
import { db } from '@/server/db';
import { resolveProject } from '@/server/queries/projects';

export interface SessionScope {
  projectId: string;
  sessionId: string;
  params: URLSearchParams;
}

/** A JSON answer nobody caches: the data is private to the account and changes as spans arrive. */
export function json(body: unknown, status = 200): Response {
  return Response.json(body, { status, headers: { 'cache-control': 'no-store' } });
}

export function refuse(message: string, status = 400): Response {
  return json({ error: message }, status);
}

/** The route's session and project, or the answer refusing the request. */
export async function sessionScope(request: Request, params: Promise<{ id: string }>): Promise<SessionScope | Response> {
  const sessionId = decodeParam((await params).id);
  const url = new URL(request.url);
  const sp = Object.fromEntries(url.searchParams);
  if (url.searchParams.has('project') && !parseProjectParam(sp)) return refuse('project: expected a project uuid');
  // Postgres text holds no NUL: no session has one.
  if (sessionId.includes('\0')) return refuse('session id: must not contain NUL', 404);
  const account = await currentAccount();
  if (!account) return refuse('Sign in first.', 401);
  const selection = await resolveProject(db(), account.id, parseProjectParam(sp));
  if (!selection.current) return refuse('project: no such project', 404);
  return { projectId: selection.current.id, sessionId, params: url.searchParams };
}
