/**
 * Sends a seed run to a collector: sessions generated in order, packed into OTLP/JSON export
 * requests of about `spansPerRequest` spans (a session is never split), several requests in
 * flight at once over keep-alive connections. 429 and 503 are retried after their
 * Retry-After, as an OpenTelemetry exporter does; any other refusal stops the run.
 */
import http from 'node:http';
import https from 'node:https';
import type { SpanGroup } from './otlp.ts';
import { exportRequest } from './otlp.ts';
import { type GeneratedSession, generateSession, type SeedOptions } from './session.ts';

export interface SendOptions extends SeedOptions {
  /** The collector's base URL (`/v1/traces` is added) or the full traces URL. */
  endpoint: string;
  apiKey: string;
  // 8 requests in flight: enough to keep the collector's write transactions busy on two cores.
  concurrency?: number;
  // ~500 spans a request: the OpenTelemetry batch processor's export size is 512.
  spansPerRequest?: number;
  /** Called after each acknowledged request with the totals so far. */
  onProgress?: (p: Progress) => void;
  /** Called with each session once generated (tests keep what the collector should derive). */
  onSession?: (s: GeneratedSession) => void;
}

export interface Progress {
  sessions: number;
  spans: number;
  requests: number;
  retries: number;
}

export interface SeedResult extends Progress {
  ms: number;
  /** Large sessions (~5,000 spans, one in 10,000) among those sent. */
  largeSessions: number;
}

/** The collector refused a request for good (bad key, bad payload): retrying cannot help. */
export class SeedError extends Error {}

// A refused request (429/503) is retried this many times before the run gives up.
const MAX_RETRIES = 20;

export function tracesUrl(endpoint: string): URL {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new SeedError(`--endpoint: "${endpoint}" is not a URL (expected e.g. http://127.0.0.1:4318)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SeedError(`--endpoint: expected an http(s) URL, got "${endpoint}"`);
  if (!url.pathname.endsWith('/v1/traces')) url.pathname = `${url.pathname.replace(/\/$/, '')}/v1/traces`;
  return url;
}

export async function sendSeed(opts: SendOptions): Promise<SeedResult> {
  const url = tracesUrl(opts.endpoint);
  const concurrency = opts.concurrency ?? 8;
  const perRequest = opts.spansPerRequest ?? 500;
  const client = url.protocol === 'https:' ? https : http;
  const agent = new client.Agent({ keepAlive: true, maxSockets: concurrency });
  const progress: Progress = { sessions: 0, spans: 0, requests: 0, retries: 0 };
  const t0 = performance.now();
  let next = 0;
  let largeSessions = 0;

  /** The next request's body: whole sessions until the span budget is reached. */
  const nextBatch = (): { body: string; sessions: number; spans: number } | null => {
    if (next >= opts.sessions) return null;
    const groups: SpanGroup[] = [];
    let spans = 0;
    let sessions = 0;
    while (next < opts.sessions && (sessions === 0 || spans < perRequest)) {
      const s = generateSession(opts, next++);
      opts.onSession?.(s);
      if (s.plan.large) largeSessions++;
      for (const g of s.groups) {
        groups.push(g);
        spans += g.spans.length;
      }
      sessions++;
    }
    return { body: exportRequest(groups), sessions, spans };
  };

  const post = (body: string): Promise<{ status: number; retryAfter: string | undefined; text: string }> =>
    new Promise((resolve, reject) => {
      const req = client.request(
        url,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${opts.apiKey}` },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            if (text.length < 2000) text += d;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  const worker = async (): Promise<void> => {
    for (let batch = nextBatch(); batch; batch = nextBatch()) {
      for (let attempt = 0; ; attempt++) {
        let res: Awaited<ReturnType<typeof post>>;
        try {
          res = await post(batch.body);
        } catch (err) {
          throw new SeedError(`could not reach the collector at ${url.href}: ${(err as Error).message}`);
        }
        if (res.status === 200) {
          const partial = /"rejectedSpans":"?([1-9]\d*)/.exec(res.text);
          if (partial) throw new SeedError(`the collector rejected ${partial[1]} spans of a request: ${res.text}`);
          break;
        }
        if ((res.status === 429 || res.status === 503) && attempt < MAX_RETRIES) {
          progress.retries++;
          const seconds = Number(res.retryAfter);
          await new Promise((r) => setTimeout(r, Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 5) * 1000 : 200 * (attempt + 1)));
          continue;
        }
        const hint = res.status === 401 || res.status === 403 ? ' (check --key: an API key of the project, shown once when created)' : '';
        throw new SeedError(`the collector answered ${res.status}${hint}: ${res.text.slice(0, 500)}`);
      }
      progress.sessions += batch.sessions;
      progress.spans += batch.spans;
      progress.requests++;
      opts.onProgress?.({ ...progress });
    }
  };

  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return { ...progress, ms: performance.now() - t0, largeSessions };
}
