/**
 * "Copy as test fixture" for a call read back from Postgres: a dataset item (the format of
 * `GET /v1/datasets/{id}`) holding every attempt, and a valid vitest file: written into a
 * throwaway project next to a real Guardtrace instance, it replays the item with
 * `expectNoGuardRegressions` (`@guardtrace/sdk/replay`) and passes; against a tool whose guards
 * let everything through, it fails.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { callFixture, fixtureCaveat, fixtureText, vitestSnippet } from '../src/lib/fixture.ts';
import { getSessionDetail } from '../src/server/queries/session.ts';
import type { ToolCallStepDto } from '../src/server/queries/session-types.ts';
import { setupTestDatabase } from './db.ts';
import { seedProject, seedSession } from './factories.ts';

const db = setupTestDatabase();
const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPO = path.resolve(WEB, '../..');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const FEEDBACK = [
  'Validation error in create_file call:',
  '- Missing required field: "path" (expected string)',
  '- Unexpected field: "filepath" (did you mean "path"?)',
  '- You provided: {"filepath":"src/main.py","content":"print(1)"}',
  '',
  'Expected schema:',
  '{',
  '  "path": "string (required)",',
  '  "content": "string (required)"',
  '}',
].join('\n');

async function recordedCall(): Promise<{ projectId: string; sessionId: string; call: ToolCallStepDto }> {
  const prisma = db.prisma();
  const project = await seedProject(prisma);
  const seeded = await seedSession(prisma, project.id, {
    startedAt: new Date('2026-11-21T09:00:00.000Z'),
    toolCalls: [
      {
        toolName: 'create_file',
        atMs: 100,
        attempts: [
          {
            outcome: 'rejected',
            failureClass: 'invalid_arguments',
            decision: 'reject_with_feedback',
            // The real SDK's feedback for these arguments under the tool below, as it recorded it.
            feedback: FEEDBACK,
            arguments: '{"filepath":"src/main.py","content":"print(1)"}',
            guards: [{ guardName: 'schema', stage: 'schema', verdict: 'fail', reason: 'Missing required field: "path" (expected string)', failureClass: 'invalid_arguments', failedPointers: ['/path', '/filepath'] }],
          },
          {
            outcome: 'success',
            arguments: '{"path":"src/main.py","content":"print(1)"}',
            guards: [{ guardName: 'schema', stage: 'schema', verdict: 'pass' }],
          },
        ],
      },
    ],
  });
  const detail = await getSessionDetail(prisma, project.id, seeded.id);
  const call = detail?.steps.find((s): s is ToolCallStepDto => s.kind === 'tool');
  if (!call) throw new Error('seeded call not found');
  return { projectId: project.id, sessionId: seeded.id, call };
}

/** A throwaway project: the snippet, a Guardtrace instance with the tool, and links to the SDK, zod and vitest. */
function project(snippet: string, toolsSource: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gt-fixture-'));
  dirs.push(dir);
  mkdirSync(path.join(dir, 'node_modules/@guardtrace'), { recursive: true });
  symlinkSync(path.join(REPO, 'packages/sdk'), path.join(dir, 'node_modules/@guardtrace/sdk'));
  symlinkSync(path.join(WEB, 'node_modules/vitest'), path.join(dir, 'node_modules/vitest'));
  symlinkSync(path.join(WEB, 'node_modules/zod'), path.join(dir, 'node_modules/zod'));
  writeFileSync(path.join(dir, 'package.json'), '{"type":"module","private":true}');
  writeFileSync(path.join(dir, 'vitest.config.mjs'), 'export default {};\n');
  writeFileSync(path.join(dir, 'agent-tools.ts'), toolsSource);
  writeFileSync(path.join(dir, 'create_file.fixture.test.ts'), snippet);
  return dir;
}

function runVitest(dir: string): { status: number | null; output: string } {
  const bin = path.join(WEB, 'node_modules/vitest/vitest.mjs');
  const r = spawnSync(process.execPath, [bin, 'run', '--root', dir], { cwd: dir, encoding: 'utf8', env: { ...process.env, CI: '1', NO_COLOR: '1' } });
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}

const realTool = `import { Guardtrace } from '@guardtrace/sdk';
import { z } from 'zod';
export const gt = new Guardtrace({ tracing: false });
gt.tool({
  name: 'create_file',
  description: 'Create a file',
  schema: z.object({ path: z.string(), content: z.string() }),
  execute: () => { throw new Error('the fixture must not run the tool'); },
});
`;
const looseTool = realTool.replace("z.object({ path: z.string(), content: z.string() })", 'z.unknown()');

describe('copy as test fixture', () => {
  it('is a dataset item: the call and every attempt with its arguments, checks and pointers, and its step', async () => {
    const { projectId, sessionId, call } = await recordedCall();
    const f = callFixture(projectId, sessionId, call);
    expect(f).toMatchObject({
      format: 'guardtrace.dataset-item/v1',
      id: `${call.traceId}:${call.spanId}`,
      sessionId,
      stepPath: `/sessions/${encodeURIComponent(sessionId)}?project=${projectId}&call=${call.spanId}`,
      tool: 'create_file',
      outcome: 'success',
      definition: { hash: null, summary: null },
    });
    expect(f.attempts).toEqual([
      expect.objectContaining({ number: 1, arguments: { filepath: 'src/main.py', content: 'print(1)' }, argumentsInexact: false, outcome: 'rejected', feedback: FEEDBACK, checks: [expect.objectContaining({ guard: 'schema', verdict: 'fail', pointers: ['/path', '/filepath'] })] }),
      expect.objectContaining({ number: 2, arguments: { path: 'src/main.py', content: 'print(1)' }, outcome: 'success', checks: [expect.objectContaining({ guard: 'schema', verdict: 'pass' })] }),
    ]);
    const text = fixtureText(projectId, sessionId, call);
    expect(JSON.parse(text.slice(text.indexOf('\n') + 1, text.indexOf('\n\n// ')))).toEqual(f);
    expect(text).toContain("import { type DatasetItem, expectNoGuardRegressions } from '@guardtrace/sdk/replay';");
    expect(text).toContain('await expectNoGuardRegressions(gt, [item]);');
  });

  it('names the tool each attempt called, and flags arguments the SDK redacted as inexact', async () => {
    const prisma = db.prisma();
    const p = await seedProject(prisma);
    const seeded = await seedSession(prisma, p.id, {
      startedAt: new Date('2026-11-21T09:00:00.000Z'),
      toolCalls: [
        {
          toolName: 'create_file',
          atMs: 100,
          attempts: [
            // an unknown tool name, corrected: the call took the name of its second attempt
            { toolName: 'create_fil', outcome: 'rejected', failureClass: 'unknown_tool', decision: 'reject_with_feedback', arguments: '{"path":"a.py","content":"x"}', guards: [{ guardName: 'tool_exists', stage: 'schema', verdict: 'fail', failureClass: 'unknown_tool' }] },
            // what the SDK's sanitizer recorded instead of the key the model sent
            { outcome: 'success', arguments: '{"path":"a.py","content":"key = [REDACTED KEY]"}' },
          ],
        },
      ],
    });
    const detail = await getSessionDetail(prisma, p.id, seeded.id);
    const call = detail?.steps.find((s): s is ToolCallStepDto => s.kind === 'tool') as ToolCallStepDto;
    const f = callFixture(p.id, seeded.id, call);
    expect(f.tool).toBe('create_file');
    expect(f.attempts.map((a) => [a.tool, a.argumentsInexact])).toEqual([['create_fil', false], ['create_file', true]]);
    expect(f.attempts[0]?.argumentsText).toBe('{"path":"a.py","content":"x"}');
    // said beside the copy button: the copied test cannot replay attempt 2 as recorded
    expect(fixtureCaveat(call)).toBe('Attempt #2 has arguments shortened or redacted when recorded: its test reports that attempt as not replayed, whatever the guards decide.');
    expect(fixtureCaveat({ ...call, attempts: call.attempts.slice(0, 1) })).toBeNull();
  });

  it('writes a vitest file that passes against the real tool and the real SDK, and fails against guards that let all through', { timeout: 240_000 }, async () => {
    const { projectId, sessionId, call } = await recordedCall();
    const snippet = vitestSnippet(callFixture(projectId, sessionId, call));
    const good = runVitest(project(snippet, realTool));
    expect(good.output).toMatch(/1 passed/);
    expect(good.status, good.output).toBe(0);
    const bad = runVitest(project(snippet, looseTool));
    expect(bad.status).not.toBe(0);
    expect(bad.output).toMatch(/1 failed/);
    expect(bad.output).toContain('newly_allowed');
  });
});
