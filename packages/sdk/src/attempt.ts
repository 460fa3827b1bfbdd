import { type AttemptInput, type AttemptRun, AttemptState, fail } from './attempt-state.ts';
import { runGuardSpan } from './guard-span.ts';
import { STAGES, type Stage } from './stages.ts';
import { rankNames, unknownToolFeedback } from './unknown-tool.ts';

/**
 * One attempt: the stages of `STAGES` in order (circuit breaker, schema, idempotency store,
 * logical guards, execution, post-execution gates), until one ends it. Whatever a guard
 * took (a lock) is released when the attempt ends, last taken first.
 */
export async function runAttempt(inp: AttemptInput): Promise<AttemptRun> {
  // a tool that is not registered has no stages: the call is rejected with the valid names
  if (!inp.tool) return unknownTool(inp);
  const s = new AttemptState(inp, inp.tool);
  try {
    for (let i = 0; i < STAGES.length; i++) {
      const r = (STAGES[i] as Stage)(s);
      const end = r instanceof Promise ? await r : r;
      if (end) return end;
    }
    return s.run;
  } finally {
    for (const release of s.releases.reverse()) {
      try {
        await release();
      } catch {
        // a failing release must not turn a finished attempt into a failure
      }
    }
  }
}

async function unknownTool(inp: AttemptInput): Promise<AttemptRun> {
  const { rt, toolName } = inp;
  const run: AttemptRun = { ok: false, rawArgs: inp.rawArgs, parsed: false, guards: [] };
  const ranked = rankNames(toolName, [...rt.tools.keys()]);
  const g = await runGuardSpan(inp, 'tool_exists', 'schema', () => ({
    pass: false,
    reason: `Unknown tool "${toolName}"`,
    feedback: unknownToolFeedback(toolName, ranked),
    failureClass: 'unknown_tool',
    candidates: ranked,
  }), 'unknown_tool');
  run.guards.push(g.record);
  return fail(run, g, 'pre');
}
