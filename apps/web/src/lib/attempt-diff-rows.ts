/**
 * The rows of the replay's argument diff between two attempts of a call: pure, so the component
 * (attempt-diff.tsx) only draws them.
 *
 * One convention for paths: a path is always a JSON pointer (RFC 6901) into the attempt's
 * arguments, as guards record the fields they object to (`guard_checks.failed_pointers`) and as
 * the feedback names them: `/filepath`, never `/arguments/filepath`. The tool the attempt named
 * is not an argument: when it changed, or the earlier attempt failed for naming it (unknown
 * tool), it is a row of its own, the "tool" field, above the argument paths.
 */
import { diffJson, type JsonChange, type PointerOutcome, type PointerVerdict, pointerVerdicts, related, valueAt } from './json-diff';

/** One attempt of a tool call, as the diff needs it. */
export interface DiffAttempt {
  /** 1-based attempt number. */
  attempt: number;
  /** The tool this attempt named. */
  tool: string;
  /** The arguments as a value (parsed JSON; text that is not JSON stays a string). */
  args: unknown;
  /** JSON pointers into `args` of the fields this attempt's failed checks objected to. */
  failedPointers: string[];
  /** True when the attempt failed for the tool it named (unknown tool). */
  toolFailed: boolean;
  failureClass: string | null;
  /** True when every check passed (the attempt ran, or succeeded). */
  passed: boolean;
}

export type DiffMode = 'previous' | 'pair' | 'first-final';

interface Side {
  present: boolean;
  value: unknown;
}

/** A row: the tool row (`field: 'tool'`) or an argument path (`field: 'argument'`, with its pointer). */
export interface DiffRow {
  field: 'tool' | 'argument';
  /** The argument's JSON pointer; '' for the tool row. */
  pointer: string;
  /** What changed; 'unchanged' for a failed field nothing touched. */
  kind: JsonChange['kind'] | 'unchanged';
  /** Where the value was before, when it moved. */
  beforePointer: string | null;
  before: Side;
  after: Side;
  /** The earlier attempt failed at this field. */
  failed: boolean;
  /** What the later attempt did about a failed field. */
  verdict: PointerVerdict | null;
}

/** The two attempts a mode compares: [earlier, later] numbers. */
export function pairFor(mode: DiffMode, numbers: number[], chosen: number, from: number, to: number): [number, number] | null {
  if (numbers.length < 2) return null;
  const firstN = numbers[0] as number;
  const lastN = numbers[numbers.length - 1] as number;
  if (mode === 'first-final') return [firstN, lastN];
  if (mode === 'pair') return from === to ? null : from < to ? [from, to] : [to, from];
  const i = numbers.indexOf(chosen);
  return i > 0 ? [numbers[i - 1] as number, chosen] : [firstN, numbers[1] as number];
}

function presence(root: unknown, pointer: string): Side {
  try {
    const v = valueAt(root, pointer);
    return v.found ? { present: true, value: v.value } : { present: false, value: undefined };
  } catch {
    // not a pointer (a hand-made prop): shown as absent rather than breaking the page
    return { present: false, value: undefined };
  }
}

/** The tool row: when the tool changed or the earlier attempt failed for it. */
function toolRow(before: DiffAttempt, after: DiffAttempt, argsChanged: boolean): DiffRow | null {
  const changed = before.tool !== after.tool;
  if (!changed && !before.toolFailed) return null;
  let verdict: PointerVerdict | null = null;
  if (before.toolFailed) {
    if (changed) verdict = after.toolFailed ? 'still-failing' : 'fixed';
    else verdict = argsChanged ? 'changed-something-else' : 'ignored';
  }
  return {
    field: 'tool',
    pointer: '',
    kind: changed ? 'changed' : 'unchanged',
    beforePointer: null,
    before: { present: true, value: before.tool },
    after: { present: true, value: after.tool },
    failed: before.toolFailed,
    verdict,
  };
}

/**
 * Every row of the diff from `before` to `after`: the tool, each changed path, and each failed path
 * left unchanged. When either attempt's arguments were not recorded (content capture left them
 * out, or its instrumentation hands over none), only the tool row: `unrecorded` names the attempt,
 * rather than a diff from or to nothing.
 */
export function diffRows(before: DiffAttempt, after: DiffAttempt): { rows: DiffRow[]; changes: number; unrecorded: number | null } {
  const missing = before.args === null ? before.attempt : after.args === null ? after.attempt : null;
  if (missing !== null) {
    const tool = toolRow(before, after, false);
    return { rows: tool ? [tool] : [], changes: tool?.kind === 'changed' ? 1 : 0, unrecorded: missing };
  }
  const changes = diffJson(before.args, after.args);
  const outcomes: PointerOutcome[] = pointerVerdicts(before, after, changes);
  const rows: DiffRow[] = [];
  const tool = toolRow(before, after, changes.length > 0);
  if (tool) rows.push(tool);
  for (const c of changes) {
    const outcome = outcomes.find((o) => o.changes.includes(c));
    rows.push({
      field: 'argument',
      pointer: c.pointer,
      kind: c.kind,
      beforePointer: c.beforePointer,
      before: { present: c.kind !== 'added', value: c.before },
      after: { present: c.kind !== 'removed', value: c.after },
      failed: outcome !== undefined || before.failedPointers.some((p) => related(p, c.pointer)),
      verdict: outcome?.verdict ?? null,
    });
  }
  for (const o of outcomes) {
    if (o.changes.length) continue;
    rows.push({
      field: 'argument',
      pointer: o.pointer,
      kind: 'unchanged',
      beforePointer: null,
      before: presence(before.args, o.pointer),
      after: presence(after.args, o.pointer),
      failed: true,
      verdict: o.verdict,
    });
  }
  return { rows, changes: changes.length + (tool?.kind === 'changed' ? 1 : 0), unrecorded: null };
}
