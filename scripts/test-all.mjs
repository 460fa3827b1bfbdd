#!/usr/bin/env node
// `npm test` once pnpm and the dependencies are there (`pnpm test:all`): every package's lint,
// typecheck, tests and knip through turbo, two at a time; on a failure, the failed tests named
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
// The browser tests (13-15 minutes on 2 cores) end the run alone: turbo starts them last. Running
// them beside the other suites was measured on clean clones on 2026-12-07 and did not pay: at
// equal priority 25.4 minutes in all (browser tests 22.0), with the others at nice 19 24.5 minutes
// (21.3), each with a test flaky under the load, against 23.2 minutes this way.
const turbo = run('turbo', ['run', 'lint', 'typecheck', 'test', 'knip', '--concurrency=2', '--continue', '--output-logs=new-only']);
if (turbo !== 0) {
  run(process.execPath, [path.join(root, 'scripts', 'failed-tests.mjs'), '--since', String(started)]);
  process.exit(turbo);
}
// The tests that needed CI's retry, named even when everything passed.
run(process.execPath, [path.join(root, 'scripts', 'failed-tests.mjs'), '--since', String(started), '--flaky']);
process.exit(run(process.execPath, [path.join(root, 'scripts', 'date-matrix.mjs')]));
