/**
 * Builds and packs a workspace package the way it is published (pnpm applies publishConfig
 * and rewrites workspace:/catalog: versions), then lints the tarball with publint and
 * @arethetypeswrong/cli. Nothing is reused between runs: each call builds afresh into the
 * package's dist/ and packs into the given folder.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const PACKAGES = { semconv: path.join(ROOT, 'packages/semconv'), sdk: path.join(ROOT, 'packages/sdk'), mcp: path.join(ROOT, 'packages/mcp') } as const;

const BIN = path.join(ROOT, 'tools/package-check/node_modules/.bin');

export interface Run {
  status: number | null;
  output: string;
}

export function run(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Run {
  const r = spawnSync(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, encoding: 'utf8', timeout: opts.timeoutMs ?? 180_000 });
  return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

/**
 * `run` without blocking the caller's event loop: its own keep-alive sockets stay serviced
 * meanwhile, so one the server closed while the command ran is dropped, not reused by the next
 * request (a fetch after a long spawnSync failed with "other side closed" that way).
 */
export function runAsync(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, timeout: opts.timeoutMs ?? 180_000 });
    let stdout = '';
    let stderr = '';
    let failure = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', (e) => {
      failure = String(e);
    });
    child.on('close', (code) => resolve({ status: code, output: `${stdout}${stderr}${failure}` }));
  });
}

/** npm in a throwaway project sees none of pnpm's npm_config_* or the workspace. */
export function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(npm_|pnpm_|PNPM_|NODE_OPTIONS$|NODE_PATH$|INIT_CWD$)/.test(k)) env[k] = v;
  return env;
}

function must(r: Run, what: string): Run {
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}):\n${r.output}`);
  return r;
}

/** `pnpm run build` then `pnpm pack` into `dest`; returns the tarball's path. */
export function buildAndPack(dir: string, dest: string): string {
  must(run('pnpm', ['run', 'build'], { cwd: dir }), `build of ${dir}`);
  const before = new Set(readdirSync(dest));
  must(run('pnpm', ['pack', '--pack-destination', dest], { cwd: dir }), `pnpm pack of ${dir}`);
  const made = readdirSync(dest).filter((f) => f.endsWith('.tgz') && !before.has(f));
  if (made.length !== 1) throw new Error(`pnpm pack of ${dir} made ${made.length} tarballs in ${dest}`);
  return path.join(dest, made[0]!);
}

/** publint --strict (warnings fail too) on the tarball. */
export function publint(tgz: string): Run {
  return run(path.join(BIN, 'publint'), [tgz, '--strict'], { cwd: path.dirname(tgz) });
}

/**
 * attw on the local tarball (offline), every resolution: node10 (TypeScript's pre-`exports`
 * resolution, still the default of `module: commonjs` projects; subpaths resolve through
 * typesVersions), node16 from ESM and from CJS, and bundler.
 */
export function attw(tgz: string): Run {
  return run(path.join(BIN, 'attw'), [tgz, '--format', 'table-flipped'], { cwd: path.dirname(tgz) });
}
