/**
 * A JSON request body of the API (datasets, replay runs) as a value: 400 when it is not JSON, or
 * when a string in it holds NUL (`\u0000`), which Postgres text cannot store (it failed the
 * request with 500: "invalid byte sequence for encoding UTF8: 0x00"). The message names where.
 */
import { CollectorError } from '../errors.ts';

export function parseJsonBody(body: Buffer): unknown {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw CollectorError.badRequest(`the body is not JSON: ${(err as Error).message}`);
  }
  const at = nulAt(value, '$');
  if (at !== null) throw CollectorError.badRequest(`${at} holds a NUL character (\\u0000), which cannot be stored: remove it`);
  return value;
}

/** The JSON path of the first string (value or key) holding NUL, else null. */
function nulAt(v: unknown, path: string): string | null {
  if (typeof v === 'string') return v.includes('\0') ? path : null;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const at = nulAt(v[i], `${path}[${i}]`);
      if (at !== null) return at;
    }
    return null;
  }
  if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k.includes('\0')) return `a key of ${path}`;
      const at = nulAt(x, `${path}.${k}`);
      if (at !== null) return at;
    }
  }
  return null;
}
