import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { traced } from '../../test/helpers.ts';
import { CommandGate } from './command-gate.ts';
import { insideWorkspace } from './files.ts';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

function tsProject(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'gt-gate-'));
  writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [] }, include: ['src'] }));
  writeFileSync(path.join(root, 'package.json'), '{"type":"module"}');
  return root;
}

describe('CommandGate with real tsc', () => {
  it('rolls back an edit that breaks the build and hands the diagnostics to the model; the fix passes', async () => {
    const root = tsProject();
    const file = path.join(root, 'src/routes.ts');
    mkdirSync(path.join(root, 'src'));
    writeFileSync(file, 'export const ok = 1;\n');
    const gate = new CommandGate({ command: process.execPath, args: [tsc, '-p', root], cwd: root, name: 'tsc' });
    const { gt, named } = traced();
    gt.tool({
      name: 'write_file',
      description: 'Write a file',
      schema: z.object({ path: z.string(), content: z.string() }),
      guards: [insideWorkspace({ root, paths: (a) => a.path }), gate.guard((a) => a.path)],
      execute: async (a) => {
        await writeFile(path.join(root, a.path), a.content);
        return { written: a.path };
      },
    });
    const s = gt.session({ agentName: 'file-agent' });
    const r1 = await s.callTool('write_file', { path: 'src/routes.ts', content: 'export function handle(req: UserRequest) { return req; }\n' });
    expect(r1).toMatchObject({ ok: false, failureClass: 'execution_feedback', decision: 'reject_with_feedback', awaitingCorrection: true });
    if (r1.ok) return;
    expect(r1.feedback).toContain('Validation failed after edit to src/routes.ts:');
    expect(r1.feedback).toContain("TypeScript error TS2304: Cannot find name 'UserRequest'. (src/routes.ts:1:29)");
    expect(readFileSync(file, 'utf8')).toBe('export const ok = 1;\n');

    const r2 = await s.callTool('write_file', { path: 'src/routes.ts', content: 'type UserRequest = { id: string };\nexport function handle(req: UserRequest) { return req; }\n' });
    expect(r2.ok).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain('type UserRequest');
    const gateSpans = named('apply_guardrail tsc');
    expect(gateSpans.map((g) => g.attributes['gen_ai.guardrail.verdict'])).toEqual(['fail', 'pass']);
    expect(gateSpans[0]?.attributes).toMatchObject({ 'guardtrace.guard.stage': 'post_execution', 'guardtrace.failure.class': 'execution_feedback', 'guardtrace.decision': 'reject_with_feedback' });
    expect(named('guardtrace.attempt')[0]?.attributes['guardtrace.outcome']).toBe('failed');
  }, 120_000);
});

describe('CommandGate batch with an eslint-style checker', () => {
  it('validates a batch of edits once and rolls back every file of the batch, removing new ones', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gt-batch-'));
    writeFileSync(path.join(root, 'a.js'), 'const a = 1;\n');
    // a real child process that prints ESLint's unix format for files containing "logger"
    writeFileSync(
      path.join(root, 'lint.mjs'),
      `import { readFileSync, existsSync } from 'node:fs';
let bad = 0;
for (const f of ['a.js', 'b.js']) {
  if (!existsSync(f)) continue;
  const lines = readFileSync(f, 'utf8').split('\\n');
  lines.forEach((l, i) => { if (l.includes('logger')) { bad++; console.log(process.cwd() + '/' + f + ':' + (i + 1) + ':7: \\'logger\\' is defined but never used. [Error/no-unused-vars]'); } });
}
console.log('\\n' + bad + ' problems');
process.exit(bad ? 1 : 0);
`,
    );
    const gate = new CommandGate({ command: process.execPath, args: ['lint.mjs'], cwd: root });
    const batch = await gate.begin(['a.js', 'b.js']);
    writeFileSync(path.join(root, 'a.js'), 'const a = 1;\nconst logger = console;\n');
    writeFileSync(path.join(root, 'b.js'), 'export const b = 2;\n');
    const r = await batch.validate();
    expect(r.ok).toBe(false);
    expect(r.diagnostics).toEqual([
      { tool: 'eslint', file: `${root}/a.js`, line: 2, column: 7, severity: 'error', code: 'no-unused-vars', message: "'logger' is defined but never used." },
    ]);
    expect(r.feedback).toContain("ESLint: 'logger' is defined but never used.");
    expect(r.rolledBack.sort()).toEqual(['a.js', 'b.js']);
    expect(readFileSync(path.join(root, 'a.js'), 'utf8')).toBe('const a = 1;\n');
    expect(existsSync(path.join(root, 'b.js'))).toBe(false);

    const ok = await (await gate.begin(['a.js'])).validate();
    expect(ok).toMatchObject({ ok: true, rolledBack: [] });
  });
});
