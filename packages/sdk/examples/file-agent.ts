/**
 * The third seed's file-editing agent: plan -> constrain (preconditions, locks) -> edit ->
 * validate (tsc --noEmit) -> retry or proceed, with a scripted model so it runs offline.
 *
 *   tsx examples/file-agent.ts            # prints each decision
 *   GUARDTRACE_ENDPOINT=... GUARDTRACE_API_KEY=... tsx examples/file-agent.ts   # also exports the session
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Tracer } from '@opentelemetry/api';
import { z } from 'zod';
import { replayInputTokens } from '../src/cost.ts';
import { CommandGate } from '../src/guards/command.ts';
import { fileExists, insideWorkspace, lineRange } from '../src/guards/files.ts';
import { resourceLock } from '../src/guards/generic.ts';
import { type CallResult, Guardtrace } from '../src/index.ts';
import { setupGuardtrace } from '../src/setup.ts';

const SEED_FILES: Record<string, string> = {
  'src/api/routes.ts': "import { logger } from '../utils/logger';\n\nexport function handle(id: string): string {\n  logger.info(id);\n  return id;\n}\n",
  'src/utils/logger.ts': 'export const logger = { info: (msg: string) => msg };\n',
  'src/components/Button.tsx': 'export const Button = (): string => "button";\n',
  'src/ui/Button.tsx': 'export const Button = (): string => "ui-button";\n',
  'tests/api.test.ts': "import { handle } from '../src/api/routes';\nhandle('1');\n",
};

/** A throwaway TypeScript workspace with the seed's files. */
export function createWorkspace(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'gt-file-agent-'));
  writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [], jsx: 'preserve' }, include: ['src', 'tests'] }));
  for (const [f, text] of Object.entries(SEED_FILES)) {
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    writeFileSync(path.join(root, f), text);
  }
  return root;
}

const editArgs = z.object({
  path: z.string().min(1).describe('Workspace-relative path'),
  start_line: z.number().int().positive(),
  end_line: z.number().int().positive(),
  new_content: z.string(),
});

export function registerFileTools(gt: Guardtrace, root: string, opts: { slowEditMs?: number } = {}): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const gate = new CommandGate({ command: process.execPath, args: [tsc, '-p', root], cwd: root, name: 'tsc --noEmit' });
  gt.tool({
    name: 'list_files',
    description: 'List files of the workspace',
    schema: z.object({ dir: z.string().default('.') }),
    flags: { readOnly: true },
    guards: [insideWorkspace({ root, paths: (a) => a.dir })],
    execute: async ({ dir }) => (await readdir(path.join(root, dir), { recursive: true })).map(String).sort(),
  });
  gt.tool({
    name: 'read_file',
    description: 'Read a workspace file',
    schema: z.object({ path: z.string().min(1) }),
    flags: { readOnly: true },
    guards: [insideWorkspace({ root, paths: (a) => a.path }), fileExists({ root, paths: (a) => a.path })],
    execute: async ({ path: p }) => readFile(path.join(root, p), 'utf8'),
  });
  gt.tool({
    name: 'edit_file',
    description: 'Replace lines start_line..end_line (1-based, inclusive) of a file',
    schema: editArgs,
    flags: { destructive: true },
    guards: [
      insideWorkspace({ root, paths: (a) => a.path }),
      fileExists({ root, paths: (a) => a.path }),
      lineRange({ root, path: (a) => a.path, start: (a) => a.start_line, end: (a) => a.end_line }),
      resourceLock({ resource: (a) => a.path }),
      gate.guard((a) => a.path),
    ],
    execute: async (a) => {
      const file = path.join(root, a.path);
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines.splice(a.start_line - 1, a.end_line - a.start_line + 1, ...a.new_content.replace(/\n$/, '').split('\n'));
      if (opts.slowEditMs) await new Promise((r) => setTimeout(r, opts.slowEditMs));
      await writeFile(file, lines.join('\n'));
      return { edited: a.path, lines: lines.length };
    },
  });
}

export interface FileAgentRun {
  sessionId: string;
  outcome: string;
  steps: { tool: string; ok: boolean; decision: string; feedback?: string }[];
  finalRoutes: string;
}

/** Runs the scripted file-editing session. Pass a tracer to export it (default: the global one). */
export async function runFileAgent(opts: { tracer?: Tracer; root?: string } = {}): Promise<FileAgentRun> {
  const root = opts.root ?? createWorkspace();
  const gt = new Guardtrace(opts.tracer ? { tracer: opts.tracer } : {});
  registerFileTools(gt, root, { slowEditMs: 30 });
  const s = gt.session({ agentName: 'file-agent', userId: 'dev-1' });
  const steps: FileAgentRun['steps'] = [];
  let step = 0;
  const turn = (out: number, repairs?: CallResult) => {
    step += 1;
    s.recordModelCall({ model: 'claude-sonnet-4-5', provider: 'anthropic', inputTokens: replayInputTokens(step), outputTokens: out, ...(repairs && !repairs.ok ? { repairs } : {}) });
  };
  const call = async (tool: string, args: unknown, callId: string) => {
    const r = await s.callTool(tool, args, { callId });
    steps.push({ tool, ok: r.ok, decision: r.ok ? 'proceed' : r.decision, ...(r.ok ? {} : { feedback: r.feedback }) });
    return r;
  };

  turn(120); // plan: look at the button the user mentioned
  const missing = await call('read_file', { path: 'componets/Button.tsx' }, 'toolu_01');
  turn(60, missing); // replan with the candidates offered
  await call('read_file', { path: 'src/components/Button.tsx' }, 'toolu_02');
  turn(200); // refactor routes.ts; a second edit of the same file is dispatched concurrently
  const firstP = call('edit_file', { path: 'src/api/routes.ts', start_line: 3, end_line: 3, new_content: 'export function handle(id: UserId): string {' }, 'toolu_03');
  let settled = false;
  void firstP.finally(() => { settled = true; });
  while (!settled && !gt.lockHolder('src/api/routes.ts')) await new Promise((r) => setImmediate(r)); // the first edit holds the file
  const second = await call('edit_file', { path: 'src/api/routes.ts', start_line: 4, end_line: 4, new_content: '  logger.info(String(id));' }, 'toolu_04');
  const first = await firstP;
  turn(180, first.ok ? second : first); // the compiler output is the feedback
  await call('edit_file', { path: 'src/api/routes.ts', start_line: 3, end_line: 3, new_content: 'export type UserId = string;\n\nexport function handle(id: UserId): string {' }, 'toolu_05');
  turn(40); // a stale view of logger.ts: the range guard answers with the real length
  const stale = await call('edit_file', { path: 'src/utils/logger.ts', start_line: 9, end_line: 12, new_content: '' }, 'toolu_06');
  turn(50, stale);
  await call('edit_file', { path: 'src/utils/logger.ts', start_line: 1, end_line: 1, new_content: 'export const logger = { info: (msg: string): string => msg };' }, 'toolu_07');
  turn(30);
  const outcome = await s.end();
  return { sessionId: s.id, outcome, steps, finalRoutes: readFileSync(path.join(root, 'src/api/routes.ts'), 'utf8') };
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const endpoint = process.env.GUARDTRACE_ENDPOINT;
  const apiKey = process.env.GUARDTRACE_API_KEY;
  const otel = endpoint && apiKey ? setupGuardtrace({ endpoint, apiKey, serviceName: 'file-agent-example' }) : undefined;
  const run = await runFileAgent(otel ? { tracer: otel.tracer } : {});
  for (const st of run.steps) console.log(`${st.tool.padEnd(10)} ${st.decision}${st.feedback ? `\n  ${st.feedback.replace(/\n/g, '\n  ')}` : ''}`);
  console.log(`session ${run.sessionId}: ${run.outcome}`);
  await otel?.shutdown();
}
