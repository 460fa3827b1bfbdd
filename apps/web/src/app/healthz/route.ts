/** Liveness for process supervisors and load balancers: the server answers. Needs no sign-in (src/proxy.ts). */
export const dynamic = 'force-dynamic';

export function GET(): Response {
  return Response.json({ status: 'ok' }, { headers: { 'cache-control': 'no-store' } });
}
