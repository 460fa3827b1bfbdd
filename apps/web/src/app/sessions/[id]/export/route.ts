/**
 * `GET /sessions/{id}/export?project=…`: the session's raw spans as an OTLP/JSON file (the
 * replay page's "Export OTLP JSON" link). POST it to a collector's /v1/traces with another
 * project's key to import the session there (docs/collector.md, "Export and import").
 * `&part=logs`: its GenAI events (/v1/logs) as an OTLP/JSON logs file, to POST to /v1/logs beside it.
 */
import { exportFileName, exportLogsFileName, MAX_EXPORT_SPANS } from '@guardtrace/db/export';
import { decodeParam, parseProjectParam } from '@/lib/search-params';
import { currentAccount } from '@/server/accounts';
import { db, heavyRead } from '@/server/db';
import { exportSession, exportSessionEvents } from '@/server/queries/export';
import { resolveProject } from '@/server/queries/projects';

export const dynamic = 'force-dynamic';

const text = (status: number, message: string) =>
  new Response(message, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } });

export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  // Checked here too (src/proxy.ts only saw a cookie): it hands out a session's data whole.
  const account = await currentAccount();
  if (!account) return text(401, 'Sign in first.');
  const id = decodeParam((await params).id);
  const sp = Object.fromEntries(new URL(request.url).searchParams);
  const selection = await resolveProject(db(), account.id, parseProjectParam(sp));
  const project = selection.current?.id;
  // Postgres text holds no NUL: no session has one.
  if (!project || selection.unknownRequested || id.includes('\0')) return text(404, 'No such session in this project.');
  const logs = sp.part === 'logs';
  // A heavy read; a session not on a lagging read replica yet is looked up on the primary.
  const result = logs
    ? await heavyRead((d) => exportSessionEvents(d, project, id), { orPrimaryWhen: (r) => !r.ok && r.reason !== 'too-large' })
    : await heavyRead((d) => exportSession(d, project, id), { orPrimaryWhen: (r) => !r.ok && r.reason !== 'too-large' });
  if (!result.ok) {
    return result.reason === 'too-large'
      ? text(413, `The session has more than ${MAX_EXPORT_SPANS} ${logs ? 'GenAI events' : 'spans'}: too many to export in one file.`)
      : text(404, 'No such session in this project.');
  }
  return new Response(JSON.stringify(result.document), {
    headers: {
      'content-type': 'application/json',
      'content-disposition': `attachment; filename="${logs ? exportLogsFileName(id) : exportFileName(id)}"`,
      'cache-control': 'no-store',
    },
  });
}
