/**
 * The session totals' one rule in SQL (guardtrace_session_totals, guardtrace_update_sessions):
 * the weight rule is semconv's, a stored row that decides every value gets a batch's totals
 * merged into it (the batch's rows read by key, not the session), any other is recomputed
 * whole, and on tables never analysed each listed row is found by key, as one index entry.
 */
import { randomBytes } from 'node:crypto';
import { sessionSamplingWeight } from '@guardtrace/semconv';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_ID_KEYS } from '../src/conventions/index.ts';
import { Normalizer } from '../src/normalize.ts';
import { createPool } from '../src/pg.ts';
import { Writer } from '../src/writer.ts';
import { type Env, jsonRequest, jsonSpan, one, sdkSession, setupDatabase } from './helpers.ts';

let env: Env;
let pool: ReturnType<typeof createPool>;
let writer: Writer;
beforeAll(async () => {
  env = await setupDatabase();
  pool = createPool(env.db.url);
  writer = new Writer(pool, { maxBatchSpans: 1000, maxQueueSpans: 10_000, retryAfterSeconds: 1, concurrency: 1 });
});
afterAll(async () => {
  await writer?.drain();
  await pool?.end();
  await env?.close();
});

const normalize = (body: unknown) => new Normalizer().normalize(JSON.parse(JSON.stringify(body))).spans;
const spanCount = async (id: string) =>
  (await one<{ n: number }>(env.sql, 'SELECT span_count AS n FROM sessions WHERE project_id = $1 AND id = $2', [env.projectId, id])).n;

describe('session totals in SQL', () => {
  it('applies the sampling weight rule of @guardtrace/semconv, on every case', async () => {
    const cases: [boolean, number | null, boolean][] = [];
    for (const failure of [true, false]) {
      for (const kept of [null, 0.25, 1, 4]) for (const dropped of [true, false]) cases.push([failure, kept, dropped]);
    }
    const { rows } = await env.sql.query<{ w: number }>(
      `SELECT guardtrace_sampling_weight(f, k, d) AS w
       FROM unnest($1::boolean[], $2::float8[], $3::boolean[]) WITH ORDINALITY AS c(f, k, d, n) ORDER BY n`,
      [cases.map((c) => c[0]), cases.map((c) => c[1]), cases.map((c) => c[2])],
    );
    expect(rows.map((r) => r.w)).toEqual(cases.map(([f, k, d]) => sessionSamplingWeight(f, k, d)));
  });

  it('reads a session whose root gave no outcome as escalated after a call ended fail_reconcile, as the SDK closes it', async () => {
    const outcome = async (id: string) => (await one<{ o: string }>(env.sql, 'SELECT outcome AS o FROM sessions WHERE project_id = $1 AND id = $2', [env.projectId, id])).o;
    const session = (decision: string, attemptDecision: string) => {
      const sessionId = `reconcile_${randomBytes(6).toString('hex')}`;
      const traceId = randomBytes(16).toString('hex');
      const c = { 'gen_ai.conversation.id': sessionId };
      const call = randomBytes(8).toString('hex');
      // no invoke_agent root arrived (the agent crashed before its end): the model turn is a root span
      return {
        sessionId,
        spans: [
          jsonSpan({ traceId, name: 'chat gpt-4.1', attrs: { ...c, 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 1 } }),
          jsonSpan({ traceId, spanId: call, name: 'execute_tool charge_card', attrs: { ...c, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'charge_card', 'guardtrace.outcome': decision === 'proceed' ? 'success' : 'failed', 'guardtrace.decision': decision } }),
          jsonSpan({ traceId, parentSpanId: call, name: 'guardtrace.attempt', attrs: { ...c, 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 1, 'guardtrace.outcome': 'failed', 'guardtrace.failure.class': 'uncertain_side_effect', 'guardtrace.decision': attemptDecision } }),
        ],
      };
    };
    const uncertain = session('fail_reconcile', 'fail_reconcile');
    await writer.submit(env.projectId, normalize(jsonRequest(uncertain.spans)));
    expect(await outcome(uncertain.sessionId)).toBe('escalated');
    // sent again after its reconcile answered not_committed, and went through: not an escalation
    const resent = session('proceed', 'fail_reconcile');
    await writer.submit(env.projectId, normalize(jsonRequest(resent.spans)));
    expect(await outcome(resent.sessionId)).toBe('success');
  });

  it('takes the user from the keys the conventions name, in their order', async () => {
    const { src } = await one<{ src: string }>(env.sql, "SELECT prosrc AS src FROM pg_proc WHERE proname = 'guardtrace_session_totals'");
    const at = USER_ID_KEYS.map((k) => src.indexOf(`'${k}'`));
    expect(at.every((i) => i > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('merges a batch into a stored row that decides every value, and recomputes a session it cannot decide', async () => {
    const sessionId = `totals_${randomBytes(6).toString('hex')}`;
    await writer.submit(env.projectId, normalize(jsonRequest(sdkSession({ sessionId }).spans)));
    expect(await spanCount(sessionId)).toBe(8);
    // Make the stored row say 1,000 spans more than are stored: only a recomputation reads them.
    await env.sql.query('UPDATE sessions SET span_count = span_count + 1000 WHERE project_id = $1 AND id = $2', [env.projectId, sessionId]);
    // An ordinary turn of the session: merged into the row (the batch's 8 spans added, the stored ones not read).
    await writer.submit(env.projectId, normalize(jsonRequest(sdkSession({ sessionId }).spans)));
    expect(await spanCount(sessionId)).toBe(1016);
    // A re-sent turn (nothing new): the row is left as it is.
    const again = sdkSession({ sessionId });
    await writer.submit(env.projectId, normalize(jsonRequest(again.spans)));
    await writer.submit(env.projectId, normalize(jsonRequest(again.spans)));
    expect(await spanCount(sessionId)).toBe(1024);
    // A sampling weight depends on every process's: the row cannot decide it, and the session is recomputed.
    const c = { 'gen_ai.conversation.id': sessionId };
    await writer.submit(env.projectId, normalize(jsonRequest([jsonSpan({ traceId: again.traceId, name: 'weight', attrs: { ...c, 'guardtrace.sampling.weight': 2 } })])));
    expect(await spanCount(sessionId)).toBe(25);
  });

  it('decides a tie between spans that start at the same instant by value, whatever order they came in', async () => {
    const startMs = Date.UTC(2026, 10, 30, 12);
    const ids: string[] = [];
    for (const order of [
      ['svc-b', 'svc-a'],
      ['svc-a', 'svc-b'],
    ]) {
      const sessionId = `ties_${randomBytes(6).toString('hex')}`;
      ids.push(sessionId);
      // One request per service: the second cannot be merged into the row (a tie), so the session is recomputed.
      for (const service of order) {
        const span = jsonSpan({ traceId: randomBytes(16).toString('hex'), name: 'turn', startMs, attrs: { 'gen_ai.conversation.id': sessionId, 'gen_ai.agent.name': `agent-${service}` } });
        await writer.submit(env.projectId, normalize(jsonRequest([span], service)));
      }
    }
    const { rows } = await env.sql.query('SELECT service_name, agent_name FROM sessions WHERE project_id = $1 AND id = ANY($2::text[])', [env.projectId, ids]);
    expect(rows).toEqual([
      { service_name: 'svc-a', agent_name: 'agent-svc-a' },
      { service_name: 'svc-a', agent_name: 'agent-svc-a' },
    ]);
  });

  it('finds a batch’s rows by key on tables never analysed, one index entry each, never a range of the session', async () => {
    // auto_explain (a contrib module shipped with Postgres) reports the plans of the statements
    // inside the functions, with what each node really did.
    const explained = new pg.Pool({
      connectionString: env.db.url,
      max: 1,
      options:
        '-c session_preload_libraries=auto_explain -c auto_explain.log_min_duration=0 -c auto_explain.log_nested_statements=on ' +
        '-c auto_explain.log_level=notice -c auto_explain.log_analyze=on -c auto_explain.log_timing=off',
    });
    // Its idle client may be cut by the database's shutdown while it ends: not this test's error.
    explained.on('error', () => {});
    const notices: string[] = [];
    explained.on('connect', (client) => client.on('notice', (n) => notices.push(String(n.message))));
    const own = new Writer(explained, { maxBatchSpans: 1000, maxQueueSpans: 10_000, retryAfterSeconds: 1, concurrency: 1 });
    try {
      const sessionId = `plans_${randomBytes(6).toString('hex')}`;
      for (let i = 0; i < 6; i++) {
        const turns = Array.from({ length: 5 }, () => sdkSession({ sessionId }).spans).flat();
        notices.length = 0;
        await own.submit(env.projectId, normalize(jsonRequest(turns)));
      }
      expect(await spanCount(sessionId)).toBe(6 * 5 * 8);
      const analysed = await env.sql.query(
        `SELECT relname FROM pg_stat_user_tables WHERE (last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL)
           AND (relname LIKE 'spans%' OR relname IN ('tool_calls', 'attempts', 'model_calls'))`,
      );
      expect(analysed.rows).toEqual([]);
      // The last batch's lookup of its listed rows (guardtrace_session_rows_listed).
      const listed = notices.filter((n) => n.includes('FROM r JOIN spans s'));
      expect(listed).toHaveLength(1);
      const lines = (listed[0] as string).split('\n');
      const plan = lines.slice(lines.findIndex((l) => l.startsWith('Query Parameters')) + 1);
      const ran = (l: string) => /Index Scan|Index Only Scan|Bitmap Index Scan|Seq Scan/.test(l) && !l.includes('never executed');
      expect(plan.some((l) => l.includes('Seq Scan') && ran(l))).toBe(false);
      // Spans (in their trace's partition), tool calls, attempts and model calls: each read by an index.
      for (const table of ['spans', 'tool_calls', 'attempts', 'model_calls']) {
        expect(plan.some((l) => ran(l) && new RegExp(` on ${table}\\w* `).test(l)), table).toBe(true);
      }
      // Every index read that ran was a lookup of one row: by its span id, or by its session and
      // start time; never a range of the session or the project (no row read and thrown away).
      for (const [i, l] of plan.entries()) {
        if (!ran(l)) continue;
        expect(plan[i + 1], l).toMatch(/Index Cond: .*(span_id|session_id = r\w*\.id\) AND \(start(ed_at|_time) = )/);
        const node = plan.slice(i + 1, plan.findIndex((x, k) => k > i && x.includes('->')));
        expect(node.filter((x) => x.includes('Rows Removed by')), l).toEqual([]);
      }
    } finally {
      await own.drain();
      await explained.end();
    }
  });
});
