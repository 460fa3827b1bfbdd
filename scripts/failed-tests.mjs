#!/usr/bin/env node
// After a failed `npm test`: the failed tests of every package, gathered from the JSON reports
// the suites write (`reports/vitest.json`, `e2e/reports/playwright.json`) and printed last, so
// the end of a long interleaved log names them. With `--flaky`, instead the tests that failed
// and then passed on CI's retry (their first failure's message), so a retry never hides one.
// Only reports written since `--since <ms>` count (an older one is from another run).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sinceArg = process.argv.indexOf('--since');
const since = sinceArg > 0 ? Number(process.argv[sinceArg + 1]) : 0;
const flakyOnly = process.argv.includes('--flaky');

const MAX_MESSAGE = 1500;
const clip = (s) => {
  const t = stripVTControlCharacters(String(s))
    .split('\n')
    .filter((l) => !/^\s+at .*(node_modules|new Promise|node:internal)/.test(l))
    .join('\n');
  return t.length > MAX_MESSAGE ? `${t.slice(0, MAX_MESSAGE)}\n… (${t.length - MAX_MESSAGE} more characters)` : t;
};

/** Failures in a Vitest JSON report: [file, test, message]; with --flaky, the tests that passed after failing. */
function vitestFailures(report) {
  const out = [];
  if (flakyOnly) {
    for (const file of report.testResults ?? []) {
      for (const t of file.assertionResults ?? []) {
        if (t.status === 'passed' && t.failureMessages?.length) out.push([file.name, t.fullName ?? t.title, t.failureMessages.join('\n')]);
      }
    }
    return out;
  }
  for (const file of report.testResults ?? []) {
    const failed = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const t of failed) out.push([file.name, t.fullName ?? t.title, (t.failureMessages ?? []).join('\n')]);
    // A file that failed outside any test (a hook, an import, an unhandled error).
    if (file.status === 'failed' && failed.length === 0) out.push([file.name, '(the file itself)', file.message ?? '']);
  }
  // Every test passed and the run failed all the same: an error outside any test.
  if (report.success === false && out.length === 0) out.push(['', '(outside any test: an unhandled error, see this package\'s log)', '']);
  return out;
}

/** Failures in a Playwright JSON report (suites nest; a test fails when its last result did not pass). */
function playwrightFailures(report) {
  const out = [];
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        const last = test.results?.at(-1);
        const first = test.results?.[0];
        if (flakyOnly) {
          if (last?.status === 'passed' && first && first.status !== 'passed') {
            out.push([spec.file ?? suite.file, [...titles, spec.title].join(' › '), (first.errors ?? []).map((e) => e.message ?? '').join('\n')]);
          }
        } else if (last && last.status !== 'passed' && last.status !== 'skipped') {
          out.push([spec.file ?? suite.file, [...titles, spec.title].join(' › '), (last.errors ?? []).map((e) => e.message ?? '').join('\n')]);
        }
      }
    }
    for (const child of suite.suites ?? []) walk(child, child.title && !child.title.endsWith('.ts') ? [...titles, child.title] : titles);
  };
  for (const s of report.suites ?? []) walk(s, []);
  if (!flakyOnly) for (const e of report.errors ?? []) out.push(['(playwright)', '(outside any test)', e.message ?? '']);
  return out;
}

const reports = [];
for (const group of ['apps', 'packages', 'tools']) {
  const dir = path.join(root, group);
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir)) reports.push([`${group}/${name}`, path.join(dir, name, 'reports', 'vitest.json'), vitestFailures]);
}
reports.push(['e2e', path.join(root, 'e2e', 'reports', 'playwright.json'), playwrightFailures]);

let total = 0;
const lines = [];
for (const [pkg, file, read] of reports) {
  if (!existsSync(file) || statSync(file).mtimeMs < since) continue;
  let failures;
  try {
    failures = read(JSON.parse(readFileSync(file, 'utf8')));
  } catch (err) {
    lines.push(`${pkg}: its report ${path.relative(root, file)} could not be read (${err.message})`);
    continue;
  }
  for (const [testFile, title, message] of failures) {
    total += 1;
    lines.push(`${flakyOnly ? '↻' : '✗'} ${pkg}: ${testFile && path.isAbsolute(testFile) ? path.relative(path.join(root, pkg), testFile) : testFile} › ${title}`);
    if (message) lines.push(clip(message).replace(/^/gm, '    '));
  }
}
if (flakyOnly) {
  // Nothing to say when no test needed its retry.
  if (total > 0) console.log(`\n[guardtrace] flaky: ${total} test${total === 1 ? '' : 's'} failed, then passed on retry (first failure shown)`);
} else {
  console.log(`\n[guardtrace] failed tests, from the suites' reports: ${total === 0 ? 'none recorded (what failed is a lint, typecheck or knip task, or an error outside any test: turbo names the task above)' : total}`);
}
for (const l of lines) console.log(l);
