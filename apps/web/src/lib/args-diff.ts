/** What a retry changed in the arguments, by field path (objects flattened with dots). */
export interface ArgsDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

function flatten(value: unknown, prefix: string, out: Map<string, string>): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0 && prefix) out.set(prefix, '{}');
    for (const [k, v] of entries) flatten(v, prefix ? `${prefix}.${k}` : k, out);
    return;
  }
  out.set(prefix || '(value)', JSON.stringify(value));
}

function parse(text: string | null): Map<string, string> | null {
  if (text === null) return null;
  try {
    const out = new Map<string, string>();
    flatten(JSON.parse(text), '', out);
    return out;
  } catch {
    return null;
  }
}

/** Null when either side is missing or not JSON, or when nothing changed. */
export function diffArguments(before: string | null, after: string | null): ArgsDiff | null {
  const a = parse(before);
  const b = parse(after);
  if (!a || !b) return null;
  const diff: ArgsDiff = { added: [], removed: [], changed: [] };
  for (const [k, v] of b) {
    if (!a.has(k)) diff.added.push(k);
    else if (a.get(k) !== v) diff.changed.push(k);
  }
  for (const k of a.keys()) if (!b.has(k)) diff.removed.push(k);
  return diff.added.length || diff.removed.length || diff.changed.length ? diff : null;
}
