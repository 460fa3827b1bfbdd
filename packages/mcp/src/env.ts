/**
 * The one place that reads `process.env`: where the proxy sends its spans when the config file
 * names no collector. `GUARDTRACE_ENDPOINT` / `GUARDTRACE_API_KEY` (as the SDK's examples), else
 * the standard `OTEL_EXPORTER_OTLP_ENDPOINT` with the key in `OTEL_EXPORTER_OTLP_HEADERS`
 * (`authorization=Bearer gt_...`).
 */
export interface CollectorTarget {
  endpoint: string;
  apiKey: string;
}

/** Parses `OTEL_EXPORTER_OTLP_HEADERS` (`k=v,k2=v2`, values URL-encoded) for a bearer token. */
export function bearerFromHeaders(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  for (const pair of raw.split(',')) {
    const at = pair.indexOf('=');
    if (at < 0) continue;
    if (pair.slice(0, at).trim().toLowerCase() !== 'authorization') continue;
    const value = decodeURIComponent(pair.slice(at + 1).trim());
    const m = /^Bearer\s+(.+)$/i.exec(value);
    if (m) return m[1];
  }
  return undefined;
}

export function collectorFromEnv(env: NodeJS.ProcessEnv = process.env): CollectorTarget | undefined {
  const endpoint = env.GUARDTRACE_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const apiKey = env.GUARDTRACE_API_KEY || bearerFromHeaders(env.OTEL_EXPORTER_OTLP_HEADERS);
  if (!endpoint && !apiKey) return undefined;
  if (!endpoint || !apiKey) {
    const missing = endpoint ? 'an API key (GUARDTRACE_API_KEY, or OTEL_EXPORTER_OTLP_HEADERS="authorization=Bearer gt_...")' : 'an endpoint (GUARDTRACE_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT)';
    throw new Error(`guardtrace-mcp: the environment names a collector but not ${missing}`);
  }
  return { endpoint, apiKey };
}
