/**
 * `pnpm bench production` (`pnpm --filter @guardtrace/collector run bench:production`): the
 * load, fault and security figures of issue 13, measured against the built collector process
 * (dist/main.js, default settings unless a row says otherwise) on a throwaway embedded
 * Postgres, over real HTTP. Writes bench/production.json; scripts/bench.ts puts it in
 * docs/benchmarks.md. The package script builds dist/ first (esbuild, seconds), so the figures
 * are always of the code checked out.
 *
 * Knobs (environment): PRODBENCH_TRIES (refusal tries, 20), PRODBENCH_FLOOD_MS (each memory
 * flood, 15000), PRODBENCH_KILL_SPANS (spans sent around the kill -9, 10000),
 * PRODBENCH_OUTAGE_SECONDS (Postgres stopped, 20), PRODBENCH_ONLY (comma-separated parts:
 * input, fairness, malformed, floods, frozen, kill, outage; default all).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApiKey, createPrisma, createProject } from '@guardtrace/db';
import { createTestDatabase } from '@guardtrace/db/dev';
import pg from 'pg';
import { startCollectorProcess } from '../test/helpers.ts';
import { FLOOD_KINDS, flood } from './gzip-flood.ts';
import { tenantFairness } from './production-fairness.ts';
import { frozenDatabase, killUnderLoad, postgresStopped } from './production-faults.ts';
import { longSessionId, malformed, refusals, resentSpan, revokedKey, secrets, stalledUpload } from './production-input.ts';
import { type BenchKey, load, type Row } from './production-kit.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PARTS = ['input', 'fairness', 'malformed', 'floods', 'frozen', 'kill', 'outage'] as const;

function intEnv(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}=${v}: expected a positive integer`);
  return n;
}
// The issue's run: 20 tries of each refusal, 15 s floods of 64 clients, a 20 s outage.
const TRIES = intEnv('PRODBENCH_TRIES', 20);
const FLOOD_MS = intEnv('PRODBENCH_FLOOD_MS', 15_000);
// 10,000 spans: at 4 exports of 50 in flight, several seconds of load on each side of the kill.
const KILL_SPANS = intEnv('PRODBENCH_KILL_SPANS', 10_000);
const OUTAGE_SECONDS = intEnv('PRODBENCH_OUTAGE_SECONDS', 20);
const only = (process.env.PRODBENCH_ONLY ?? '').split(',').map((s) => s.trim()).filter(Boolean);
for (const p of only) if (!(PARTS as readonly string[]).includes(p)) throw new Error(`PRODBENCH_ONLY: unknown part "${p}"; expected some of ${PARTS.join(', ')}`);
const run = (part: (typeof PARTS)[number]) => !only.length || only.includes(part);

if (!existsSync(path.join(HERE, '../dist/main.js'))) throw new Error('apps/collector/dist/main.js is missing: run `pnpm --filter @guardtrace/collector build` first (the bench:production script does)');

const started = performance.now();
const date = new Date().toISOString();
const rows: Row[] = [];
const db = await createTestDatabase();
if (!db.server?.owned) throw new Error('the production benchmark freezes its Postgres: unset DATABASE_URL so it gets a throwaway one');
const sql = new pg.Pool({ connectionString: db.url, max: 2 });
sql.on('error', () => {});
const prisma = createPrisma(db.url, { max: 1 });
const newKey = async (): Promise<BenchKey> => {
  const project = await createProject(prisma, `prodbench-${randomBytes(3).toString('hex')}`);
  const k = await createApiKey(prisma, project.id, 'bench');
  return { key: k.key, keyId: k.id, projectId: project.id };
};
const { proc, url } = await startCollectorProcess(db.url, 0, { built: true });
const step = (what: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(0)} s, load ${load()}] ${what}`);
try {
  if (run('input')) {
    const k = await newKey();
    step('stalled upload (in the background), refusals');
    const stalled = stalledUpload(url, k.key);
    rows.push(...(await refusals(url, k.key, TRIES)));
    step('long session id, re-sent span, revoked key, secrets');
    rows.push(await longSessionId(url, k, sql));
    rows.push(await resentSpan(url, k, sql));
    rows.push(await revokedKey(url, prisma, await newKey()));
    rows.push(...(await secrets(url, await newKey(), sql)));
    step('waiting for the stalled upload');
    rows.push(await stalled);
  }
  if (run('fairness')) {
    step('tenant fairness: one project holding 64 sockets open, another exporting');
    rows.push(await tenantFairness(url, await newKey(), await newKey(), sql));
  }
  if (run('malformed')) {
    step('malformed corpus');
    rows.push(...(await malformed(db.url, await newKey(), sql)));
  }
  if (run('frozen')) {
    step('frozen database');
    const k = await newKey();
    rows.push(...(await frozenDatabase(url, sql, k, (await newKey()).key)));
  }
  if (run('kill')) {
    step('kill -9 under load');
    rows.push(await killUnderLoad(db.url, sql, await newKey(), KILL_SPANS));
  }
} finally {
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
  await prisma.$disconnect();
  await sql.end();
  await db.close();
}
if (run('outage')) {
  step(`Postgres stopped ${OUTAGE_SECONDS} s`);
  rows.push(await postgresStopped(OUTAGE_SECONDS));
}
if (run('floods')) {
  // Last, each with a fresh collector and database of its own (bench/gzip-flood.ts).
  for (const kind of FLOOD_KINDS) {
    step(`memory flood: ${kind}`);
    const r = await flood(kind, FLOOD_MS);
    rows.push({
      benchmark: `memory flood: ${kind}, ${r.clients} clients × ${(r.sentBytes / 1e6).toFixed(2)} MB bodies (${(r.decodedBytes / 1e6).toFixed(1)} MB decoded) for ${FLOOD_MS / 1000} s`,
      metric: 'peak RSS (idle); answers; refusals without Retry-After',
      value: `${r.peakRssMiB} MiB (${r.idleRssMiB}); ${Object.entries(r.statuses).map(([s, n]) => `${n} × ${s}`).join(', ')}; ${r.refusalsWithoutRetryAfter} (load ${load()})`,
      target: `≤ ${r.targetMiB} MiB (bound + 256 MiB); 0`,
      pass: r.met && r.refusalsWithoutRetryAfter === 0 && !('-1' in r.statuses),
    });
  }
}
const seconds = (performance.now() - started) / 1000;
const results = {
  rows,
  machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  date,
  method:
    'The built collector (node dist/main.js, default settings: 16 MiB body limit, 256 MiB in-flight bound, 5 s database wait, 30 s body ' +
    'timeout) runs as its own process on a throwaway embedded Postgres 18 on the same machine; every figure is over real HTTP. Refusals: a ' +
    `node:http client writes the whole body with Content-Length in 64 KiB chunks, ${TRIES} tries each, and counts the status it read or the ` +
    'write error. Malformed corpus: a second collector with a 1 MiB body limit (the corpus is made for it), 8 requests in flight. Frozen ' +
    'database: every process of the cluster stopped with SIGSTOP, then SIGCONT. Kill -9 and Postgres stopped: the real OpenTelemetry protobuf ' +
    'exporter with its own retries (5 attempts, Retry-After honoured); "lost" counts acknowledged spans missing afterwards; spans the exporter ' +
    'gave up on were never acknowledged (the exporter reports them failed). Memory floods: bench/gzip-flood.ts, a fresh collector each, RSS ' +
    `from /proc every 100 ms. Each value carries the 1-minute load average when it was measured (the machine is shared). Total ${seconds.toFixed(0)} s.`,
};
writeFileSync(path.join(HERE, 'production.json'), `${JSON.stringify(results, null, 2)}\n`);
console.table(rows.map((r) => ({ ...r, value: r.value.slice(0, 120) })));
console.log(`wrote bench/production.json (${seconds.toFixed(0)} s)`);
// Misses are figures too (the table says which): exit 0 so scripts/bench.ts publishes them.
process.exit(0);
