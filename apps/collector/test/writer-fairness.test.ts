/**
 * The write lanes and the queue shared between projects (fair-queue.ts): one project's backlog
 * neither delays another's requests past their commit timeout nor gets them refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Normalizer } from '../src/normalize.ts';
import { createPool } from '../src/pg.ts';
import { Writer } from '../src/writer.ts';
import { type Env, heldSpan, hex, jsonRequest, jsonSpan, one, sdkSession, setupDatabase } from './helpers.ts';

let env: Env;
let pool: ReturnType<typeof createPool>;

beforeAll(async () => {
  env = await setupDatabase();
  pool = createPool(env.db.url);
});
afterAll(async () => {
  await pool?.end();
  await env?.close();
});

const normalize = (body: unknown) => new Normalizer().normalize(JSON.parse(JSON.stringify(body))).spans;

/**
 * A writer's lane held busy: a span of `projectId` whose write waits on a row another connection
 * holds uncommitted (the unique index). `release()` commits it and waits for that write.
 */
async function busyLane(w: Writer, projectId: string): Promise<{ release: () => Promise<void> }> {
  const s = sdkSession();
  const spans = normalize(jsonRequest(s.spans.slice(0, 1)));
  const other = await heldSpan(env.sql, { projectId, traceId: s.traceId, spanId: spans[0]?.spanId as string, sessionId: s.sessionId, startNs: spans[0]?.startNs });
  const writing = w.submit(projectId, spans);
  await new Promise((r) => setTimeout(r, 200));
  return {
    release: async () => {
      await other.commit();
      await writing;
    },
  };
}

/**
 * A writer with one lane (the order of transactions is the order of take()), recording each
 * transaction's spans and the queue's depths; `queued(n)` waits until the queue has held n spans.
 */
function oneLane(opts: { maxQueueSpans?: number; clock?: () => number } = {}) {
  const batches: number[] = [];
  const depths: number[] = [];
  const writer = new Writer(pool, {
    maxBatchSpans: 8_192,
    maxQueueSpans: opts.maxQueueSpans ?? 100_000,
    retryAfterSeconds: 1,
    concurrency: 1,
    onBatch: (n) => batches.push(n),
    onQueueDepth: (n) => depths.push(n),
    clock: opts.clock,
  });
  const queued = async (n: number) => {
    while (!depths.includes(n)) await new Promise((r) => setImmediate(r));
  };
  return { writer, batches, queued };
}

/** A request of `traces` traces of 100 spans each, normalized. */
const bigRequest = (traces: number) =>
  normalize(jsonRequest(Array.from({ length: traces }, () => hex(16)).flatMap((traceId) => Array.from({ length: 100 }, (_, i) => jsonSpan({ traceId, name: i === 0 ? 'root' : `step ${i}` })))));

describe('Writer, between projects', () => {
  it("does not make one project's request wait behind another's backlog: parts of at most 2,048 spans, projects in turn", async () => {
    const [a, b, c] = [await env.newProject(), await env.newProject(), await env.newProject()];
    const { writer: own, batches, queued } = oneLane();
    // The lane is busy: project C's span waits on a row another connection holds uncommitted.
    const lane = await busyLane(own, c);
    // Meanwhile project A queues a request of 5,000 spans (50 traces of 100), then project B a small one.
    const done: string[] = [];
    const writingA = own.submit(a, bigRequest(50)).then(() => done.push('A'));
    await queued(5_000);
    const writingB = own.submit(b, normalize(jsonRequest(sdkSession().spans))).then(() => done.push('B'));
    await queued(5_008);
    await lane.release();
    await Promise.all([writingA, writingB]);
    // B first, alone; then A's parts (a request cut at 2,048 spans), still apart: B and C wrote
    // within the last 10 s, and B's next export must not wait behind one transaction of all of A.
    expect(done).toEqual(['B', 'A']);
    expect(batches).toEqual([1, 8, 2_048, 2_048, 904]);
    await own.drain();
  });

  it("gives a project's many small requests one transaction beside another's big parts, not one request a turn", async () => {
    const [a, b, c] = [await env.newProject(), await env.newProject(), await env.newProject()];
    const { writer: own, batches, queued } = oneLane();
    const lane = await busyLane(own, c);
    const writingA = own.submit(a, bigRequest(50));
    await queued(5_000);
    // B exports ten times while A's parts wait (an exporter every 200 ms beside one big request).
    const writingB = Array.from({ length: 10 }, () => own.submit(b, normalize(jsonRequest(sdkSession().spans))));
    await queued(5_080);
    await lane.release();
    await Promise.all([writingA, ...writingB]);
    // B's ten together, then A's parts (before: one of B's a turn between A's 2,048-span parts:
    // 8, 2048, 8, 2048, 8, 904, 8, … while B kept exporting, its backlog grew past the commit timeout).
    expect(batches).toEqual([1, 80, 2_048, 2_048, 904]);
    await own.drain();
  });

  it("groups a project's parts into one transaction when no other project has written for 10 s", async () => {
    const [a, c] = [await env.newProject(), await env.newProject()];
    let now = 0;
    const { writer: own, batches, queued } = oneLane({ clock: () => now });
    const lane = await busyLane(own, c);
    now = 10_001;
    const writingA = own.submit(a, bigRequest(50));
    await queued(5_000);
    await lane.release();
    await writingA;
    // C's span, then A's 5,000 together: C last wrote more than 10 s before.
    expect(batches).toEqual([1, 5_000]);
    await own.drain();
  });

  it("takes another project's request when one project has filled the queue, and refuses that project's next", async () => {
    const [a, b, c] = [await env.newProject(), await env.newProject(), await env.newProject()];
    const depths: number[] = [];
    const own = new Writer(pool, { maxBatchSpans: 8_192, maxQueueSpans: 1_000, retryAfterSeconds: 1, concurrency: 1, onQueueDepth: (n) => depths.push(n) });
    // The lane is busy, as above.
    const lane = await busyLane(own, c);
    // Project A fills the queue (1,000 spans: 10 traces of 100).
    const full = Array.from({ length: 10 }, () => hex(16)).flatMap((traceId) => Array.from({ length: 100 }, (_, i) => jsonSpan({ traceId, name: `s${i}` })));
    const writingA = own.submit(a, normalize(jsonRequest(full)));
    while (!depths.includes(1_000)) await new Promise((r) => setImmediate(r));
    // B's request is taken (B holds nothing: under its share); A's next is refused (A holds it all).
    const writingB = own.submit(b, normalize(jsonRequest(sdkSession().spans)));
    await expect(own.submit(a, normalize(jsonRequest([jsonSpan({ traceId: hex(16), name: 'more' })])))).rejects.toMatchObject({ status: 503 });
    await lane.release();
    await Promise.all([writingA, writingB]);
    const n = await one<{ n: number }>(env.sql, 'SELECT count(*)::int AS n FROM spans WHERE project_id = $1', [b]);
    expect(n.n).toBe(8);
    await own.drain();
  });
  it("stops making a project's request into rows once the queue is full and the project is over its share", async () => {
    const [a, b, c] = [await env.newProject(), await env.newProject(), await env.newProject()];
    const depths: number[] = [];
    const own = new Writer(pool, { maxBatchSpans: 8_192, maxQueueSpans: 1_000, retryAfterSeconds: 1, concurrency: 1, onQueueDepth: (n) => depths.push(n) });
    const lane = await busyLane(own, c);
    // B waits in the queue, so A's share is half of it.
    const writingB = own.submit(b, normalize(jsonRequest(sdkSession().spans)));
    while (!depths.includes(8)) await new Promise((r) => setImmediate(r));
    // A's request of 5,000 spans, read lazily (as the decoder does): counted as each span is taken.
    const spans = normalize(jsonRequest(Array.from({ length: 50 }, () => hex(16)).flatMap((traceId) => Array.from({ length: 100 }, (_, i) => jsonSpan({ traceId, name: `s${i}` })))));
    let read = 0;
    const lazy = (function* () {
      for (const span of spans) {
        read += 1;
        yield span;
      }
    })();
    await expect(own.submit(a, lazy)).rejects.toMatchObject({ status: 503 });
    // Refused within a slice of the queue's bound, not after all 5,000 spans were made into rows.
    expect(read).toBeGreaterThan(992);
    expect(read).toBeLessThan(1_200);
    await lane.release();
    await writingB;
    const n = await one<{ n: number }>(env.sql, 'SELECT count(*)::int AS n FROM spans WHERE project_id = $1', [a]);
    expect(n.n).toBe(0);
    await own.drain();
  });
});
