/**
 * The project's clean-session sampling rate, as set in the web app and served by the
 * collector at `GET /v1/sampling`, kept fresh in the background. Pass `.rate` to
 * `new Guardtrace({ sampling: { cleanSessionRate: remote.rate } })`. Network errors keep
 * the last known rate (or `fallback`): sampling never breaks the agent.
 */
import { diag } from '@opentelemetry/api';

export interface RemoteSamplingOptions {
  /** Collector base URL (the same as the OTLP endpoint's base). */
  endpoint: string;
  apiKey: string;
  /** How often to refresh, ms. Default 60 s: a rate change in the UI reaches agents within a minute. */
  refreshMs?: number;
  /** Rate used until the first answer and while the collector is unreachable. Default 1 (keep all). */
  fallback?: number;
  /** Per-request timeout, ms. Default 5 s. */
  timeoutMs?: number;
}

export interface RemoteSamplingRate {
  /** The current rate (0..1). */
  rate: () => number;
  /** Fetches now; resolves to the rate in force afterwards. */
  refresh: () => Promise<number>;
  /** Stops the background refresh. */
  stop: () => void;
}

export function remoteSamplingRate(opts: RemoteSamplingOptions): RemoteSamplingRate {
  const url = `${opts.endpoint.replace(/\/+$/, '')}/v1/sampling`;
  let current = opts.fallback ?? 1;
  const refresh = async (): Promise<number> => {
    try {
      const res = await fetch(url, {
        headers: { Authorization: `Bearer ${opts.apiKey}`, Accept: 'application/json' },
        signal: AbortSignal.timeout(opts.timeoutMs ?? 5000),
      });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const body = (await res.json()) as { cleanSampleRate?: unknown };
      const r = body.cleanSampleRate;
      if (typeof r !== 'number' || !Number.isFinite(r) || r < 0 || r > 1) {
        throw new Error(`cleanSampleRate must be a number from 0 to 1, got ${JSON.stringify(r)}`);
      }
      current = r;
    } catch (err) {
      diag.warn(`guardtrace: could not fetch the sampling rate from ${url}; keeping ${current}`, err);
    }
    return current;
  };
  void refresh();
  const timer = setInterval(() => void refresh(), opts.refreshMs ?? 60_000);
  timer.unref();
  return { rate: () => current, refresh, stop: () => clearInterval(timer) };
}
