/**
 * "Copy as test fixture": a recorded tool call and all its attempts as JSON, and a vitest file
 * that runs each attempt's arguments through the tool's guards with the public SDK API
 * (`gt.tool(spec)` then `session.callTool`), expecting what was recorded. The SDK has no call
 * that runs guards alone, so the snippet registers the user's own tool definition (one import
 * line to point at it) with `execute` replaced: the fixture never touches the world.
 */
import type { AttemptDto, ToolCallStepDto } from '@/server/queries/session-types';
import { parseArguments } from './json-diff';

interface FixtureCheck {
  guard: string;
  stage: string | null;
  reason: string | null;
  failureClass: string | null;
  pointers: string[];
}

interface FixtureAttempt {
  attempt: number;
  arguments: unknown;
  outcome: string | null;
  failureClass: string | null;
  decision: string | null;
  feedback: string | null;
  failedChecks: FixtureCheck[];
  /** Every check before execution passed (the guards let the arguments through). */
  guardsPassed: boolean;
}

export interface CallFixture {
  sessionId: string;
  tool: string;
  callId: string | null;
  outcome: string | null;
  failureClass: string | null;
  attempts: FixtureAttempt[];
}

/** Stages whose checks run before `execute`: what the fixture can replay without running the tool. */
const BEFORE_EXECUTION = new Set(['schema', 'logical']);

function attemptOf(a: AttemptDto): FixtureAttempt {
  const failed = a.guardChecks.filter((g) => g.verdict === 'fail');
  return {
    attempt: a.number,
    arguments: parseArguments(a.arguments?.text ?? null),
    outcome: a.outcome,
    failureClass: a.failureClass,
    decision: a.decision,
    feedback: a.feedback?.text ?? null,
    failedChecks: failed.map((g) => ({ guard: g.guardName, stage: g.stage, reason: g.reason, failureClass: g.failureClass, pointers: g.failedPointers })),
    guardsPassed: !failed.some((g) => g.stage === null || BEFORE_EXECUTION.has(g.stage)),
  };
}

/** The call and its attempts, as the fixture's JSON holds them. */
export function callFixture(sessionId: string, call: ToolCallStepDto): CallFixture {
  return {
    sessionId,
    tool: call.toolName,
    callId: call.callId,
    outcome: call.outcome,
    failureClass: call.failureClass,
    attempts: call.attempts.map(attemptOf),
  };
}

/** One line of comment text: no line breaks. */
const oneLine = (s: string) => s.replace(/[\r\n\u2028\u2029]+/g, ' ');

/** What one attempt's replay expects: the recorded failure of a check before execution, or a pass. */
function expectation(a: FixtureAttempt): string[] {
  const before = a.failedChecks.filter((c) => c.stage === null || BEFORE_EXECUTION.has(c.stage));
  if (before.length === 0) {
    const note = a.outcome && a.outcome !== 'success' ? ` (it then failed in execution: ${oneLine(a.failureClass ?? a.outcome)})` : '';
    return [`    // attempt ${a.attempt}: every check before execution passed${note}`, '    expect(r.ok).toBe(true);'];
  }
  const first = before[0] as FixtureCheck;
  const lines = [
    `    // attempt ${a.attempt}: ${oneLine(first.guard)} failed${first.reason ? `: ${oneLine(first.reason).slice(0, 160)}` : ''}`,
    `    expect(r).toMatchObject({ ok: false, failureClass: ${JSON.stringify(first.failureClass ?? a.failureClass)} });`,
    `    const failed = r.attempts[0]?.guards.find((g) => g.verdict === 'fail');`,
    `    expect(failed?.name).toBe(${JSON.stringify(first.guard)});`,
  ];
  if (first.pointers.length > 0) lines.push(`    expect(failed?.pointers).toEqual(${JSON.stringify(first.pointers)});`);
  return lines;
}

/**
 * A vitest file replaying the call's attempts through the tool's guards. `toolImport` is the
 * module the user's tool definition (the spec passed to `gt.tool`) is exported from as `tool`.
 */
export function vitestSnippet(f: CallFixture, toolImport = './tool'): string {
  const head = [
    `// Guardtrace fixture: tool ${oneLine(f.tool)}, session ${oneLine(f.sessionId)}${f.callId ? `, call ${oneLine(f.callId)}` : ''}.`,
    `// Each recorded attempt's arguments run through the tool's guards; execute is replaced, so nothing runs for real.`,
    `import { Guardtrace } from '@guardtrace/sdk';`,
    `import { describe, expect, it } from 'vitest';`,
    `// Your tool's definition (the spec you pass to gt.tool), exported as \`tool\`: point this import at it.`,
    `import { tool } from ${JSON.stringify(toolImport)};`,
    '',
    `const attempts = ${JSON.stringify(f.attempts.map((a) => ({ attempt: a.attempt, arguments: a.arguments })), null, 2)};`,
    '',
    `async function replay(n: number) {`,
    `  // autoRepair off: each attempt is checked as the model sent it, as it was recorded`,
    `  const gt = new Guardtrace({ tracing: false, autoRepair: false });`,
    `  gt.tool({ ...tool, execute: () => null });`,
    `  // a session per attempt: each one is checked on its own, not as a correction of the one before`,
    `  const s = gt.session({ agentName: 'fixture' });`,
    `  const r = await s.callTool(${JSON.stringify(f.tool)}, attempts[n]?.arguments);`,
    `  await s.end();`,
    `  return r;`,
    `}`,
    '',
    `describe(${JSON.stringify(`${f.tool}: recorded attempts`)}, () => {`,
  ];
  const body = f.attempts.flatMap((a, i) => [
    `  it(${JSON.stringify(`attempt ${a.attempt}`)}, async () => {`,
    `    const r = await replay(${i});`,
    ...expectation(a),
    '  });',
  ]);
  return [...head, ...body, '});', ''].join('\n');
}

/** What the copy button puts on the clipboard: the fixture JSON, then the vitest file. */
export function fixtureText(sessionId: string, call: ToolCallStepDto): string {
  const f = callFixture(sessionId, call);
  return `// ${oneLine(f.tool)}.fixture.json\n${JSON.stringify(f, null, 2)}\n\n// ${oneLine(f.tool)}.fixture.test.ts\n${vitestSnippet(f)}`;
}
