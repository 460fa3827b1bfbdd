/** Readiness: the database answers and has this build's newest migration; 503 while not. Needs no sign-in and tells nothing secret (src/proxy.ts). */
import { checkDatabase } from '@/server/health';

export const dynamic = 'force-dynamic';

export async function GET(): Promise<Response> {
  const status = await checkDatabase();
  return Response.json({ status }, { status: status === 'ready' ? 200 : 503, headers: { 'cache-control': 'no-store' } });
}
