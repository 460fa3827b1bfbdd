import { listAudit } from '@guardtrace/db';
import { AccessDenied, deniedResponse, projectAccess } from '@/server/accounts';
import { db } from '@/server/db';

/**
 * GET /settings/audit/export?project=<id>: the project's audit log as JSON (newest first, up
 * to 500 entries), for owners and members. Signed out 401, not a member 404, a viewer 403.
 */
export async function GET(request: Request): Promise<Response> {
  const project = new URL(request.url).searchParams.get('project') ?? '';
  try {
    await projectAccess(project, 'readAudit');
  } catch (err) {
    if (err instanceof AccessDenied) return deniedResponse(err);
    throw err;
  }
  const entries = await listAudit(db(), project, { limit: 500 });
  return Response.json(
    { project, entries: entries.map((e) => ({ ...e, at: e.at.toISOString() })) },
    { headers: { 'content-disposition': `attachment; filename="guardtrace-audit-${project}.json"`, 'cache-control': 'no-store' } },
  );
}
