/**
 * `pnpm bench`: runs every package's benchmark (its `bench` script), each of which writes
 * `bench/results.json`, and merges them into docs/benchmarks.md. Benchmarks never run in tests.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './system.ts';

interface Row {
  benchmark: string;
  metric: string;
  value: string;
  target: string;
  pass: boolean;
}
interface Results {
  rows: Row[];
  machine?: string;
  date?: string;
  method?: string;
}

interface Bench {
  name: string;
  dir: string;
  title: string;
  /** Its package.json script (default `bench`) and the results file it writes (default bench/results.json). */
  script?: string;
  results?: string;
  /** Long benchmarks run only when named on the command line (`pnpm bench web-scale`). */
  optIn?: string;
  /** Hand-written notes shown under its table (default bench/notes.md of its package; '' for none). */
  notes?: string;
}

const PACKAGES: Bench[] = [
  { name: '@guardtrace/sdk', dir: 'packages/sdk', title: 'SDK (guard runtime)' },
  {
    name: '@guardtrace/sdk',
    dir: 'packages/sdk',
    title: 'Guard regression replay (`@guardtrace/sdk/replay`, 100,000 recorded calls)',
    script: 'bench:guard-replay',
    results: 'bench/guard-replay.json',
    notes: 'bench/guard-replay-notes.md',
  },
  { name: '@guardtrace/mcp', dir: 'packages/mcp', title: 'MCP guard proxy (`guardtrace-mcp`)' },
  { name: '@guardtrace/collector', dir: 'apps/collector', title: 'Collector (OTLP ingest)' },
  { name: '@guardtrace/db', dir: 'packages/db', title: 'Database (the explorer search text at ingest)' },
  {
    name: '@guardtrace/db',
    dir: 'packages/db',
    title: 'Dataset creation from an explorer query (100,000 calls in 50,000 sessions)',
    script: 'bench:datasets',
    results: 'bench/datasets.json',
    notes: 'bench/datasets-notes.md',
  },
  { name: '@guardtrace/web', dir: 'apps/web', title: 'Web app (page queries)' },
  { name: '@guardtrace/e2e', dir: 'e2e', title: 'Start-up (`npm start`)' },
  {
    name: '@guardtrace/e2e',
    dir: 'e2e',
    title: 'Web app at scale (server time over HTTP, `pnpm bench web-scale`)',
    script: 'bench:web-scale',
    results: 'bench/web-scale.json',
    optIn: 'web-scale',
    notes: 'bench/web-scale-notes.md',
  },
  {
    name: '@guardtrace/e2e',
    dir: 'e2e',
    title: 'Capacity: CPU a span and Postgres size per million spans (`pnpm bench capacity`, docs/deployment.md)',
    script: 'bench:capacity',
    results: 'bench/capacity.json',
    optIn: 'capacity',
    notes: '',
  },
  // A package with more than one benchmark names each one's script and results file.
  {
    name: '@guardtrace/e2e',
    dir: 'e2e',
    title: 'Replay in Chromium (5,000-span sessions)',
    script: 'bench:replay',
    results: 'bench/replay-results.json',
    notes: 'bench/replay-notes.md',
  },
  {
    name: '@guardtrace/collector',
    dir: 'apps/collector',
    title: 'Collector under load, faults and hostile input (`pnpm bench production`)',
    script: 'bench:production',
    results: 'bench/production.json',
    optIn: 'production',
    notes: 'bench/production-notes.md',
  },
  { name: '@guardtrace/web', dir: 'apps/web', title: 'Sign-in password hashing (argon2id, `pnpm bench argon2`)', script: 'bench:argon2', results: 'bench/argon2.json', notes: 'bench/argon2-notes.md' },
];
const only = process.argv.slice(2);

const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ${os.platform()} ${os.release()}, Node ${process.version}`;
const sections: string[] = [];
let failed = false;

for (const pkg of PACKAGES) {
  const script = pkg.script ?? 'bench';
  const selected = pkg.optIn
    ? only.includes(pkg.optIn)
    : !only.length || only.some((o) => pkg.name.includes(o) || script.includes(o));
  const manifest = JSON.parse(readFileSync(path.join(ROOT, pkg.dir, 'package.json'), 'utf8'));
  const resultsFile = path.join(ROOT, pkg.dir, pkg.results ?? 'bench/results.json');
  let results: Results = { rows: [] };
  let note = '';
  if (!manifest.scripts?.[script] || !existsSync(path.join(ROOT, pkg.dir, 'bench'))) {
    note = 'No benchmark yet.';
  } else if (!selected) {
    // Not asked for this time: keep its last results in the page.
    if (existsSync(resultsFile)) results = JSON.parse(readFileSync(resultsFile, 'utf8')) as Results;
    else note = pkg.optIn ? `Not run yet (long: \`pnpm bench ${pkg.optIn}\`).` : 'Not run yet.';
  } else {
    console.log(`\n== ${pkg.name} ${script} ==`);
    const r = spawnSync('pnpm', ['--filter', pkg.name, 'run', script], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) {
      failed = true;
      note = `The benchmark failed (exit ${r.status}).`;
    } else if (existsSync(resultsFile)) {
      results = JSON.parse(readFileSync(resultsFile, 'utf8')) as Results;
    } else {
      note = 'The benchmark wrote no bench/results.json.';
    }
  }
  const lines = [`## ${pkg.title}`, ''];
  if (results.method) lines.push(`Method: ${results.method}`, '');
  if (results.date) lines.push(`Run: ${results.date}${results.machine ? ` on ${results.machine}` : ''}`, '');
  lines.push('| benchmark | metric | value | target | met |', '| --- | --- | --- | --- | --- |');
  for (const row of results.rows) {
    lines.push(`| ${row.benchmark} | ${row.metric} | ${row.value} | ${row.target} | ${row.pass ? 'yes' : 'no'} |`);
  }
  if (!results.rows.length) lines.push('| — | — | — | — | — |');
  if (note) lines.push('', note);
  // Measurements made once by hand (a before/after of a change, say) stay in the page beside the table.
  const notesFile = path.join(ROOT, pkg.dir, pkg.notes ?? 'bench/notes.md');
  if (pkg.notes !== '' && existsSync(notesFile)) lines.push('', readFileSync(notesFile, 'utf8').trim());
  sections.push(lines.join('\n'));
}

const doc = [
  '# Benchmarks',
  '',
  'Written by `pnpm bench` (scripts/bench.ts); do not edit by hand. Each package\'s `bench` script',
  'measures its own numbers and compares side by side in one run (ratios), because these machines are',
  'noisy. Benchmarks never run inside the test suite.',
  '',
  `Machine: ${machine}. Date: ${new Date().toISOString()}.`,
  '',
  ...sections.flatMap((s) => [s, '']),
].join('\n');
writeFileSync(path.join(ROOT, 'docs/benchmarks.md'), doc);
console.log('\nwrote docs/benchmarks.md');
process.exit(failed ? 1 : 0);
