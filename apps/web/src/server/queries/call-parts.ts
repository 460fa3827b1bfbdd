/**
 * A waiting call repaired by the model is listed in parts, so the step list reads cause →
 * effect: the failed attempt, the repair turn, the corrected attempt. The SDK's one-shot path
 * keeps the corrected attempt in the same logical call (one tool-call span) while the model turn
 * that produced it is a step of its own; listed whole, the call (with its correction) came
 * before the turn that made the correction. Each part is a step with its own attempts; the
 * detail pane shows the whole call (lib/replay-nav.ts `wholeCall`).
 */
import type { TimelineStepDto, ToolCallStepDto } from './session-types.ts';

type Unstepped<T> = Omit<T, 'step'>;
type ToolDraft = Unstepped<ToolCallStepDto>;

/** The order key of a step: its span, and for a later part of a call, the part's number. */
export function stepKey(s: { kind: string; traceId: string; spanId: string; part?: ToolCallStepDto['part'] }): string {
  const base = `${s.traceId}:${s.spanId}`;
  return s.kind === 'tool' && s.part && s.part.index > 0 ? `${base}#${s.part.index}` : base;
}

/** The tools the model named, in order, repeats merged: `search_codebase → search_files`. */
function namesOf(attempts: ToolCallStepDto['attempts'], fallback: string): string[] {
  const out: string[] = [];
  for (const a of attempts) {
    const name = a.toolName ?? fallback;
    if (out.at(-1) !== name) out.push(name);
  }
  return out.length ? out : [fallback];
}

/**
 * Each call cut after every attempt a model turn repaired (`repaired`: attempt span ids) that is
 * not its last: one draft per part. A call with no such attempt stays one draft (`part` null).
 * Later parts start at their first attempt and leave the call's arguments and result to the
 * first part, and so do the guardrails that ran on the call (the detail shows the whole call from the parts).
 */
export function splitAtRepairs(tools: ToolDraft[], repaired: Set<string>): ToolDraft[] {
  const out: ToolDraft[] = [];
  for (const t of tools) {
    const cuts: number[] = [];
    t.attempts.forEach((a, i) => {
      if (i < t.attempts.length - 1 && repaired.has(a.spanId)) cuts.push(i + 1);
    });
    if (!cuts.length) {
      out.push({ ...t, toolNames: namesOf(t.attempts, t.toolName), part: null });
      continue;
    }
    const bounds = [0, ...cuts, t.attempts.length];
    for (let p = 0; p < bounds.length - 1; p++) {
      const attempts = t.attempts.slice(bounds[p], bounds[p + 1]);
      const first = attempts[0] as ToolCallStepDto['attempts'][number];
      const last = attempts.at(-1) as ToolCallStepDto['attempts'][number];
      const part = { index: p, count: bounds.length - 1, steps: [] as number[] };
      const toolNames = namesOf(t.attempts.slice(0, bounds[p + 1]), t.toolName);
      if (p === 0) {
        // the call's start, to the end of this part's last attempt (not the whole call's end:
        // the correction after the repair turn, and its retries, belong to the later parts)
        const durationMs = Math.max(0, Date.parse(last.startedAt) + last.durationMs - Date.parse(t.startedAt));
        out.push({ ...t, attempts, toolNames, part, durationMs });
        continue;
      }
      const startedAt = first.startedAt;
      const durationMs = Math.max(0, Date.parse(last.startedAt) + last.durationMs - Date.parse(startedAt));
      out.push({ ...t, attempts, toolNames, part, startedAt, durationMs, arguments: null, result: null, guardChecks: [] });
    }
  }
  return out;
}

/** Fills each part's `steps` (the step numbers of every part of its call, in order) once the steps are numbered. */
export function numberParts(steps: TimelineStepDto[]): void {
  const parts = new Map<string, number[]>();
  for (const s of steps) {
    if (s.kind !== 'tool' || !s.part) continue;
    const k = `${s.traceId}:${s.spanId}`;
    const list = parts.get(k);
    if (list) list[s.part.index] = s.step;
    else {
      const l: number[] = [];
      l[s.part.index] = s.step;
      parts.set(k, l);
      s.part.steps = l;
    }
    // Every part shares its call's list.
    s.part.steps = parts.get(k) as number[];
  }
}
