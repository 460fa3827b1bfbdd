/**
 * "Copy as test fixture": a recorded tool call as a dataset item (DatasetItem, the format
 * `GET /v1/datasets/{id}` streams and `guardtrace-replay` reads), and a vitest file that replays
 * it through the user's current guards with `expectNoGuardRegressions` from
 * `@guardtrace/sdk/replay` (guards only: nothing is executed), failing when a recorded decision,
 * class or feedback would now differ.
 */
import { DATASET_ITEM_FORMAT, type DatasetItem, type DatasetItemAttempt, INEXACT_ARGUMENT_MARKS, type ToolDefinitionSummary } from '@guardtrace/semconv';
import type { AttemptDto, ToolCallStepDto } from '@/server/queries/session-types';
import { parseArguments } from './json-diff';

function attemptOf(a: AttemptDto): DatasetItemAttempt {
  const text = a.arguments?.text ?? null;
  const args = parseArguments(text);
  return {
    number: a.number,
    // the name this attempt called (an unknown one the call was corrected from, replayed as such)
    tool: a.toolName,
    arguments: args,
    // the text as recorded (its key order, which feedback echoes), as the collector's datasets hold it
    argumentsText: text,
    // cut for the preview, or holding a mark of what the SDK or the collector left out (redacted, shortened)
    argumentsInexact: text !== null && ((a.arguments?.chars ?? 0) > text.length || INEXACT_ARGUMENT_MARKS.some((m) => text.includes(m))),
    outcome: a.outcome,
    decision: a.decision,
    failureClass: a.failureClass,
    feedback: a.feedback?.text ?? null,
    budgetExhausted: a.budgets.exhausted,
    checks: a.guardChecks.map((g) => ({
      guard: g.guardName,
      stage: g.stage,
      verdict: g.verdict === 'fail' ? 'fail' : 'pass',
      reason: g.reason,
      failureClass: g.failureClass,
      pointers: g.failedPointers,
    })),
  };
}

/**
 * The call as a dataset item (packages/semconv/src/dataset.ts); its stepPath as the collector's
 * datasets write it (packages/db/src/datasets.ts, stepPath). The definition's hash as recorded, and
 * its readable summary as the collector kept it (the replay loads it on demand; null when none was
 * kept: a runner then names no definition changes).
 */
export function callFixture(projectId: string, sessionId: string, call: ToolCallStepDto, summary: ToolDefinitionSummary | null = null): DatasetItem {
  return {
    format: DATASET_ITEM_FORMAT,
    id: `${call.traceId}:${call.spanId}`,
    sessionId,
    traceId: call.traceId,
    spanId: call.spanId,
    stepPath: `/sessions/${encodeURIComponent(sessionId)}?project=${encodeURIComponent(projectId)}&call=${encodeURIComponent(call.spanId)}`,
    tool: call.toolName,
    callId: call.callId,
    startedAt: call.startedAt,
    definition: { hash: call.definitionHash ?? null, summary: call.definitionHash ? summary : null },
    outcome: call.outcome,
    failureClass: call.failureClass,
    attempts: call.attempts.map(attemptOf),
  };
}

/** One line of comment text: no line breaks. */
const oneLine = (s: string) => s.replace(/[\r\n\u2028\u2029]+/g, ' ');

/**
 * A vitest file replaying the item through the current guards. `toolsImport` is the module that
 * exports the user's Guardtrace instance (with this tool registered) as `gt`.
 */
export function vitestSnippet(item: DatasetItem, toolsImport = './agent-tools'): string {
  return [
    `// Guardtrace fixture: tool ${oneLine(item.tool)}, session ${oneLine(item.sessionId)}${item.callId ? `, call ${oneLine(item.callId)}` : ''}.`,
    `// Each recorded attempt's arguments run through the tool's current guards (nothing is executed);`,
    `// the test fails when a decision, failure class or feedback would now differ from the recording.`,
    `import { type DatasetItem, expectNoGuardRegressions } from '@guardtrace/sdk/replay';`,
    `import { it } from 'vitest';`,
    `// Your Guardtrace instance, with this tool registered, exported as \`gt\`: point this import at it.`,
    `import { gt } from ${JSON.stringify(toolsImport)};`,
    '',
    `const item: DatasetItem = ${JSON.stringify(item, null, 2)};`,
    '',
    `it(${JSON.stringify(`${item.tool}: no guard regression on the recorded call`)}, async () => {`,
    `  await expectNoGuardRegressions(gt, [item]);`,
    `});`,
    '',
  ].join('\n');
}

/**
 * Why a fixture of this call cannot be replayed as it stands, or null: an attempt whose arguments
 * were shortened or redacted when recorded (a replay reports it `not_replayed`, so the copied test
 * fails whatever the guards do). Said beside the copy button, before anyone commits such a test.
 */
export function fixtureCaveat(call: ToolCallStepDto): string | null {
  const inexact = call.attempts.map(attemptOf).filter((a) => a.argumentsInexact);
  if (inexact.length === 0) return null;
  const which = inexact.map((a) => `#${a.number}`).join(', ');
  return `Attempt ${which} has arguments shortened or redacted when recorded: its test reports that attempt as not replayed, whatever the guards decide.`;
}

/** What the copy button puts on the clipboard: the dataset item JSON, then the vitest file. */
export function fixtureText(projectId: string, sessionId: string, call: ToolCallStepDto, summary: ToolDefinitionSummary | null = null): string {
  const item = callFixture(projectId, sessionId, call, summary);
  return `// ${oneLine(item.tool)}.fixture.json\n${JSON.stringify(item, null, 2)}\n\n// ${oneLine(item.tool)}.fixture.test.ts\n${vitestSnippet(item)}`;
}
