#!/usr/bin/env node
// Bootstrap for `npm start` / `npm test` / `npm run bench` (and the same through pnpm) on a
// machine that has only Node: gets pnpm 12.4.2, installs the locked dependencies, then runs
// the real task. Plain JavaScript on purpose: nothing is installed when it starts.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
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

function quiet(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** pnpm on PATH at the pinned version, else npm's exec of the pinned version (downloaded once from the npm registry). */
function pnpmCommand() {
  if (quiet('pnpm', ['--version']) === PNPM_VERSION) return ['pnpm', []];
  console.log(`[guardtrace] using pnpm ${PNPM_VERSION} through npm exec`);
  return ['npm', ['exec', '--yes', `--package=pnpm@${PNPM_VERSION}`, '--', 'pnpm']];
}

function needsInstall() {
  const marker = path.join(root, 'node_modules', '.pnpm', 'lock.yaml');
  if (!existsSync(marker)) return true;
  return statSync(path.join(root, 'pnpm-lock.yaml')).mtimeMs > statSync(marker).mtimeMs;
}

/** Playwright uses Debian's Chromium; install it when missing and we may (root with apt). */
function ensureChromium() {
  if (existsSync('/usr/bin/chromium') || process.env.GUARDTRACE_SKIP_CHROMIUM_INSTALL) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !existsSync('/usr/bin/apt-get')) {
    console.warn('[guardtrace] /usr/bin/chromium not found; Playwright will look for its own browser.');
    return;
  }
  console.log('[guardtrace] installing Chromium from Debian packages for the browser tests');
  if (run('apt-get', ['update', '-qq']) !== 0 || run('apt-get', ['install', '-y', '-qq', 'chromium']) !== 0) {
    console.warn('[guardtrace] could not install chromium; Playwright will look for its own browser.');
  }
}

const [pnpm, pre] = pnpmCommand();
const env = { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', NEXT_TELEMETRY_DISABLED: '1', TURBO_TELEMETRY_DISABLED: '1' };
if (needsInstall()) {
  const status = run(pnpm, [...pre, 'install', '--frozen-lockfile'], { env });
  if (status !== 0) process.exit(status);
}
if (task === 'test') ensureChromium();
// Ctrl-C reaches the whole process group: the task's own handler stops everything in order,
// and this process waits for it instead of dying first.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
const code =
  task === 'start'
    ? // No pnpm between us and the orchestrator: one less process to outlive the terminal.
      run(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'scripts/start.ts', ...process.argv.slice(3)], { env })
    : run(pnpm, [...pre, 'run', TASKS[task], ...process.argv.slice(3)], { env });
process.exitCode = code;
