/** What the parts of the production benchmark (bench/production.ts) share. */
import os from 'node:os';

export interface Row {
  benchmark: string;
  metric: string;
  value: string;
  target: string;
  pass: boolean;
}

/** A project's key as the benchmark uses it: the key itself, its id (to revoke it) and its project. */
export interface BenchKey {
  key: string;
  keyId: string;
  projectId: string;
}

/** The 1-minute load average, to read beside each figure (the machine is shared). */
export const load = () => (os.loadavg()[0] ?? 0).toFixed(1);

/** How often each value occurs. */
export function count(xs: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
}

/** One OTLP export over HTTP (fetch: a fresh request, its own connection when needed). */
export function post(url: string, key: string, body: string | Buffer, type = 'application/json', encoding?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': type, authorization: `Bearer ${key}` };
  if (encoding) headers['content-encoding'] = encoding;
  return fetch(`${url}/v1/traces`, { method: 'POST', headers, body });
}

/** Milliseconds `f` took, with its result. */
export async function timed<T>(f: () => Promise<T>): Promise<{ r: T; ms: number }> {
  const started = performance.now();
  const r = await f();
  return { r, ms: performance.now() - started };
}
