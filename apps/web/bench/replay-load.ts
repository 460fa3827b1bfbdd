/**
 * The server side of one replay, for e2e/bench/replay-profile.ts: how long the data layer takes
 * to load a session (getSessionDetail: the queries and the steps built from them) and how big
 * what it hands to the page is, serialized. Prints one JSON object.
 *   tsx --conditions=react-server bench/replay-load.ts <database-url> <project-id> <session-id>
 */
import { performance } from 'node:perf_hooks';
import { createPrisma } from '@guardtrace/db';
import { getSessionDetail } from '../src/server/queries/session.ts';

// 2 warm-ups (connections, plans) then 7 timed loads: a median that one slow run does not move.
const WARMUP = 2;
const RUNS = 7;

const [databaseUrl, projectId, sessionId] = process.argv.slice(2);
if (!databaseUrl || !projectId || !sessionId) {
  throw new Error('usage: tsx --conditions=react-server bench/replay-load.ts <database-url> <project-id> <session-id>');
}
const db = createPrisma(databaseUrl, { max: 6 });
try {
  for (let i = 0; i < WARMUP; i++) await getSessionDetail(db, projectId, sessionId);
  const times: number[] = [];
  let detail = await getSessionDetail(db, projectId, sessionId);
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    detail = await getSessionDetail(db, projectId, sessionId);
    times.push(performance.now() - t);
  }
  if (!detail) throw new Error(`session ${sessionId} of project ${projectId} not found`);
  const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
  times.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      loadMs: { median: times[Math.floor(RUNS / 2)], min: times[0], max: times.at(-1) },
      steps: detail.steps.length,
      spanTreeNodes: detail.spanTree.length,
      bytes: { total: bytes(detail), steps: bytes(detail.steps), spanTree: bytes(detail.spanTree) },
    }),
  );
} finally {
  await db.$disconnect();
}
