#!/usr/bin/env node
// `npm test` once pnpm and the dependencies are there (`pnpm test:all`): the builds, then every
// package's lint, typecheck, tests and knip through turbo, two at a time; on a failure, the failed tests named
// last (scripts/failed-tests.mjs), since a long interleaved log scrolls them away; else the
// tests that passed only on CI's retry, then the date-sensitive tests under fixed clocks
// (scripts/date-matrix.mjs).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root });
  if (r.error) throw r.error;
  return r.status ?? 1;
};

const started = Date.now();
// The builds first: the browser tests (13-15 minutes on 2 cores, the longest task by far) wait
// for the collector's and the web app's builds, and turbo starts tasks in the order they become
// ready, so with the builds still to do they started after every other test and ran alone at the
// end (a clean-clone run of 2026-12-07: 21.8 minutes in turbo, the last 14 of them with one slot
// idle). Built here, they are cache hits below and the browser tests start among the first tasks.
const built = run('turbo', ['run', 'build', '--concurrency=2', '--output-logs=new-only']);
if (built !== 0) process.exit(built);
const turbo = run('turbo', ['run', 'lint', 'typecheck', 'test', 'knip', '--concurrency=2', '--continue', '--output-logs=new-only']);
if (turbo !== 0) {
  run(process.execPath, [path.join(root, 'scripts', 'failed-tests.mjs'), '--since', String(started)]);
  process.exit(turbo);
}
// The tests that needed CI's retry, named even when everything passed.
run(process.execPath, [path.join(root, 'scripts', 'failed-tests.mjs'), '--since', String(started), '--flaky']);
process.exit(run(process.execPath, [path.join(root, 'scripts', 'date-matrix.mjs')]));
