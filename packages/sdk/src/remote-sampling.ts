/**
 * The project's clean-session sampling rate, as set in the web app and served by the
 * collector at `GET /v1/sampling`, kept fresh in the background. Pass `.rate` to
 * `new Guardtrace({ sampling: { cleanSessionRate: remote.rate } })`. Network errors keep
 * the last known rate (or `fallback`): sampling never breaks the agent.
 */
import { diag } from '@opentelemetry/api';

/** The code of the process warning when the rate cannot be read (`process.on('warning')`), once per cause. */
const SAMPLING_WARNING_CODE = 'GUARDTRACE_SAMPLING_RATE';

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

/** Why the rate could not be read, for the person who set the SDK up; `key` tells causes apart (one warning each). */
function failureCause(err: unknown): { key: string; text: string } {
  const status = (err as { status?: unknown }).status;
  if (status === 401 || status === 403) {
    return { key: 'auth', text: `HTTP ${status}: the collector did not accept the API key (missing, mistyped or revoked)` };
  }
  if (status === 404) return { key: 'not_found', text: "HTTP 404: endpoint is the collector's base URL (e.g. http://localhost:4318)" };
  if (typeof status === 'number') return { key: `http_${status}`, text: `HTTP ${status}` };
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return { key: `net_${cause.code}`, text: `${String(cause.message ?? cause.code)}: is the collector running at this address?` };
  const message = err instanceof Error ? err.message : String(err);
  return { key: err instanceof Error ? err.name : 'other', text: message };
}

export function remoteSamplingRate(opts: RemoteSamplingOptions): RemoteSamplingRate {
  // the collector's base URL; an endpoint given as the OTLP traces URL names the same collector
  const base = opts.endpoint.replace(/\/+$/, '').replace(/\/v1\/traces$/, '');
  const url = `${base}/v1/sampling`;
  let current = opts.fallback ?? 1;
  const warned = new Set<string>();
  const refresh = async (): Promise<number> => {
    try {
      const res = await fetch(url, {
        headers: { Authorization: `Bearer ${opts.apiKey}`, Accept: 'application/json' },
        signal: AbortSignal.timeout(opts.timeoutMs ?? 5000),
      });
      if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status}`), { status: res.status });
      const body = (await res.json()) as { cleanSampleRate?: unknown };
      const r = body.cleanSampleRate;
      if (typeof r !== 'number' || !Number.isFinite(r) || r < 0 || r > 1) {
        throw new Error(`cleanSampleRate must be a number from 0 to 1, got ${JSON.stringify(r)}`);
      }
      current = r;
    } catch (err) {
      diag.warn(`guardtrace: could not fetch the sampling rate from ${url}; keeping ${current}`, err);
      // the diagnostic logger is off unless the host set one: a wrong key or address would
      // silently keep every clean session; said once per cause as a process warning
      const cause = failureCause(err);
      if (!warned.has(cause.key)) {
        warned.add(cause.key);
        globalThis.process?.emitWarning?.(
          `guardtrace: could not read the project's sampling rate from ${url}: ${cause.text}; clean sessions are kept at ${current} until it can`,
          { code: SAMPLING_WARNING_CODE },
        );
      }
    }
    return current;
  };
  void refresh();
  const timer = setInterval(() => void refresh(), opts.refreshMs ?? 60_000);
  timer.unref();
  return { rate: () => current, refresh, stop: () => clearInterval(timer) };
}
