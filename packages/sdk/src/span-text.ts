import { canonicalJson } from './idempotency.ts';

const MAX_ATTR_CHARS = 8_000;

/** JSON text for span attributes (native stringify: fast; falls back for cycles and BigInt). */
export function jsonText(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return canonicalJson(v);
  }
}

/** Cuts a span attribute's text to a size every backend takes. */
export const clip = (s: string): string => (s.length > MAX_ATTR_CHARS ? `${s.slice(0, MAX_ATTR_CHARS)}…` : s);
