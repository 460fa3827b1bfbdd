/**
 * "Same failure" navigation of one failure of the session, loaded when the replay shows a call
 * that failed: `GET /sessions/{id}/same-failure?project=&tool=&class=[&pointer=]`. Answers the
 * SameFailureNav (the sessions before and after this one with that failure), or 404.
 */
import { heavyRead } from '@/server/db';
import { sameFailureNav } from '@/server/queries/same-failure';
import { json, refuse, sessionScope } from '@/server/session-route';

export const dynamic = 'force-dynamic';

// Tool names, classes and pointers are short; 1,000 characters refuses junk without refusing any real one.
const MAX_CHARS = 1000;

export async function GET(request: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const q = new URL(request.url).searchParams;
  const toolName = q.get('tool') ?? '';
  const failureClass = q.get('class') ?? '';
  // Absent: any field; '' is the pointer of the whole value (RFC 6901).
  const pointer = q.get('pointer');
  for (const [name, v] of [['tool', toolName], ['class', failureClass]] as const) {
    if (!v || v.length > MAX_CHARS) return refuse(`${name}: expected 1 to ${MAX_CHARS} characters, got ${v.length}`);
  }
  if (pointer !== null && (pointer.length > MAX_CHARS || (pointer !== '' && !pointer.startsWith('/')))) {
    return refuse(`pointer: expected a JSON pointer ('' or starting with /) of at most ${MAX_CHARS} characters`);
  }
  const scope = await sessionScope(request, ctx.params);
  if (scope instanceof Response) return scope;
  const nav = await heavyRead((d) => sameFailureNav(d, scope.projectId, scope.sessionId, { toolName, failureClass, pointer }), { orPrimaryWhen: (n) => !n });
  if (!nav) return refuse(`no session ${scope.sessionId} in this project`, 404);
  return json(nav);
}
