import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pointersOfValues } from '../pointer.ts';
import type { Guard, GuardOutcome } from '../types.ts';
import { type Diagnostic, diagnosticsFeedback, parseDiagnostics } from './diagnostics.ts';
import { type PathsOf, pathsOf, resolveInside } from './paths.ts';

export interface CommandGateOptions {
  /** Executable, e.g. `node_modules/.bin/tsc` or `npx`. */
  command: string;
  args?: string[];
  /** Working directory (the workspace root). */
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Kill the command after this long (default 60 s: a compile gate, not a test suite). */
  timeoutMs?: number;
  name?: string;
}

export interface GateResult {
  ok: boolean;
  exitCode: number | null;
  output: string;
  diagnostics: Diagnostic[];
  feedback?: string;
  rolledBack: string[];
}

/** Runs a command, collecting stdout and stderr together. */
export function runCommand(opts: CommandGateOptions): Promise<{ exitCode: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(opts.command, opts.args ?? [], { cwd: opts.cwd, env: { ...process.env, ...opts.env, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => { output += c.toString('utf8'); });
    child.stderr.on('data', (c: Buffer) => { output += c.toString('utf8'); });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ exitCode: null, output: `${output}\n${err.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ exitCode: code, output });
    });
  });
}

/** Contents of files before an edit (null: the file did not exist), to roll back to. */
export class FileSnapshot {
  private constructor(readonly root: string, private readonly saved: Map<string, string | null>) {}

  static async take(root: string, files: string[]): Promise<FileSnapshot> {
    const saved = new Map<string, string | null>();
    for (const f of files) {
      const abs = resolveInside(root, f);
      if (abs === undefined || saved.has(abs)) continue;
      saved.set(abs, await readFile(abs, 'utf8').catch(() => null));
    }
    return new FileSnapshot(root, saved);
  }

  /** Restores every file; returns the workspace-relative paths restored. */
  async restore(): Promise<string[]> {
    const done: string[] = [];
    for (const [abs, text] of this.saved) {
      if (text === null) await rm(abs, { force: true });
      else {
        await mkdir(path.dirname(abs), { recursive: true });
        await writeFile(abs, text);
      }
      done.push(path.relative(this.root, abs).split(path.sep).join('/'));
    }
    return done;
  }
}

/**
 * A post-execution gate: run a command (tsc --noEmit, eslint, a fast test) after an edit or
 * an edit batch; on failure roll the files back and hand the parsed diagnostics to the model.
 */
export class CommandGate {
  constructor(readonly opts: CommandGateOptions) {}

  /** Snapshot `files`, then call `validate()` after the edits of the batch. */
  async begin(files: string[]): Promise<{ validate(): Promise<GateResult> }> {
    const snap = await FileSnapshot.take(this.opts.cwd, files);
    return { validate: () => this.#validate(files, snap) };
  }

  async #validate(files: string[], snap: FileSnapshot): Promise<GateResult> {
    const { exitCode, output } = await runCommand(this.opts);
    const diagnostics = parseDiagnostics(output);
    const ok = exitCode === 0;
    if (ok) return { ok, exitCode, output, diagnostics, rolledBack: [] };
    const rolledBack = await snap.restore();
    return { ok, exitCode, output, diagnostics, rolledBack, feedback: diagnosticsFeedback(files, diagnostics, output) };
  }

  /** The gate as a tool guard (stage `post_execution`), snapshotting the files the call names. */
  guard<A>(files: PathsOf<A>): Guard<A> {
    const name = this.opts.name ?? `gate:${path.basename(this.opts.command)}`;
    const { cwd } = this.opts;
    const sameFile = (a: string, b: string): boolean => path.resolve(cwd, a) === path.resolve(cwd, b);
    return {
      name,
      stage: 'post_execution',
      // the working directory and environment are deployment: left out of the fingerprint
      options: { command: this.opts.command, args: this.opts.args ?? [], timeoutMs: this.opts.timeoutMs ?? 60_000, files },
      prepare: (args, ctx) => {
        const paths = pathsOf(files, args, { guard: name, tool: ctx.tool });
        return Array.isArray(paths) ? this.begin(paths) : { misconfigured: paths };
      },
      async check(args, ctx): Promise<GuardOutcome> {
        const prepared = ctx.prepared as { validate(): Promise<GateResult> } | { misconfigured: GuardOutcome };
        if ('misconfigured' in prepared) return prepared.misconfigured;
        const batch = prepared;
        const r = await batch.validate();
        if (r.ok) return { pass: true };
        const first = r.diagnostics[0];
        const reason = first ? `${r.diagnostics.length} diagnostics, first ${first.file}:${first.line} ${first.code ?? ''} ${first.message}`.replace(/\s+/g, ' ') : `exit code ${r.exitCode}`;
        // the file arguments the diagnostics name: the fields whose edit broke the build
        const named = pathsOf(files, args, { guard: name, tool: ctx.tool });
        const broken = Array.isArray(named) ? named.filter((p) => r.diagnostics.some((d) => sameFile(d.file, p))) : [];
        const pointers = pointersOfValues(args, broken);
        return { pass: false, reason, feedback: r.feedback ?? reason, failureClass: 'execution_feedback', ...(pointers.length > 0 ? { pointers } : {}) };
      },
    };
  }
}
