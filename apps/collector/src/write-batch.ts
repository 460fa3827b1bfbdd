/**
 * One write transaction of a batch of requests' spans: the trace locks and the trace index
 * lookup, the stored-span check, re-keying, the rows as COPYs, the trace index, the session
 * locks and their totals, COMMIT. writer.ts decides what goes into a batch and when.
 *
 * A span is keyed by its trace's start time (read from the trace index, or its trace's
 * earliest span for a new trace), not its own: a re-send with another start time is the same.
 *
 * Round trips: BEGIN with the trace locks and the trace index lookup; for traces seen before
 * only, the stored-span check (and a re-key when a conversation id shows up late); then one
 * query of a COPY per table with rows (their data sent along with it), the trace index,
 * session locks, session totals, the analytics rollup, the rejections' corrections, the alerts'
 * rollup, the analytics rollup's shared daily rows, the model costs, the tool definitions not
 * stored yet (tool-definitions.ts) and COMMIT (copy-script.ts).
 */
import type pg from 'pg';
import { updateAlertMinutes } from './alerts/rollup-sql.ts';
import { batchRows } from './batch-rows.ts';
import { runCopyScript } from './copy-script.ts';
import { key, type Prepared } from './prepare.ts';
import { sameCalls } from './same-call.ts';
import {
  ALERT_WEIGHTS,
  APPLY_ANALYTICS_PENDING,
  EXISTING_SPANS,
  linkCorrections,
  lockKeys,
  REKEY_SPANS,
  rekeyDerived,
  SPANS,
  textArray,
  traceState,
  updateAnalytics,
  updateModelCosts,
  updateSessions,
  upsertTracesAndLock,
} from './sql.ts';
import { rememberDefinitions, storeDefinitions } from './tool-definitions.ts';

/** `direct`: COPY into the tables; `staged`: through the per-connection stages, ON CONFLICT DO NOTHING. */
export type BatchMode = 'direct' | 'staged';

/** One request's part of a batch. */
export interface BatchJob {
  projectId: string;
  spans: Prepared[];
}

/**
 * Writes one batch in the transaction of `client` (BEGIN is sent with the first statements and
 * COMMIT with the last). `staged`: the COPYs go through the per-connection stages and
 * `INSERT ... ON CONFLICT DO NOTHING` (another writer stored one of these spans meanwhile).
 */
export async function writeBatch(client: pg.PoolClient, jobs: readonly BatchJob[], mode: BatchMode): Promise<void> {
  // 1. Conversation id per (project, trace) as far as this batch knows it; its earliest span.
  const batchSession = new Map<string, string>();
  const traces = new Map<string, [string, string]>();
  const earliest = new Map<string, Prepared>();
  for (const job of jobs) {
    for (const p of job.spans) {
      const k = p.traceKey;
      if (!traces.has(k)) traces.set(k, [job.projectId, p.traceId]);
      if (p.conv !== null && !batchSession.has(k)) batchSession.set(k, p.conv);
      const e = earliest.get(k);
      if (e === undefined || p.startNs < e.startNs) earliest.set(k, p);
    }
  }
  // 2. Wait for any other transaction writing these traces, then read what is stored for
  //    them: their session, and spans to skip (retries).
  //    One round trip: BEGIN, the trace locks, then (a statement of its own, so its snapshot
  //    sees what the lock waited for) the state. Simple protocol: values inlined as literals.
  const tv = [...traces.values()];
  const first = (await client.query(
    `BEGIN;\n${lockKeys(textArray([...traces.keys()].map((k) => `t:${k}`)))};\n${traceState(
      textArray(tv.map((t) => t[0])),
      textArray(tv.map((t) => t[1])),
    )}`,
  )) as unknown as pg.QueryResult[];
  const state = first[2] as pg.QueryResult<{ project_id: string; trace_id: string; session_id: string; start_time: string }>;
  const traceSession = new Map(batchSession);
  const rekey: [string, string, string][] = [];
  const storedTraces = new Set<string>();
  // The start time of each trace (its spans' partition key): stored, else its earliest span's.
  const traceStart = new Map<string, string>();
  for (const [k, p] of earliest) traceStart.set(k, p.startTime);
  for (const r of state.rows) {
    const k = key(r.project_id, r.trace_id);
    storedTraces.add(k);
    traceStart.set(k, r.start_time);
    const keyedByTrace = r.session_id === r.trace_id;
    if (!keyedByTrace && !traceSession.has(k)) traceSession.set(k, r.session_id);
    const session = traceSession.get(k);
    if (keyedByTrace && session !== undefined) rekey.push([r.project_id, r.trace_id, session]);
  }
  const existing = new Set<string>();
  if (storedTraces.size > 0) {
    const p: string[] = [];
    const st: string[] = [];
    const t: string[] = [];
    const s: string[] = [];
    for (const job of jobs) {
      for (const { traceId, spanId, traceKey } of job.spans) {
        if (!storedTraces.has(traceKey)) continue;
        p.push(job.projectId);
        st.push(traceStart.get(traceKey) as string);
        t.push(traceId);
        s.push(spanId);
      }
    }
    const { rows } = await client.query<{ project_id: string; trace_id: string; span_id: string }>(EXISTING_SPANS, [p, st, t, s]);
    for (const r of rows) existing.add(`${key(r.project_id, r.trace_id)}/${r.span_id}`);
  }
  const touched = new Map<string, [string, string]>();
  // Attempts moved to another session, and the weight the alerts' rollup counted them at (their
  // old, trace-keyed session's): it counts them at their new session's instead.
  const moved: { project_id: string; trace_id: string; span_id: string }[] = [];
  let movedFrom: { project_id: string; id: string; weight: number }[] = [];
  // 3. Traces stored under their trace id whose conversation id is now known: move them.
  if (rekey.length > 0) {
    const params = [rekey.map((v) => v[0]), rekey.map((v) => v[1]), rekey.map((v) => v[2])];
    movedFrom = (await client.query<(typeof movedFrom)[number]>(ALERT_WEIGHTS, [params[0], params[1]])).rows;
    await client.query(REKEY_SPANS, params);
    for (const table of ['tool_calls', 'attempts', 'guard_checks', 'model_calls']) {
      const res = await client.query<(typeof moved)[number]>(rekeyDerived(table), params);
      if (table === 'attempts') moved.push(...res.rows);
    }
    for (const [p, t, s] of rekey) {
      touched.set(key(p, t), [p, t]);
      touched.set(key(p, s), [p, s]);
    }
  }
  // 4. Rows of the spans not stored yet (each once, even when a batch repeats one), and their
  //    keys per session for the session totals and the analytics rollup.
  //    A model call that another span records too (another instrumentation's) counts once: same-call.ts.
  const sameCall = await sameCalls(client, jobs, storedTraces, traceStart, existing, touched);
  const { spanRows, derived, sessions, totals, analytics, definitions } = batchRows(jobs, mode === 'direct', traceSession, traceStart, existing, touched, sameCall);
  // One COPY per table with rows (much cheaper for Postgres than parsing rows from JSON),
  // through the per-connection stages on the fallback path.
  const statements: string[] = [];
  const data: Buffer[][] = [];
  for (const [target, rows] of [[SPANS, spanRows] as const, ...derived]) {
    const chunks = rows.finish();
    if (chunks.length === 0) continue;
    statements.push(`COPY ${mode === 'direct' ? target.table : target.stage} (${target.columns.join(', ')}) FROM STDIN`);
    if (mode === 'staged') statements.push(target.insertStaged);
    data.push(chunks);
  }
  // The trace index: traces new in this batch, and re-keyed ones, with their session and start.
  const traceRows: [string, string, string][] = [];
  for (const [k, [projectId, traceId]] of traces) {
    if (!storedTraces.has(k)) traceRows.push([projectId, traceId, traceSession.get(k) ?? traceId]);
  }
  for (const r of rekey) traceRows.push(r);
  const traceRowStarts = traceRows.map((r) => traceStart.get(key(r[0], r[1])) as string);
  // 5. One round trip to the end: the COPYs with their data; a statement writing the trace
  //    index and taking the locks of the touched sessions; then (its own statement, whose
  //    snapshot sees the rows of other writers of these sessions, committed before we got
  //    their locks) the session totals; then the analytics rollup of those sessions (it reads
  //    their totals' sampling weight); then their rejections' corrections; then the rows every
  //    writer of the project shares (the rollups'); then COMMIT.
  //    Values are inlined as literals (the simple protocol takes no parameters).
  // A listed session none of whose spans is new (a retry): its row is right as it is.
  for (const [k, session] of sessions) if (session.listed && session.spans === 0) touched.delete(k);
  const sv = [...touched.values()];
  const insertAndLock = upsertTracesAndLock(
    textArray(traceRows.map((r) => r[0])),
    textArray(traceRows.map((r) => r[1])),
    textArray(traceRows.map((r) => r[2])),
    textArray(traceRowStarts),
    textArray([...touched.keys()].map((k) => `s:${k}`)),
  );
  // A session is listed (its new rows are all among the keys the batch lists, so its totals and
  // rollup change by them alone) on the direct path unless a re-key moved stored rows into or out of it.
  const listed = [...touched.keys()].map((k) => sessions.get(k)?.listed === true);
  const position = new Map([...touched.keys()].map((k, i) => [k, i + 1]));
  const totalsSql = updateSessions(textArray(sv.map((v) => v[0])), textArray(sv.map((v) => v[1])), listed, {
    sessions: totals.sessions.map((k) => position.get(k) as number),
    kinds: textArray(totals.kinds),
    times: textArray(totals.times),
    starts: textArray(totals.starts),
    traces: textArray(totals.traces),
    spans: textArray(totals.spans),
  });
  const analyticsSql = updateAnalytics(
    textArray(sv.map((v) => v[0])),
    textArray(sv.map((v) => v[1])),
    listed,
    {
      kinds: textArray(analytics.kinds),
      projects: textArray(analytics.projects),
      traces: textArray(analytics.traces),
      spans: textArray(analytics.spans),
    },
  );
  // Then each rejection's correction linked, and the rollup's fixed counts moved with it: from
  // the batch's earliest new span on for a listed session, whole for any other.
  const sinces = [...touched.keys()].map((k, i) => (listed[i] ? (sessions.get(k)?.since ?? null) : null));
  const linksSql = linkCorrections(textArray(sv.map((v) => v[0])), textArray(sv.map((v) => v[1])), textArray(sinces));
  const modelCostsSql = updateModelCosts(textArray(sv.map((v) => v[0])), textArray(sv.map((v) => v[1])));
  // The alerts' rollup counts the batch's new rows, and the attempts moved into its sessions (rare).
  const alertRows =
    moved.length === 0
      ? analytics
      : {
          kinds: [...analytics.kinds, ...moved.map(() => 'A')],
          projects: [...analytics.projects, ...moved.map((m) => m.project_id)],
          traces: [...analytics.traces, ...moved.map((m) => m.trace_id)],
          spans: [...analytics.spans, ...moved.map((m) => m.span_id)],
        };
  const alertSql = updateAlertMinutes(textArray(sv.map((v) => v[0])), textArray(sv.map((v) => v[1])), alertRows, movedFrom);
  // The shared rollup rows last (every writer of a project adds to them, and holds their locks to
  // COMMIT), in the order retention takes them: alert_minutes, the analytics rollup's daily rows
  // (kept pending by its update), the per-model rows.
  statements.push(insertAndLock, totalsSql, analyticsSql, linksSql, alertSql, APPLY_ANALYTICS_PENDING, modelCostsSql);
  const definitionsSql = storeDefinitions(definitions);
  if (definitionsSql !== null) statements.push(definitionsSql);
  statements.push('COMMIT');
  await runCopyScript(client, statements.join(';\n'), data);
  rememberDefinitions(definitions);
}
