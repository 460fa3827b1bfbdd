/** What the replay reads about a call's failures: its signature, and its attempts as the diff takes them. */
import type { DiffAttempt } from './attempt-diff-rows';
import type { AttemptDto, ToolCallStepDto } from '@/server/queries/session-types';
import { parseArguments } from './json-diff';

/** The failure of a call to look for in other sessions: tool, class and failed field of its first failed attempt. */
export interface CallFailureSignature {
  toolName: string;
  failureClass: string;
  /** The first JSON pointer a failed check of that attempt recorded, if any. */
  pointer: string | null;
  /** The attempt it was read from. */
  attempt: number;
}

/** One string per signature: the key of the replay's same-failure navigation. */
export function signatureKey(s: CallFailureSignature): string {
  return JSON.stringify([s.toolName, s.failureClass, s.pointer]);
}

export function failureSignature(call: ToolCallStepDto): CallFailureSignature | null {
  const a = call.attempts.find((x) => x.failureClass !== null);
  if (!a?.failureClass) return null;
  const pointer = a.guardChecks.find((g) => g.verdict === 'fail' && g.failedPointers.length > 0)?.failedPointers[0] ?? null;
  // The tool the failed attempt named: a hallucinated name stays on its attempt when the call takes the corrected one.
  return { toolName: a.toolName ?? call.toolName, failureClass: a.failureClass, pointer, attempt: a.number };
}

/** An attempt passed its checks: none failed, and it succeeded or was checked at all. */
function passed(a: AttemptDto): boolean {
  return !a.guardChecks.some((g) => g.verdict === 'fail') && (a.outcome === 'success' || a.guardChecks.length > 0);
}

/**
 * The call's attempts as `AttemptDiff` takes them: the tool each named, its arguments and the
 * pointers into them its failed checks recorded (paths are always into the arguments; the tool
 * name is its own field: lib/attempt-diff-rows.ts). A hallucinated tool corrected to a real one
 * shows as the tool field changed, its unknown-tool failure fixed.
 */
export function diffAttempts(call: ToolCallStepDto): DiffAttempt[] {
  return call.attempts.map((a) => ({
    attempt: a.number,
    tool: a.toolName ?? call.toolName,
    args: parseArguments(a.arguments?.text ?? null),
    failedPointers: [...new Set(a.guardChecks.filter((g) => g.verdict === 'fail').flatMap((g) => g.failedPointers))],
    toolFailed: a.failureClass === 'unknown_tool',
    failureClass: a.failureClass,
    passed: passed(a),
  }));
}
