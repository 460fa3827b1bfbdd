/**
 * `pnpm --filter @guardtrace/sdk bench:guard-replay`: guard regression replay of 100,000
 * recorded calls (NDJSON, streamed from a file with `readDatasetFile`) through a schema guard, a
 * path guard (`insideWorkspace` with folders) and the SQL guard (`sqlHeuristics`, a real
 * parser), against a changed definition (a folder removed, a table marked large). Target: at
 * most 60 s, memory flat while streaming (peak RSS after 10k and after 100k calls). Side by side
 * in the same run: reading and parsing the same file without replaying (the floor).
 * Writes bench/guard-replay.json for docs/benchmarks.md.
 *
 * The replay runs in a child process of its own (`--child`), so its peak RSS is its own.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DATASET_ITEM_FORMAT, type DatasetItem, Guardtrace, toolDefinition } from '../src/index.ts';
import { insideWorkspace } from '../src/guards/files.ts';
import { sqlHeuristics } from '../src/guards/sql.ts';
import { readDatasetFile, replayDataset } from '../src/replay/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const CALLS = 100_000;
const CALLS_PER_SESSION = 5;
const CHECKPOINTS = [10_000, CALLS];
const HEAP_CAP_MIB = 128;

interface Version { folders: string[]; largeTables: string[] }
const V1: Version = { folders: ['src', 'docs', 'test'], largeTables: ['events'] };
const V2: Version = { folders: ['src', 'test'], largeTables: ['events', 'orders'] };

function tools(v: Version): Guardtrace {
  const gt = new Guardtrace({ tracing: false });
  gt.tool({
    name: 'read_file', description: 'r', flags: { readOnly: true },
    schema: z.object({ path: z.string(), offset: z.number().int().min(0).optional() }),
    guards: [insideWorkspace<{ path: string }>({ root: '/srv/workspace', paths: (a) => a.path, folders: v.folders })],
    execute: () => '',
  });
  gt.tool({
    name: 'query_db', description: 'q', flags: { readOnly: true },
    schema: z.object({ sql: z.string(), limit: z.number().int().max(1000).optional() }),
    guards: [sqlHeuristics<{ sql: string }>({ sql: (a) => a.sql, largeTables: v.largeTables })],
    execute: () => [],
  });
  return gt;
}

/** Argument shapes; item i uses shape i % n, with its own numbers so no two lines are equal. */
function args(i: number): [string, Record<string, unknown>] {
  const k = i % 10;
  const n = Math.floor(i / 10);
  switch (k) {
    case 0: return ['read_file', { path: `src/module${n % 500}/file${n}.ts` }];
    case 1: return ['read_file', { path: `docs/guide${n % 50}.md`, offset: n % 100 }];
    case 2: return ['read_file', { path: `../outside${n}` }];
    case 3: return ['read_file', { path: `test/spec${n}.ts`, offset: -1 }];
    case 4: return ['query_db', { sql: `SELECT id, name FROM users WHERE id = ${n}` }];
    case 5: return ['query_db', { sql: `SELECT * FROM orders WHERE customer_id = ${n}`, limit: 50 }];
    case 6: return ['query_db', { sql: `SELECT * FROM events WHERE day = '2026-11-${String((n % 28) + 1).padStart(2, '0')}'` }];
    case 7: return ['query_db', { sql: `UPDATE users SET active = false WHERE id = ${n}` }];
    case 8: return ['query_db', { sql: `DELETE FROM sessions` }];
    default: return ['query_db', { sql: `SELECT u.id, o.total FROM users u JOIN orders o ON o.user_id = u.id WHERE u.id = ${n}`, limit: 2000 }];
  }
}

/** Writes the dataset as production (v1) decided it: each call's recorded decision from `gt.check` under v1. */
async function writeDataset(file: string): Promise<void> {
  const v1 = tools(V1);
  const defs = new Map(v1.tools().map((t) => [t.name, toolDefinition(t)]));
  const out = createWriteStream(file);
  for (let i = 0; i < CALLS; i++) {
    const [tool, a] = args(i);
    const r = await v1.check(tool, a);
    const last = r.attempts.at(-1);
    const sessionId = `sess-${Math.floor(i / CALLS_PER_SESSION)}`;
    const item: DatasetItem = {
      format: DATASET_ITEM_FORMAT, id: `t${i}:s${i}`, sessionId, traceId: `t${i}`, spanId: `s${i}`,
      stepPath: `/sessions/${sessionId}?call=s${i}`, tool, callId: `call_${i}`, startedAt: '2026-11-20T10:00:00.000Z',
      definition: { hash: defs.get(tool)?.hash ?? null, summary: defs.get(tool)?.summary ?? null },
      outcome: r.allowed ? 'success' : 'rejected', failureClass: r.failureClass,
      attempts: [{
        number: 1, arguments: a, outcome: r.allowed ? 'success' : 'rejected', decision: r.decision, failureClass: r.failureClass, feedback: r.feedback,
        checks: (last?.guards ?? []).map((g) => ({ guard: g.name, stage: g.stage, verdict: g.verdict, reason: g.reason ?? null, failureClass: g.verdict === 'fail' ? r.failureClass : null, pointers: g.pointers ?? [] })),
      }],
    };
    if (!out.write(`${JSON.stringify(item)}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

/** `read`: the floor; `same`: replay against v1 (nothing changes, nothing kept); `replay`: against v2. */
type Mode = 'read' | 'same' | 'replay';

interface ChildResult {
  mode: Mode;
  seconds: number;
  calls: number;
  /** Peak RSS (MiB) of the process after that many calls. */
  peakRssMiB: Record<string, number>;
  /** Heap used (MiB) after a forced gc, after that many calls: what the replay holds. */
  liveHeapMiB: Record<string, number>;
  summary?: Record<string, number>;
}

const maxRssMiB = (): number => process.resourceUsage().maxRSS / 1024;

/** In the child: replay the file against v2 (or only read it), timing it and sampling peak RSS. */
async function child(file: string, mode: Mode): Promise<void> {
  const peak: Record<string, number> = {};
  const live: Record<string, number> = {};
  const gc = (globalThis as { gc?: () => void }).gc;
  const at = (n: number) => {
    if (!CHECKPOINTS.includes(n)) return;
    peak[n] = Math.round(maxRssMiB());
    gc?.();
    live[n] = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
  };
  const t0 = performance.now();
  let summary: Record<string, number> | undefined;
  let calls = 0;
  if (mode === 'read') {
    for await (const _ of readDatasetFile(file)) at(++calls);
  } else {
    const report = await replayDataset(tools(mode === 'same' ? V1 : V2), readDatasetFile(file), { onProgress: (p) => at(p.calls) });
    calls = report.summary.calls;
    summary = { ...report.summary, changedKept: report.results.length };
  }
  const r: ChildResult = { mode, seconds: (performance.now() - t0) / 1000, calls, peakRssMiB: peak, liveHeapMiB: live, ...(summary ? { summary } : {}) };
  process.stdout.write(`${JSON.stringify(r)}\n`);
}

function runChild(file: string, mode: Mode, flags: string[] = []): ChildResult {
  const r = spawnSync(process.execPath, ['--expose-gc', ...flags, '--import', 'tsx', fileURLToPath(import.meta.url), '--child', file, mode], { cwd: path.dirname(here), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bench/guard-replay.ts --child ${mode} failed (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop() as string) as ChildResult;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gt-guard-replay-'));
  const file = path.join(dir, 'calls.ndjson');
  try {
    const load0 = os.loadavg()[0] ?? 0;
    await writeDataset(file);
    const size = statSync(file).size;
    const read = runChild(file, 'read');
    const same = runChild(file, 'same');
    // the same run with the heap capped far below the file's size: it can only finish if streaming holds nothing per call
    const capped = runChild(file, 'same', [`--max-old-space-size=${HEAP_CAP_MIB}`]);
    const replay = runChild(file, 'replay');
    const load1 = os.loadavg()[0] ?? 0;
    const rss = (r: ChildResult, n: number) => r.peakRssMiB[n] ?? Number.NaN;
    const live = (r: ChildResult, n: number) => r.liveHeapMiB[n] ?? Number.NaN;
    const kept = replay.summary?.changedKept ?? 0;
    const perKeptKiB = kept > 0 ? ((live(replay, CALLS) - live(same, CALLS)) * 1024) / kept : 0;
    const s = replay.summary ?? {};
    const rows = [
      { benchmark: 'guard replay', metric: `${CALLS.toLocaleString('en')} recorded calls (schema, path and SQL guards) replayed from NDJSON (${(size / 2 ** 20).toFixed(0)} MiB) against a changed definition (s)`, value: replay.seconds.toFixed(1), target: '<= 60 s', pass: replay.seconds <= 60 },
      { benchmark: 'guard replay', metric: 'calls per second', value: Math.round(replay.calls / replay.seconds).toLocaleString('en'), target: 'reference', pass: true },
      { benchmark: 'guard replay', metric: 'floor: reading and parsing the same file only (s); replay / floor', value: `${read.seconds.toFixed(1)}; ${(replay.seconds / read.seconds).toFixed(1)}x`, target: 'reference', pass: true },
      { benchmark: 'guard replay', metric: 'the same calls against the unchanged definition (s): all unchanged, no result kept', value: same.seconds.toFixed(1), target: '<= 60 s', pass: same.seconds <= 60 },
      { benchmark: 'guard replay', metric: 'unchanged definition: heap live after gc at 10k | 100k calls (MiB), the streaming itself', value: `${live(same, 10_000)} | ${live(same, CALLS)}`, target: 'flat: 100k <= 10k + 10%', pass: live(same, CALLS) <= live(same, 10_000) * 1.1 },
      { benchmark: 'guard replay', metric: 'unchanged definition: peak RSS at 10k | 100k calls (MiB), default heap | heap capped at 128 MiB (s)', value: `${rss(same, 10_000)} | ${rss(same, CALLS)}; capped ${rss(capped, 10_000)} | ${rss(capped, CALLS)} (${capped.seconds.toFixed(1)} s)`, target: 'reference', pass: capped.calls === CALLS },
      { benchmark: 'guard replay', metric: 'changed definition: peak RSS at 10k | 100k calls (MiB); heap live after gc at 10k | 100k (MiB), per changed result kept (KiB)', value: `${rss(replay, 10_000)} | ${rss(replay, CALLS)}; ${live(replay, 10_000)} | ${live(replay, CALLS)}, ${perKeptKiB.toFixed(1)}`, target: 'reference', pass: true },
      { benchmark: 'guard replay', metric: 'changes found: newly rejected | newly allowed | class changed | feedback changed | unchanged (results kept)', value: `${s.newly_rejected} | ${s.newly_allowed} | ${s.class_changed} | ${s.feedback_changed} | ${s.unchanged} (${s.changedKept})`, target: 'reference', pass: true },
    ];
    const result = {
      rows,
      machine: `${os.cpus()[0]?.model ?? 'unknown CPU'} x${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`,
      date: new Date().toISOString(),
      method: [
        `Load average ${load0.toFixed(1)} before, ${load1.toFixed(1)} after (the machine is shared).`,
        `The dataset: ${CALLS.toLocaleString('en')} one-attempt calls in sessions of ${CALLS_PER_SESSION}, ten argument shapes (paths in and out of folders, SQL with SELECT *, UPDATE, DELETE without WHERE, joins, schema violations),`,
        'each recorded with the decision `gt.check` gives under v1 (folders src, docs, test; large table events); replayed against v2 (docs removed, orders large) in a child process:',
        'readDatasetFile streams the NDJSON line by line, replayDataset keeps counts and only the changed results. Peak RSS is the process maximum (getrusage) read as the replay passes 10k and 100k calls.',
        'The floor reads and JSON-parses the same file in the same way, without replaying. Heap live is heapUsed after a forced gc at the checkpoint (the child runs with --expose-gc);',
        'the capped run repeats the unchanged replay with --max-old-space-size=128, below the file\'s parsed size, and must finish.',
      ].join(' '),
    };
    writeFileSync(path.join(here, 'guard-replay.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.table(rows);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await child(process.argv[3] as string, process.argv[4] as Mode);
else await main();
