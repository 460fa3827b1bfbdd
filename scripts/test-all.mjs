#!/usr/bin/env node
// `npm test` once pnpm and the dependencies are there (`pnpm test:all`): the builds, then the
// browser tests beside every other package's lint, typecheck, tests and knip (turbo, at the lowest
// CPU priority) followed by the date-sensitive tests under fixed clocks (scripts/date-matrix.mjs); on a
// failure, the failed tests named last (scripts/failed-tests.mjs), since a long interleaved log
// scrolls them away; else the tests that passed only on CI's retry.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root });
  if (r.error) throw r.error;
  return r.status ?? 1;
};

const started = Date.now();
/** A command run beside others (at the lowest CPU priority with `low`); resolves with its exit status. */
const runBeside = (cmd, args, { low = false } = {}) =>
  new Promise((resolve, reject) => {
    const [file, argv] = low && niceWorks ? ['nice', ['-n', '19', cmd, ...args]] : [cmd, args];
    const child = spawn(file, argv, { stdio: 'inherit', cwd: root });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code ?? 1));
  });
const turboRun = (...args) => ['run', ...args, '--continue', '--output-logs=new-only'];
const niceWorks = process.platform !== 'win32' && spawnSync('nice', ['-n', '19', 'true']).status === 0;

// The browser tests (13-15 minutes on 2 cores, the longest task by far, much of it waiting on
// real time: an alert's backoff and window) run beside everything else rather than in turbo's
// queue: turbo started them after every other task, so they ran alone at the end with one of its
// two slots idle (a clean-clone run on 2026-12-07: 21.8 minutes in turbo, the last 14 of them
// the browser tests alone). The rest runs at the lowest CPU priority (nice 19; its test databases
// inherit it): at equal priority it slowed the browser tests to 22 minutes and made one flaky
// (25.4 minutes in all, no gain); so it takes the time they leave. The builds they and the
// packed-SDK check need come first, so the two turbo runs below never build the same package at once.
const built = run('turbo', ['run', 'build', '--concurrency=2', '--output-logs=new-only']);
if (built !== 0) process.exit(built);
const [browser, rest] = await Promise.all([
  runBeside('turbo', turboRun('test', '--filter=@guardtrace/e2e')),
  runBeside('turbo', turboRun('lint', 'typecheck', 'test', 'knip', '--filter=!@guardtrace/e2e', '--concurrency=2'), { low: true }).then(async (code) => {
    const own = await runBeside('turbo', turboRun('lint', 'typecheck', '--filter=@guardtrace/e2e'), { low: true });
    // The date-sensitive tests under fixed clocks, once the suites they repeat have passed.
    return code || own || (await runBeside(process.execPath, [path.join(root, 'scripts', 'date-matrix.mjs')], { low: true }));
  }),
]);
const failed = browser || rest;
if (failed !== 0) {
  run(process.execPath, [path.join(root, 'scripts', 'failed-tests.mjs'), '--since', String(started)]);
  process.exit(failed);
}
// The tests that needed CI's retry, named even when everything passed.
run(process.execPath, [path.join(root, 'scripts', 'failed-tests.mjs'), '--since', String(started), '--flaky']);
