#!/usr/bin/env node
// Bootstrap for `npm start` / `npm test` / `npm run bench` (and the same through pnpm) on a
// machine that has only Node: gets pnpm 12.4.2, installs the locked dependencies, then runs
// the real task. Plain JavaScript on purpose: nothing is installed when it starts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PNPM_VERSION = '12.4.2';
const task = process.argv[2];
const TASKS = { start: 'start:all', test: 'test:all', bench: 'bench:all' };
if (!(task in TASKS)) {
  console.error(`usage: node scripts/run.mjs <${Object.keys(TASKS).join('|')}>`);
  process.exit(2);
}

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`Guardtrace needs Node.js 20.19 or newer; this is ${process.version}.`);
  process.exit(1);
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts, env: { ...process.env, ...opts.env } });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

function quiet(cmd, args, env = process.env) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', env });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/**
 * A folder holding the pinned pnpm, put first on PATH for everything started from here: the
 * orchestrator, turbo (which execs the package manager's binary itself) and every task.
 * pnpm on PATH at the pinned version is used as it is; otherwise the pinned version is
 * installed from the npm registry into .guardtrace/pnpm (git-ignored) once.
 */
function pnpmBinDir() {
  if (quiet('pnpm', ['--version']) === PNPM_VERSION) return undefined;
  const prefix = path.join(root, '.guardtrace', 'pnpm');
  const bin = path.join(prefix, 'bin');
  const withBin = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
  if (quiet('pnpm', ['--version'], withBin) === PNPM_VERSION) return bin;
  console.log(`[guardtrace] installing pnpm ${PNPM_VERSION} into ${path.relative(root, prefix)} (once)`);
  mkdirSync(bin, { recursive: true });
  // Its own package.json: npm must not walk up into the workspace's.
  writeFileSync(path.join(prefix, 'package.json'), `${JSON.stringify({ private: true, name: 'guardtrace-pnpm' })}\n`);
  // No install scripts (an npm set to refuse them must work too): they only move pnpm's native
  // binary into place. Its wrapper finds that binary in the optional package npm installs.
  const status = run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock', `pnpm@${PNPM_VERSION}`], {
    cwd: prefix,
  });
  // The package's own `pnpm` bin is a shebang-less placeholder until its install script runs,
  // which a shell runs but a plain exec (turbo's) refuses: a shebang'd launcher instead.
  const launcher = path.join(bin, 'pnpm');
  const wrapper = path.join(prefix, 'node_modules', 'pnpm', 'bin', 'pnpm.mjs');
  writeFileSync(launcher, `#!/bin/sh\nexec node ${JSON.stringify(wrapper)} "$@"\n`, { mode: 0o755 });
  if (status !== 0 || quiet('pnpm', ['--version'], withBin) !== PNPM_VERSION) {
    console.error(`[guardtrace] could not install pnpm ${PNPM_VERSION} from the npm registry (npm exit ${status}).`);
    process.exit(1);
  }
  return bin;
}

function needsInstall() {
  const marker = path.join(root, 'node_modules', '.pnpm', 'lock.yaml');
  if (!existsSync(marker)) return true;
  return statSync(path.join(root, 'pnpm-lock.yaml')).mtimeMs > statSync(marker).mtimeMs;
}

/**
 * What the tests need from Debian, installed when missing and we may (root with apt):
 * Chromium for Playwright, faketime for the date-sensitive tests under fixed clocks, and
 * openssl, which makes the certificate of the https test of the session cookie.
 */
function ensureTestPackages() {
  const missing = [
    ['chromium', '/usr/bin/chromium'],
    ['faketime', '/usr/bin/faketime'],
    ['openssl', '/usr/bin/openssl'],
  ].filter(([, file]) => !existsSync(file));
  if (!missing.length || process.env.GUARDTRACE_SKIP_CHROMIUM_INSTALL) return;
  const names = missing.map(([name]) => name);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !existsSync('/usr/bin/apt-get')) {
    console.warn(`[guardtrace] not found: ${names.join(', ')}; install them (Debian: apt-get install ${names.join(' ')}).`);
    return;
  }
  console.log(`[guardtrace] installing ${names.join(', ')} from Debian packages for the tests`);
  if (run('apt-get', ['update', '-qq']) !== 0 || run('apt-get', ['install', '-y', '-qq', ...names]) !== 0) {
    console.warn(`[guardtrace] could not install ${names.join(', ')}.`);
  }
}

const bin = pnpmBinDir();
const env = {
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
  NEXT_TELEMETRY_DISABLED: '1',
  TURBO_TELEMETRY_DISABLED: '1',
  ...(bin ? { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` } : {}),
};
// By path: the pnpm that was checked, whatever else PATH holds.
const pnpm = bin ? path.join(bin, 'pnpm') : 'pnpm';
if (needsInstall()) {
  const status = run(pnpm, ['install', '--frozen-lockfile'], { env });
  if (status !== 0) process.exit(status);
}
if (task === 'test') ensureTestPackages();
// Ctrl-C reaches the whole process group: the task's own handler stops everything in order,
// and this process waits for it instead of dying first.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
const code =
  task === 'start'
    ? // No pnpm between us and the orchestrator: one less process to outlive the terminal.
      run(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'scripts/start.ts', ...process.argv.slice(3)], { env })
    : run(pnpm, ['run', TASKS[task], ...process.argv.slice(3)], { env });
process.exitCode = code;
