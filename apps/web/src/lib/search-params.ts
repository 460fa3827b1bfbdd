/** What Next passes as `searchParams` once awaited. */
export type RawSearchParams = Record<string, string | string[] | undefined>;

export function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function parseProjectParam(sp: RawSearchParams): string | undefined {
  const v = first(sp.project);
  return v && UUID.test(v) ? v.toLowerCase() : undefined;
}

/** A positive integer parameter (page, step); `fallback` when missing or malformed. */
export function parsePositiveInt(sp: RawSearchParams, key: string, fallback: number): number {
  const v = Number(first(sp[key]));
  return Number.isSafeInteger(v) && v >= 1 ? v : fallback;
}

/**
 * Builds `path?query` keeping the given parameters, with overrides applied
 * (undefined removes a key). Keeps every view a shareable link.
 */
export function hrefWith(
  path: string,
  keep: Record<string, string | number | undefined>,
  overrides: Record<string, string | number | undefined> = {},
): string {
  const merged = { ...keep, ...overrides };
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(merged)) {
    if (v !== undefined && v !== '') qs.set(k, String(v));
  }
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}

/** Route params arrive percent-encoded; a malformed sequence is kept as typed instead of failing. */
export function decodeParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
