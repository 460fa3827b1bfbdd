/**
 * Guards-only evaluation: a call's arguments through the current schema, guards, auto-repair
 * and policy, decided by the same code as `session.callTool` (a `ToolCall` on a check runtime,
 * runtime.ts `checkRuntime`), without running the tool (except a read-only one under
 * `execute: 'read-only'`), without spans, and without touching any real session's budgets,
 * locks, circuit breakers or idempotency store.
 */
import type { Decision, FailureClass } from '@guardtrace/semconv';
import type { Session } from './session.ts';
import type { AttemptRecord, Correction, GuardRecord } from './types.ts';

/** `none` (default): no tool runs. `read-only`: read-only tools run, and their post-execution guards. */
export type CheckExecute = 'none' | 'read-only';

export interface CheckOptions {
  execute?: CheckExecute;
  /** Tool call id given to the tool's context (default: generated). */
  callId?: string;
}

/** What `callTool` would have decided for these arguments. */
export interface CheckResult {
  /** The guards let the call's last attempt through to `execute` (after any auto-repair). */
  allowed: boolean;
  /** The tool ran (a read-only tool under `execute: 'read-only'`). */
  executed: boolean;
  /** `proceed` when allowed and nothing after execution failed; else the policy's decision. */
  decision: Decision;
  failureClass: FailureClass | null;
  /** The text the model would be shown (corrections made in code first), null when allowed. */
  feedback: string | null;
  /** The failed guard checks of the call's attempts, in order. */
  failed: GuardRecord[];
  /** Mistakes corrected in code before the last attempt. */
  corrections: Correction[];
  /** The call's attempts, as a real call records them (an auto-repaired one, then the repaired one). */
  attempts: AttemptRecord[];
  /** The tool's result, when it ran. */
  value?: unknown;
}

/**
 * Runs one call in a check session (a fresh one for `gt.check`); `readOnly` tells whether a
 * tool is read-only, so whether it ran.
 */
export async function checkCall(session: Session, readOnly: (tool: string) => boolean, tool: string, args: unknown, opts: CheckOptions = {}): Promise<CheckResult> {
  const r = await session.toolCall(tool, opts.callId === undefined ? {} : { callId: opts.callId }).attempt(args);
  const last = r.attempts.at(-1);
  const allowed = last !== undefined && last.outcome !== 'rejected';
  const out: CheckResult = {
    allowed,
    executed: allowed && opts.execute === 'read-only' && readOnly(r.tool),
    decision: r.ok ? 'proceed' : r.decision,
    failureClass: r.ok ? null : r.failureClass,
    feedback: r.ok ? null : r.feedback,
    failed: r.attempts.flatMap((a) => a.guards.filter((g) => g.verdict === 'fail')),
    corrections: r.corrections ?? [],
    attempts: r.attempts,
  };
  if (r.ok && out.executed) out.value = r.value;
  return out;
}
