/**
 * The seed's large session (`pnpm seed`: one session in 10,000 is a ~5,000-span Guardtrace SDK
 * session with every failure class, repairs and escalations), sent through the system's collector
 * as `pnpm seed` sends it. The same seed gives the same session and ids, so sending it again adds
 * nothing: tests and benchmarks that share a system can each ask for it.
 */
import { exportRequest, generateSession } from '@guardtrace/seed';

// Seed 1's 50,000-session run (`pnpm bench web-scale`'s data): one session in 10,000 is long
// (tools/seed/src/session.ts); the first of them that is really long (~5,000 spans or more) is used.
const OPTS = { seed: 1, sessions: 50_000, untilMs: Date.parse('2026-12-01T00:00:00.000Z'), days: 30 };
const LONG_INDEXES = [9_999, 19_999, 29_999, 39_999, 49_999];
const LARGE = 3000;

export interface SeededSession {
  id: string;
  spans: number;
}

/** Sends the seed's large session to `collectorUrl` (OTLP/HTTP JSON) and resolves once the collector stored it. */
export async function sendLargeSeededSession(collectorUrl: string, apiKey: string): Promise<SeededSession> {
  const count = (g: ReturnType<typeof generateSession>) => g.groups.reduce((n, x) => n + x.spans.length, 0);
  const s = LONG_INDEXES.map((i) => generateSession(OPTS, i)).find((g) => count(g) >= LARGE);
  if (!s) throw new Error(`none of seed 1's long sessions (${LONG_INDEXES.join(', ')}) has ${LARGE} spans: see tools/seed/src/session.ts`);
  const spans = count(s);
  const body = exportRequest(s.groups);
  // A busy collector may refuse for a while (429/503): it asks to be retried.
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${collectorUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body,
    });
    const text = await res.text();
    if (res.ok) {
      if (/"rejectedSpans":"?[1-9]/.test(text)) throw new Error(`the collector rejected spans of the seeded session: ${text}`);
      return { id: s.plan.sessionId, spans };
    }
    if ((res.status !== 429 && res.status !== 503) || attempt >= 30) throw new Error(`collector: HTTP ${res.status} ${text.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}
