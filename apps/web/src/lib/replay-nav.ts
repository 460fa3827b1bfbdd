/**
 * Stepping through a replay in the browser: which step and attempt a key leads to. Pure
 * functions over the loaded steps, so a step never waits for the server.
 */
import type { AttemptDto, GuardCheckDto, TimelineStepDto } from '@/server/queries/session-types';

export interface Position {
  /** 1-based step. */
  step: number;
  /** Attempt number within a tool call, null for other steps. */
  attempt: number | null;
}

function attemptsOf(s: TimelineStepDto | undefined): AttemptDto[] {
  return s?.kind === 'tool' ? s.attempts : [];
}

const isFailedAttempt = (a: AttemptDto) => a.outcome !== null && a.outcome !== 'success';
const guardFailed = (g: GuardCheckDto) => g.verdict === 'fail';

/** True when the step shows a failure: a failed attempt or call, a failed guard, an error span. */
export function stepFailed(s: TimelineStepDto): boolean {
  if (s.kind === 'tool') return s.attempts.some(isFailedAttempt) || (s.outcome !== null && s.outcome !== 'success') || (s.guardChecks?.some(guardFailed) ?? false);
  // A verdict not derived (`unknown`) is no failure: nothing explicit said so.
  if (s.kind === 'guard') return guardFailed(s);
  if (s.kind === 'span') return s.statusCode === 2;
  return false;
}

/** The default attempt of a step: its first failed one, else its last. */
export function defaultAttempt(s: TimelineStepDto | undefined): number | null {
  const attempts = attemptsOf(s);
  return (attempts.find(isFailedAttempt) ?? attempts.at(-1))?.number ?? null;
}

export function moveStep(steps: TimelineStepDto[], pos: Position, delta: number): Position {
  const step = Math.min(Math.max(pos.step + delta, 1), Math.max(steps.length, 1));
  return { step, attempt: defaultAttempt(steps[step - 1]) };
}

/** The steps of a tool call's parts (call-parts.ts), or the step alone. */
function partSteps(steps: TimelineStepDto[], s: TimelineStepDto | undefined): TimelineStepDto[] {
  if (s?.kind !== 'tool' || !s.part) return s ? [s] : [];
  return s.part.steps.map((n) => steps[n - 1]).filter((x): x is TimelineStepDto => x !== undefined);
}

/** Every attempt of the call `s` is (a part of), each with its step: the attempts of a call listed in parts, in order. */
function callAttempts(steps: TimelineStepDto[], s: TimelineStepDto | undefined): Position[] {
  return partSteps(steps, s).flatMap((p) => attemptsOf(p).map((a) => ({ step: p.step, attempt: a.number })));
}

/**
 * The whole call a step is a part of: its first part's fields with every part's attempts (the
 * detail pane shows the call whole: every attempt, the diff, the fixture). The step itself when
 * it is not a part.
 */
export function wholeCall(steps: TimelineStepDto[], s: TimelineStepDto): TimelineStepDto {
  if (s.kind !== 'tool' || !s.part) return s;
  const parts = partSteps(steps, s);
  const first = parts[0];
  if (first?.kind !== 'tool') return s;
  // the whole call lasts from its first part's start to its last part's end (each part is cut to
  // its own attempts: call-parts.ts)
  let end = Date.parse(first.startedAt) + first.durationMs;
  for (const p of parts) if (p.kind === 'tool') end = Math.max(end, Date.parse(p.startedAt) + p.durationMs);
  const durationMs = Math.max(0, end - Date.parse(first.startedAt));
  return { ...first, step: s.step, part: s.part, toolNames: s.toolNames, attempts: parts.flatMap(attemptsOf), durationMs };
}

/** Where attempt `attempt` of the call at `step` is: the part of the call that holds it (the same step when it is not listed in parts). */
export function placeAttempt(steps: TimelineStepDto[], step: number, attempt: number | null): Position {
  if (attempt === null) return { step, attempt };
  return callAttempts(steps, steps[step - 1]).find((p) => p.attempt === attempt) ?? { step, attempt };
}

/** The previous / next attempt of the selected call, across its parts. */
export function moveAttempt(steps: TimelineStepDto[], pos: Position, delta: number): Position {
  const all = callAttempts(steps, steps[pos.step - 1]);
  if (!all.length) return pos;
  const i = Math.max(
    all.findIndex((p) => p.step === pos.step && p.attempt === pos.attempt),
    0,
  );
  return all[Math.min(Math.max(i + delta, 0), all.length - 1)] ?? pos;
}

/**
 * The next (dir 1) or previous (dir -1) failure from `pos`: a failed attempt of the same call
 * first, then the next failing step. Stays put when there is none.
 */
export function moveFailure(steps: TimelineStepDto[], pos: Position, dir: 1 | -1): Position {
  const here = attemptsOf(steps[pos.step - 1]).filter(isFailedAttempt);
  const inCall = dir === 1 ? here.find((a) => pos.attempt !== null && a.number > pos.attempt) : here.findLast((a) => pos.attempt !== null && a.number < pos.attempt);
  if (inCall) return { step: pos.step, attempt: inCall.number };
  for (let i = pos.step - 1 + dir; i >= 0 && i < steps.length; i += dir) {
    const s = steps[i] as TimelineStepDto;
    if (!stepFailed(s)) continue;
    const failed = attemptsOf(s).filter(isFailedAttempt);
    const a = dir === 1 ? failed[0] : failed.at(-1);
    return { step: i + 1, attempt: a?.number ?? defaultAttempt(s) };
  }
  return pos;
}

/** Text a step is found by: names, classes, reasons, feedback and previews. */
export function searchText(s: TimelineStepDto): string {
  const parts: (string | null | undefined)[] = [];
  if (s.kind === 'tool') {
    parts.push(s.toolName, s.callId, s.failureClass, s.failureReason, s.decision, s.idempotencyKey, s.arguments?.text);
    for (const a of s.attempts) parts.push(a.toolName, a.failureClass, a.failureReason, a.feedback?.text, a.arguments?.text, a.decision);
    for (const g of s.guardChecks ?? []) parts.push(g.guardName, g.reason);
  } else if (s.kind === 'model') parts.push(s.model, s.provider, s.repairFailureClass, s.input?.text, s.output?.text);
  else if (s.kind === 'guard') parts.push(s.guardName, s.reason, s.failureClass);
  else parts.push(s.name, s.serviceName, s.statusMessage);
  return parts.filter(Boolean).join('\n').toLowerCase();
}

/** Steps (1-based) whose text holds every word of `query`, case-insensitive. */
export function searchSteps(index: string[], query: string): number[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return [];
  const out: number[] = [];
  index.forEach((text, i) => {
    if (words.every((w) => text.includes(w))) out.push(i + 1);
  });
  return out;
}
