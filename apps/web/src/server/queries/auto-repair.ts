/**
 * A repair done in code (SDK auto-repair, decision `auto_repair`): what the replay shows of it.
 * The failed attempt's guard names the "before" pointers (guard_checks.failed_pointers), the
 * attempt the "after" pointers into the corrected call's arguments (attempts.auto_repair_pointers),
 * and the corrected call is the same call's next attempt: no model turn, so no repair tokens.
 */
import type { AttemptDto, AutoRepairDto } from './session-types.ts';

/** The stored facts of an auto-repaired attempt (attempts.auto_repair_*). */
export interface AutoRepairRow {
  kind: string | null;
  pointers: string[];
  tool: string | null;
}

/** Unescaped last reference token of a JSON pointer (`/a/b~1c` → `b/c`): the argument's name. */
function fieldName(pointer: string): string {
  const token = pointer.slice(pointer.lastIndexOf('/') + 1);
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** The value at `pointer` in an attempt's whole JSON arguments, as text; null when cut or absent. */
function valueAt(a: AttemptDto | undefined, pointer: string): string | null {
  const args = a?.arguments;
  if (!args || args.text.length < args.chars) return null;
  let v: unknown;
  try {
    v = JSON.parse(args.text);
  } catch {
    return null;
  }
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, token)) return null;
    v = (v as Record<string, unknown>)[token];
  }
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * What the replay says of attempt `a`, repaired in code, corrected by `next` (the same call's next
 * attempt): the kind, what it was → what it became, and the pointers before and after.
 */
export function autoRepairOf(a: AttemptDto, row: AutoRepairRow, next: AttemptDto | undefined): AutoRepairDto | null {
  if (a.decision !== 'auto_repair' || row.kind === null) return null;
  const before = [...new Set(a.guardChecks.filter((g) => g.verdict !== 'pass').flatMap((g) => g.failedPointers))];
  const after = row.pointers;
  let from: string | null = null;
  let to: string | null = null;
  if (row.kind === 'tool_name') {
    from = a.toolName;
    to = row.tool ?? next?.toolName ?? null;
  } else if (row.kind === 'argument_name') {
    const gone = before.filter((p) => !after.includes(p));
    from = gone.length ? gone.map(fieldName).join(', ') : null;
    to = after.length ? after.map(fieldName).join(', ') : null;
  } else if (after.length === 1) {
    const p = after[0] as string;
    from = valueAt(a, p);
    to = valueAt(next, p);
  }
  return { kind: row.kind, from, to, before, after, tool: row.tool, correctedAttempt: next?.number ?? null };
}
