/** The writer's idempotency when the fast path (check, then COPY) meets a concurrent writer. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Normalizer } from '../src/normalize.ts';
import { createPool } from '../src/pg.ts';
import { quote, refreshSessions, textArray } from '../src/sql.ts';
import { Writer } from '../src/writer.ts';
import { type Env, heldSpan, hex, jsonRequest, jsonSpan, one, sdkSession, setupDatabase } from './helpers.ts';

let env: Env;
let pool: ReturnType<typeof createPool>;
let writer: Writer;

beforeAll(async () => {
  env = await setupDatabase();
  pool = createPool(env.db.url);
  writer = new Writer(pool, { maxBatchSpans: 1000, maxQueueSpans: 10_000, retryAfterSeconds: 1, concurrency: 2 });
});
afterAll(async () => {
  await writer?.drain();
  await pool?.end();
  await env?.close();
});

const normalize = (body: unknown) => new Normalizer().normalize(JSON.parse(JSON.stringify(body))).spans;

describe('Writer', () => {
  it('falls back to ON CONFLICT when another writer commits the same span after the check', async () => {
    const s = sdkSession();
    const spans = normalize(jsonRequest(s.spans));
    // Another collector holds the root span in an open transaction.
    const other = await heldSpan(env.sql, { projectId: env.projectId, traceId: s.traceId, spanId: s.ids.root, sessionId: s.sessionId, startNs: spans[0]?.startNs });
    const writing = writer.submit(env.projectId, spans);
    await new Promise((r) => setTimeout(r, 300)); // the writer's COPY now waits on the unique index
    await other.commit();
    await writing;
    const n = await one(env.sql, 'SELECT count(*)::int AS n, count(*) FILTER (WHERE name = $2)::int AS other FROM spans WHERE trace_id = $1', [s.traceId, 'other']);
    expect(n).toEqual({ n: 8, other: 1 });
    const sess = await one(env.sql, 'SELECT span_count, attempt_count FROM sessions WHERE id = $1', [s.sessionId]);
    expect(sess).toEqual({ span_count: 8, attempt_count: 2 });
  });

  it('writes a big request of many sessions on both lanes at once, each session whole in one transaction', async () => {
    const projectId = await env.newProject();
    const batches: number[] = [];
    const own = new Writer(pool, {
      maxBatchSpans: 10_000,
      maxQueueSpans: 100_000,
      retryAfterSeconds: 1,
      concurrency: 2,
      onBatch: (n) => {
        batches.push(n);
      },
    });
    // 40 sessions of 8 spans: two transactions of 20 sessions.
    const sessions = Array.from({ length: 40 }, () => sdkSession());
    await own.submit(projectId, normalize(jsonRequest(sessions.flatMap((s) => s.spans))));
    expect(batches).toEqual([160, 160]);
    // One session of 40 traces (a long session's request): one transaction, as before.
    const sessionId = `sess_${hex(6)}`;
    const turns = Array.from({ length: 40 }, () => sdkSession({ sessionId }));
    batches.length = 0;
    await own.submit(projectId, normalize(jsonRequest(turns.flatMap((t) => t.spans))));
    expect(batches).toEqual([320]);
    // A small request is not cut.
    batches.length = 0;
    await own.submit(projectId, normalize(jsonRequest([...sdkSession().spans, ...sdkSession().spans])));
    expect(batches).toEqual([16]);
    await own.drain();
    const counts = (
      await env.sql.query<{ span_count: number; n: number }>(
        'SELECT span_count, count(*)::int AS n FROM sessions WHERE project_id = $1 GROUP BY span_count ORDER BY span_count',
        [projectId],
      )
    ).rows;
    expect(counts).toEqual([
      { span_count: 8, n: 42 },
      { span_count: 320, n: 1 },
    ]);
  });

  it('stores a span repeated inside one batch once', async () => {
    const s = sdkSession();
    const spans = normalize(jsonRequest([...s.spans, ...s.spans]));
    await Promise.all([writer.submit(env.projectId, spans), writer.submit(env.projectId, normalize(jsonRequest(s.spans)))]);
    const n = await one(env.sql, 'SELECT count(*)::int AS n FROM spans WHERE trace_id = $1', [s.traceId]);
    expect(n.n).toBe(8);
    const tc = await one(env.sql, 'SELECT count(*)::int AS n FROM attempts WHERE trace_id = $1', [s.traceId]);
    expect(tc.n).toBe(2);
  });

  it('keeps sessions right when concurrent transactions share traces and sessions', async () => {
    // Small batches on 4 lanes: spans of one trace land in different, overlapping transactions.
    const lanes = new Writer(pool, { maxBatchSpans: 3, maxQueueSpans: 100_000, retryAfterSeconds: 1, concurrency: 4 });
    const sessions = Array.from({ length: 12 }, () => sdkSession({ conv: false }));
    const convs = sessions.map((s) => `sess_${s.traceId.slice(0, 8)}`);
    const jobs: Promise<void>[] = [];
    const all = sessions.flatMap((s, i) =>
      s.spans.map((span, k) => {
        if (k !== 0) return span;
        // Only the root carries the conversation id (foreign instrumentation style).
        const attrs = [...(span.attributes as object[]), { key: 'gen_ai.conversation.id', value: { stringValue: convs[i] } }];
        return { ...span, attributes: attrs };
      }),
    );
    // Deterministic shuffle: children before parents, traces interleaved.
    all.sort((a, b) => ((a.spanId as string) < (b.spanId as string) ? -1 : 1));
    for (const span of all) jobs.push(lanes.submit(env.projectId, normalize(jsonRequest([span]))));
    await Promise.all(jobs);
    await lanes.drain();
    const rows = (
      await env.sql.query('SELECT id, span_count, attempt_count, model_call_count, tool_call_count FROM sessions WHERE id = ANY($1) ORDER BY id', [
        [...convs, ...sessions.map((s) => s.traceId)],
      ])
    ).rows;
    expect(rows).toEqual([...convs].sort().map((id) => ({ id, span_count: 8, attempt_count: 2, model_call_count: 2, tool_call_count: 1 })));
    for (const table of ['spans', 'tool_calls', 'attempts', 'guard_checks', 'model_calls']) {
      const r = await one(env.sql, `SELECT count(*)::int AS n FROM ${table} WHERE trace_id = ANY($1) AND session_id = trace_id`, [sessions.map((s) => s.traceId)]);
      expect(r.n, table).toBe(0);
    }
  });

  it("keeps the per-model cost rollups exact under many concurrent transactions of sessions sharing a day and model, with no deadlock", async () => {
    // Every session repairs a write_file attempt with gpt-4.1-mini on the same day, sent one span a
    // request on 4 lanes of small batches: a session's later batch takes out its old share of the
    // same daily rows that other sessions' transactions are adding theirs to.
    const projectId = await env.newProject();
    const own = createPool(env.db.url, { max: 6 });
    const conflicts: string[] = [];
    const lanes = new Writer(own, {
      maxBatchSpans: 1,
      maxQueueSpans: 100_000,
      retryAfterSeconds: 1,
      concurrency: 4,
      log: (msg) => {
        conflicts.push(msg);
      },
    });
    const deadlocks = async () => (await one<{ n: number }>(env.sql, 'SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()')).n;
    const before = await deadlocks();
    const N = 60;
    const sessions = Array.from({ length: N }, () => sdkSession());
    // Each session's spans: its first model call, its repair turn, then the rest; session i starts
    // two requests after session i - 1, so at any time some transactions add a session's first
    // repair share while others replace the shares a session already has.
    const ORDER = [1, 5, 0, 2, 3, 4, 6, 7];
    const all = sessions.flatMap((s, i) => ORDER.map((k, t) => ({ at: 2 * i + t, span: s.spans[k] as Record<string, unknown> })));
    all.sort((a, b) => a.at - b.at);
    try {
      await Promise.all(all.map((x) => lanes.submit(projectId, normalize(jsonRequest([x.span])))));
      await lanes.drain();
    } finally {
      // Its connections end, so their backends report their statistics (deadlocks) now.
      await own.end();
    }
    expect(await deadlocks()).toBe(before);
    expect(conflicts).toEqual([]);
    // Each session: a repair turn of 4,200 + 80 tokens, and 8,200 + 200 over both model calls (weight 1).
    const model = await env.sql.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, tool_name, failure_class, model, input_tokens, output_tokens FROM analytics_model_daily
       WHERE project_id = $1 AND (input_tokens <> 0 OR output_tokens <> 0)`,
      [projectId],
    );
    expect(model.rows).toEqual([{ day: '2026-11-30', tool_name: 'write_file', failure_class: 'invalid_arguments', model: 'gpt-4.1-mini', input_tokens: N * 4200, output_tokens: N * 80 }]);
    const spend = await env.sql.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, model, input_tokens, output_tokens FROM analytics_model_spend_daily
       WHERE project_id = $1 AND (input_tokens <> 0 OR output_tokens <> 0)`,
      [projectId],
    );
    expect(spend.rows).toEqual([{ day: '2026-11-30', model: 'gpt-4.1-mini', input_tokens: N * 8200, output_tokens: N * 200 }]);
    // And each session's stored shares are its rows' (one of each).
    const shares = await one<{ parts: number; spend: number }>(
      env.sql,
      `SELECT (SELECT count(*)::int FROM analytics_model_session_parts WHERE project_id = $1) AS parts,
         (SELECT count(*)::int FROM analytics_model_session_spend WHERE project_id = $1) AS spend`,
      [projectId],
    );
    expect(shares).toEqual({ parts: N, spend: N });
  }, 120_000);

  it('writes again a batch Postgres aborts as a deadlock victim, and answers 503 only when that keeps happening', async () => {
    // Postgres raises deadlock_detected in the transaction it aborts; a trigger raises it the same
    // way for the first `limit` inserts into attempts (a sequence counts them: it is not rolled back).
    await env.sql.query(`CREATE SEQUENCE gt_test_conflicts;
      CREATE TABLE gt_test_conflict_limit (n int NOT NULL); INSERT INTO gt_test_conflict_limit VALUES (1);
      CREATE FUNCTION gt_test_conflict() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        IF nextval('gt_test_conflicts') <= (SELECT n FROM gt_test_conflict_limit) THEN
          RAISE EXCEPTION 'deadlock detected (simulated)' USING ERRCODE = 'deadlock_detected';
        END IF;
        RETURN NULL;
      END $fn$;
      CREATE TRIGGER gt_test_conflict AFTER INSERT ON attempts FOR EACH STATEMENT EXECUTE FUNCTION gt_test_conflict();`);
    try {
      const s = sdkSession();
      await writer.submit(env.projectId, normalize(jsonRequest(s.spans)));
      expect(await one(env.sql, 'SELECT span_count, attempt_count FROM sessions WHERE id = $1', [s.sessionId])).toEqual({ span_count: 8, attempt_count: 2 });
      // Aborted once, written by the second try.
      expect(await one(env.sql, "SELECT last_value::int AS n FROM gt_test_conflicts")).toEqual({ n: 2 });
      // Aborted every time: the retries are bounded, and the client is told to retry later.
      await env.sql.query('UPDATE gt_test_conflict_limit SET n = 1000');
      const t = sdkSession();
      await expect(writer.submit(env.projectId, normalize(jsonRequest(t.spans)))).rejects.toMatchObject({ status: 503 });
      expect(await one(env.sql, 'SELECT count(*)::int AS n FROM spans WHERE trace_id = $1', [t.traceId])).toEqual({ n: 0 });
    } finally {
      await env.sql.query('DROP TRIGGER gt_test_conflict ON attempts; DROP FUNCTION gt_test_conflict(); DROP TABLE gt_test_conflict_limit; DROP SEQUENCE gt_test_conflicts');
    }
  });

  it('drains a request whose rows are still being built when shutdown begins: it is written, not refused', async () => {
    const own = new Writer(pool, { maxBatchSpans: 1000, maxQueueSpans: 10_000, retryAfterSeconds: 1, concurrency: 2 });
    const spans = Array.from({ length: 1000 }, () => jsonSpan({ traceId: hex(16), name: 'late' }));
    const writing = own.submit(env.projectId, normalize(jsonRequest(spans)));
    // Still building its rows (in slices): the spans built so far count as queued.
    expect(own.queuedSpans).toBeGreaterThan(0);
    expect(own.queuedSpans).toBeLessThan(1000);
    await own.drain();
    // Committed by the time drain() returns (the pool closes right after it on shutdown).
    const n = await one(env.sql, 'SELECT count(*)::int AS n FROM spans WHERE trace_id = ANY($1)', [spans.map((s) => s.traceId)]);
    expect(n.n).toBe(1000);
    await writing;
    await expect(own.submit(env.projectId, normalize(jsonRequest([jsonSpan({ traceId: hex(16), name: 'after' })])))).rejects.toMatchObject({ status: 503 });
  });

  it('drains a request still being read when shutdown begins, even one with no rows built yet', async () => {
    const own = new Writer(pool, { maxBatchSpans: 1000, maxQueueSpans: 10_000, retryAfterSeconds: 1, concurrency: 2 });
    const spans = normalize(jsonRequest([jsonSpan({ traceId: hex(16), name: 'after-pauses' })]));
    // As a decoder does while it rejects spans: pauses first, the valid span last.
    function* reading() {
      for (let i = 0; i < 3; i++) yield null;
      yield* spans;
    }
    const writing = own.submit(env.projectId, reading());
    expect(own.queuedSpans).toBe(0);
    await own.drain();
    // Committed by the time drain() returns (the pool closes right after it on shutdown).
    const n = await one(env.sql, 'SELECT count(*)::int AS n FROM spans WHERE trace_id = $1', [spans[0]?.traceId]);
    expect(n.n).toBe(1);
    await writing;
  });

  it('shares a backlog between the lanes instead of writing it in one transaction', async () => {
    const batches: number[] = [];
    const own = new Writer(pool, {
      maxBatchSpans: 10_000,
      maxQueueSpans: 10_000,
      retryAfterSeconds: 1,
      concurrency: 2,
      onBatch: (n) => batches.push(n),
    });
    const request = () => normalize(jsonRequest([jsonSpan({ traceId: hex(16), name: 'backlog' })]));
    // Both lanes wait on trace locks held elsewhere, as they would on a stalled WAL flush.
    const blockers = [request(), request()];
    const other = await env.sql.connect();
    for (const b of blockers) {
      await other.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`t:${env.projectId}/${b[0]?.traceId}`]);
    }
    const writing = blockers.map((b) => own.submit(env.projectId, b));
    await new Promise((r) => setTimeout(r, 200));
    const backlog = Array.from({ length: 8 }, () => own.submit(env.projectId, request()));
    await new Promise((r) => setTimeout(r, 100));
    await other.query('SELECT pg_advisory_unlock_all()');
    other.release();
    await Promise.all([...writing, ...backlog]);
    await own.drain();
    // Without the share, the first lane free would take all 8 and the other lane would idle.
    expect(Math.max(...batches)).toBeLessThanOrEqual(4);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(10);
  });

  it('writes a request with 8,000 traces and sessions in parts that fit the lock table', async () => {
    // 8,000 traces each with its own session would need 16,000 advisory locks in one
    // transaction: more than Postgres' default shared lock table holds.
    const spans = Array.from({ length: 8000 }, () => jsonSpan({ traceId: hex(16), name: 'one', attrs: { 'gen_ai.conversation.id': `c_${hex(8)}` } }));
    await writer.submit(env.projectId, normalize(jsonRequest(spans)));
    const n = await one(env.sql, 'SELECT count(*)::int AS n FROM spans WHERE trace_id = ANY($1)', [spans.map((s) => s.traceId)]);
    expect(n.n).toBe(8000);
    const sessions = await one(env.sql, "SELECT count(*)::int AS n FROM sessions WHERE id LIKE 'c\\_%' AND span_count = 1");
    expect(sessions.n).toBe(8000);
  });

  it('writes the totals of sessions new in a batch exactly as the SQL recompute does', async () => {
    // Sessions first seen in a batch get totals computed from the batch (nothing read back):
    // recomputing them from the stored rows must change nothing.
    const varied = (i: number) => {
      const s = sdkSession({ conv: i % 3 !== 0 });
      const extra: Record<string, unknown>[] = [];
      if (i % 2 === 0) {
        extra.push(
          jsonSpan({
            traceId: s.traceId,
            parentSpanId: s.ids.tool,
            name: 'guardtrace.attempt',
            status: 2,
            attrs: { 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.decision': 'escalate_human', 'guardtrace.sampling.weight': 4 + i },
          }),
        );
      }
      if (i % 4 === 1) {
        extra.push(jsonSpan({ traceId: s.traceId, name: 'root two', status: 2, attrs: { 'guardtrace.user.id': `u${i}`, 'gen_ai.agent.name': `late${i}` } }));
      }
      if (i % 5 === 2) extra.push(jsonSpan({ traceId: s.traceId, name: 'odd', attrs: { 'guardtrace.session.outcome': 'escalated', 'guardtrace.sampling.weight': 1.25 } }));
      // OpenTelemetry's user.id: the user unless a span names a Guardtrace one (i = 9 has both).
      if (i % 6 === 3) extra.push(jsonSpan({ traceId: s.traceId, name: 'otel user', attrs: { 'user.id': `oi${i}` } }));
      return { s, spans: [...s.spans, ...extra].reverse() };
    };
    const sessions = Array.from({ length: 20 }, (_, i) => varied(i));
    await Promise.all(
      sessions.map((x, i) => writer.submit(env.projectId, normalize(jsonRequest(x.spans, i % 2 ? 'svc-a' : 'svc-b')))),
    );
    const ids = sessions.map((x, i) => (i % 3 !== 0 ? x.s.sessionId : x.s.traceId));
    const cols = `id, agent_name, service_name, user_id, started_at, ended_at, outcome, span_count, tool_call_count, attempt_count,
      failed_attempt_count, model_call_count, input_tokens, output_tokens, repair_tokens, sampling_weight`;
    const read = async () => (await env.sql.query(`SELECT ${cols} FROM sessions WHERE id = ANY($1) ORDER BY id`, [ids])).rows;
    const written = await read();
    expect(written).toHaveLength(20);
    const users = new Map(written.map((r) => [r.id, r.user_id]));
    expect(users.get(ids[3] as string)).toBe('oi3');
    expect(users.get(ids[9] as string)).toBe('u9');
    await env.sql.query(refreshSessions(textArray(ids.map(() => env.projectId)), textArray(ids)));
    expect(await read()).toEqual(written);
  });

  it('inlines any text as a literal that reads back the same', async () => {
    const nasty = ["it's", 'back\\slash', 'a\\', "\\'", '$gt$', 'x$gt', '$gt', '$$', '$gt$ DROP TABLE spans; --', 'tab\tnew\nline', '"quoted"', '{a,b}', 'ünï 😀', ''];
    for (const v of nasty) {
      expect((await one(env.sql, `SELECT ${quote(v)}::text AS v`)).v, v).toBe(v);
    }
    expect((await one(env.sql, `SELECT ${textArray(nasty)}::text[] AS v`)).v).toEqual(nasty);
  });
});
