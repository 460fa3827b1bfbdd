/** Typed reads of span attributes, shared by every convention module. */
import { createHash } from 'node:crypto';
import type { Attributes } from '../span.ts';

export function str(attrs: Attributes, key: string): string | null {
  const v = attrs[key];
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

export function num(attrs: Attributes, key: string): number | null {
  const v = attrs[key];
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

export function int(attrs: Attributes, key: string): number | null {
  const n = num(attrs, key);
  // Columns are int4: anything outside is not a count we can trust.
  return n === null || !Number.isInteger(n) || Math.abs(n) > 2_147_483_647 ? null : n;
}

export function bool(attrs: Attributes, key: string): boolean | null {
  const v = attrs[key];
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  return null;
}

/** A non-empty string attribute (callers chain alternatives with ??; no rest arrays on the hot path). */
export function text(attrs: Attributes, key: string): string | null {
  const v = str(attrs, key);
  return v === '' ? null : v;
}

/** What follows `prefix` in a span name (`execute_tool search` -> `search`), if anything. */
export function suffix(name: string, prefix: string): string | null {
  if (!name.startsWith(prefix)) return null;
  const rest = name.slice(prefix.length).trim();
  return rest === '' ? null : rest;
}

/** A span id for a row with no span of its own: the same for the same report, so a resent span adds nothing. */
export function derivedSpanId(span: { traceId: string; spanId: string }, discriminator: string): string {
  return createHash('sha256').update(`${span.traceId}/${span.spanId}/${discriminator}`).digest('hex').slice(0, 16);
}
