/**
 * `pnpm bench` (@guardtrace/db): what the explorer's search text costs at ingest. The
 * session_search triggers on attempts (migration 20261201232056) run inside the collector's
 * write transaction; this times the collector's kind of attempts INSERT (one statement,
 * ON CONFLICT DO NOTHING) with the append trigger enabled and disabled, alternating, in one
 * run on a throwaway embedded Postgres, and reports the ratio. Writes bench/results.json.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createTestDatabase } from '../src/dev.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
// 60 statements each way, alternating: a median that one slow statement on a shared machine cannot move.
const ROUNDS = 60;
const WARMUP = 5;

const db = await createTestDatabase({ partitions: false });
const client = new pg.Client({ connectionString: db.url });
await client.connect();
const project = '00000000-0000-4000-8000-000000000001';
let span = 0;
let sessionSeq = 0;

/** Attempts of these sessions, `perSession` each, with arguments and (every other) feedback as the seed writes them. */
function rows(sessions: string[], perSession: number): string[][] {
  const cols: string[][] = [[], [], [], [], []];
  for (const s of sessions) {
    for (let i = 0; i < perSession; i++) {
      span++;
      cols[0]?.push(`s${String(span).padStart(15, '0')}`);
      cols[1]?.push(s);
      cols[2]?.push(['read_file', 'query_db', 'send_email'][i % 3] ?? 'read_file');
      cols[3]?.push(`{"path":"src/file_${span}.ts","limit":${span % 97}}`);
      cols[4]?.push(i % 2 ? `path must be relative, got "/abs/${span}"` : '');
    }
  }
  return cols;
}

async function insert(cols: string[][]): Promise<number> {
  const t = performance.now();
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO attempts (project_id, trace_id, span_id, session_id, tool_name, number, started_at, duration_ms, arguments, feedback)
     SELECT $1, 't', span, session, tool, 1, now(), 1, args, nullif(fb, '')
     FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS x(span, session, tool, args, fb)
     ON CONFLICT DO NOTHING`,
    [project, ...cols],
  );
  await client.query('COMMIT');
  return performance.now() - t;
}

const trigger = (on: boolean) => client.query(`ALTER TABLE attempts ${on ? 'ENABLE' : 'DISABLE'} TRIGGER session_search_append`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const cases: { name: string; make: () => string[][] }[] = [
  // What a seed batch of ~500 spans brings: about 100 new sessions of 5 attempts.
  { name: 'attempts INSERT, 100 new sessions × 5 attempts', make: () => rows(Array.from({ length: 100 }, () => `n${++sessionSeq}`), 5) },
  // A long session sent in batches: its text goes to its last chunk (≤ 8 KB), never rewritten whole.
  { name: 'attempts INSERT, 100 more attempts of one long session', make: () => rows(['long'], 100) },
];
const results: { benchmark: string; metric: string; value: string; target: string; pass: boolean }[] = [];
try {
  for (const c of cases) {
    await trigger(true);
    for (let i = 0; i < WARMUP; i++) await insert(c.make());
    const on: number[] = [];
    const off: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      await trigger(true);
      on.push(await insert(c.make()));
      await trigger(false);
      off.push(await insert(c.make()));
    }
    await trigger(true);
    const ratio = median(on) / median(off);
    console.log(`${c.name}: with ${median(on).toFixed(2)} ms, without ${median(off).toFixed(2)} ms, ×${ratio.toFixed(2)}`);
    results.push({
      benchmark: c.name,
      metric: `median of ${ROUNDS}, search-text trigger on / off (ratio)`,
      value: `${median(on).toFixed(1)} / ${median(off).toFixed(1)} ms (×${ratio.toFixed(2)})`,
      target: '(reported)',
      pass: true,
    });
  }
} finally {
  await client.end();
  await db.close();
}
writeFileSync(
  path.join(here, 'results.json'),
  `${JSON.stringify(
    {
      machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}`,
      date: new Date().toISOString(),
      method:
        `bench/session-search.ts: a throwaway embedded Postgres; the collector's kind of attempts INSERT (one statement, ON CONFLICT DO NOTHING) ` +
        `with the session_search append trigger enabled and disabled, alternating, ${ROUNDS} statements each after ${WARMUP} warm-ups; ` +
        `load average ${os.loadavg()[0]?.toFixed(1)} at the end (shared 2-core machine). The "off" side has no trigram index at all; ` +
        'before this trigger the attempts carried one of their own (dropped with it), so the net ingest cost is below the ratio.',
      rows: results,
    },
    null,
    2,
  )}\n`,
);
