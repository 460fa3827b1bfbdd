#!/usr/bin/env node
// The date-sensitive tests, run again under fixed clocks (libfaketime, Debian's `faketime`):
// a month end, a year end, a leap day, and a month end seen from a time zone west of UTC. A
// test or code path that reads the wall clock's date where it should take a date as a
// parameter fails here on some of them. Part of `npm test` (`pnpm test:all`).
import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// [clock at start (it runs on from there), TZ]
const CLOCKS = [
  ['2026-11-30 23:59:30', 'UTC'],
  ['2027-12-31 23:59:30', 'UTC'],
  ['2028-02-29 12:00:00', 'UTC'],
  // 03:59:30 UTC on April 1st; a day whose partitions were made ahead of March's tests once
  // made them fail (the partition test expected to create 2027-02 to 2027-05 itself).
  ['2027-03-31 20:59:30', 'America/Los_Angeles'],
];

// Each package's tests that look at dates: partitions and retention, the writeback pacer's
// file times, throwaway folders' ages, analytics ranges, session times, Retry-After dates.
const SUITES = [
  ['packages/db', ['test/partitions.test.ts']],
  ['packages/dev-postgres', ['test/writeback.test.ts', 'test/throwaway.test.ts']],
  ['apps/web', ['test/analytics.test.ts', 'test/sessions.test.ts', 'test/sessions-paging.test.ts']],
  ['apps/collector', ['test/ingest.test.ts', 'test/ops.test.ts']],
  // the runtime's tests: Retry-After dates, the repair-token window, backoff on the injected clock
  ['packages/sdk', ['src/classify.test.ts', 'test/span-tree.test.ts', 'test/corrections.test.ts', 'test/retries.test.ts', 'test/budgets.test.ts']],
];

if (spawnSync('faketime', ['--version'], { stdio: 'ignore' }).error) {
  console.error('date-matrix: `faketime` is not installed (Debian: apt-get install faketime); `npm test` installs it when it runs as root.');
  process.exit(1);
}

// Two runs at a time (CI has two cores; most of a run is Postgres starting and tests waiting).
const PARALLEL = Math.max(1, Math.min(2, os.availableParallelism?.() ?? os.cpus().length));

function runOne(clock, tz, dir, files) {
  const vitest = path.join(root, dir, 'node_modules/.bin/vitest');
  return new Promise((resolve) => {
    const child = spawn('faketime', [clock, vitest, 'run', '--reporter=dot', ...files], {
      cwd: path.join(root, dir),
      // Dates only: timers and timeouts keep the real monotonic clock.
      env: { ...process.env, TZ: tz, FAKETIME_DONT_FAKE_MONOTONIC: '1', NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', (err) => resolve({ status: 1, stdout, stderr: `${stderr}${err.message}\n` }));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const runs = CLOCKS.flatMap(([clock, tz]) => SUITES.map(([dir, files]) => ({ clock, tz, dir, files })));
let failed = 0;
let next = 0;
async function worker() {
  while (next < runs.length) {
    const { clock, tz, dir, files } = runs[next++];
    const r = await runOne(clock, tz, dir, files);
    const tests = /Tests\s+(.*)/.exec(r.stdout)?.[1]?.trim() ?? 'no result';
    // One block per run, written whole, so two runs' output never interleaves.
    let out = `date-matrix: ${clock} ${tz} ${dir}: ${tests}\n`;
    if (r.status !== 0) {
      failed++;
      out += r.stdout + r.stderr;
    }
    process.stdout.write(out);
  }
}
await Promise.all(Array.from({ length: PARALLEL }, worker));
console.log(`date-matrix: ${runs.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
