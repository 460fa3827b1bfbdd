/** Readiness: the database answers. 503 while it does not. Needs no sign-in and tells nothing (src/proxy.ts). */
import { checkDatabase } from '@/server/health';

export const dynamic = 'force-dynamic';

export async function GET(): Promise<Response> {
  const ok = await checkDatabase();
  return Response.json({ status: ok ? 'ready' : 'database unavailable' }, { status: ok ? 200 : 503, headers: { 'cache-control': 'no-store' } });
}
