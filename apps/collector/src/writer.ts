/**
 * The ingest writer: requests hand it their spans and wait; it groups whatever is queued into
 * a transaction (spans, derived rows, session totals), commits, then answers every waiting
 * request. Acknowledged means committed. A few transactions run at once so Postgres and this
 * process work in parallel; transaction-scoped advisory locks on the batch's traces (taken
 * first) and sessions (taken before their totals are recomputed), always in key order, make
 * transactions that share a trace or session run one after the other — also across
 * collector instances — so session lookup, re-keying and totals see each other's rows.
 *
 * A span is keyed by its trace's start time (read from the trace index, or its trace's
 * earliest span for a new trace), not its own: a re-send with another start time is the same.
 *
 * Round trips per transaction: BEGIN with the trace locks and the trace index lookup; for
 * traces seen before only, the stored-span check (and a re-key when a conversation id shows
 * up late); then one query of a COPY per table with rows (their data sent along with it), the
 * trace index, session locks, session totals and COMMIT (copy-script.ts).
 */
import type pg from 'pg';
import { batchRows } from './batch-rows.ts';
import { runCopyScript } from './copy-script.ts';
import { CollectorError } from './errors.ts';
import type { NormSpan, SpanOrPause } from './span.ts';
import { isUnavailable, withTimeout } from './pg.ts';
import { arenaOf, key, type Prepared, prepareSpan, requestArena } from './prepare.ts';
import {
  EXISTING_SPANS,
  lockKeys,
  REKEY_SPANS,
  recomputeSessions,
  rekeyDerived,
  SPANS,
  TARGETS,
  quote,
  textArray,
  traceState,
  upsertTracesAndLock,
} from './sql.ts';

export interface WriterOptions {
  /** Spans per transaction (several requests are grouped up to this). */
  maxBatchSpans: number;
  /** Spans waiting for the writer; beyond this new requests get 503. */
  maxQueueSpans: number;
  /** Write transactions in flight at once (advisory locks keep shared traces and sessions in order). */
  concurrency: number;
  /** Advisory locks one transaction may take; bigger requests are written in several. */
  maxLocksPerTransaction?: number;
  /** Seconds a client is told to wait when the queue is full or Postgres is down. */
  retryAfterSeconds: number;
  /** Longest a request waits for its commit; then 503 (its spans may still commit: a retry is idempotent). */
  commitTimeoutMs?: number;
  onBatch?: (spans: number, seconds: number) => void;
  onQueueDepth?: (spans: number) => void;
  log?: (msg: string, err?: unknown) => void;
}

interface Job {
  projectId: string;
  spans: Prepared[];
  /** Upper bound of the advisory locks its transaction takes (traces, then sessions). */
  locks: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

type Mode = 'direct' | 'staged';
// Spans prepared between two turns of the event loop (~0.5 ms of work).
const PREPARE_SLICE = 128;
const UNIQUE_VIOLATION = '23505';
// 2,048 advisory locks per transaction: a few lanes stay far below Postgres' default shared
// lock table (max_locks_per_transaction 64 x max_connections 100 = 6,400 entries).
const MAX_LOCKS_PER_TRANSACTION = 2_048;

export class Writer {
  private queue: Job[] = [];
  private queued = 0;
  /** Spans of requests whose rows are being built (they count against maxQueueSpans too). */
  private preparing = 0;
  /** Requests inside submit() before their spans are queued (drain() waits for them). */
  private submitting = 0;
  /** Transactions in flight (at most `concurrency`). */
  private lanes = new Set<Promise<void>>();
  private closed = false;
  /** Connections that already have the staging temp tables. */
  private staged = new WeakSet<pg.PoolClient>();

  private readonly maxLocks: number;

  constructor(
    private readonly pool: pg.Pool,
    private readonly opts: WriterOptions,
  ) {
    this.maxLocks = opts.maxLocksPerTransaction ?? MAX_LOCKS_PER_TRANSACTION;
  }

  get queuedSpans(): number {
    return this.queued + this.preparing;
  }

  /**
   * Resolves once the spans are committed; rejects with a CollectorError otherwise. `spans`
   * may be a lazy decoder: each span is read, passed to `each` (redaction), and made into rows
   * before the next is read, so only the rows live on; an error thrown while reading (a 400)
   * rejects the request before anything is queued.
   */
  async submit(
    projectId: string,
    spans: Iterable<SpanOrPause>,
    opts: { each?: (span: NormSpan) => void; arenaBytes?: number } = {},
  ): Promise<void> {
    if (this.closed) throw CollectorError.unavailable('collector is shutting down', this.opts.retryAfterSeconds);
    if (this.queued + this.preparing >= this.opts.maxQueueSpans) throw this.full();
    // Rows are built here, in the request, so this CPU work overlaps the running transaction;
    // in slices, so a big request does not hold up the commits and answers of the others.
    const arena = opts.arenaBytes ? arenaOf(opts.arenaBytes) : requestArena(Array.isArray(spans) ? spans.length : 0);
    const prepared: Prepared[] = [];
    this.submitting++;
    try {
      for (const span of spans) {
        // A decoder's pause (it has been rejecting spans): let other requests run.
        if (span === null) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          continue;
        }
        opts.each?.(span);
        prepared.push(prepareSpan(projectId, span, arena));
        this.preparing++;
        if (prepared.length % PREPARE_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.preparing -= prepared.length;
      this.submitting--;
    }
    if (prepared.length === 0) return;
    const waiting = this.queued + this.preparing;
    if (waiting > 0 && waiting + prepared.length > this.opts.maxQueueSpans) throw this.full();
    // (Queued even when drain() began meanwhile: it waits for requests being prepared too.)
    const parts = this.split(prepared).map(
      (part) =>
        new Promise<void>((resolve, reject) => {
          this.queue.push({ projectId, spans: part.spans, locks: part.locks, resolve, reject });
          this.queued += part.spans.length;
        }),
    );
    this.opts.onQueueDepth?.(this.queued);
    this.kick();
    // Acknowledged when every part is committed; a failed part fails the request, whose retry
    // then adds only what is missing.
    const committed = Promise.all(parts);
    const timeoutMs = this.opts.commitTimeoutMs;
    if (timeoutMs === undefined) {
      await committed;
      return;
    }
    await withTimeout(committed, timeoutMs, () =>
      CollectorError.unavailable('database not answering in time, retry later', this.opts.retryAfterSeconds),
    );
  }

  private full(): CollectorError {
    return CollectorError.unavailable('ingest queue is full, retry later', this.opts.retryAfterSeconds);
  }

  /**
   * Cut a request into parts whose transactions stay within the lock budget: each takes one
   * lock per trace and one per session (at most its traces plus its conversation ids).
   */
  private split(prepared: Prepared[]): { spans: Prepared[]; locks: number }[] {
    const parts: { spans: Prepared[]; locks: number }[] = [];
    let spans: Prepared[] = [];
    let traces = new Set<string>();
    let convs = new Set<string>();
    const bound = () => 2 * traces.size + convs.size;
    for (const p of prepared) {
      const newTrace = !traces.has(p.traceId);
      const newConv = p.conv !== null && !convs.has(p.conv);
      if (spans.length > 0 && bound() + (newTrace ? 2 : 0) + (newConv ? 1 : 0) > this.maxLocks) {
        parts.push({ spans, locks: bound() });
        spans = [];
        traces = new Set();
        convs = new Set();
      }
      spans.push(p);
      traces.add(p.traceId);
      if (p.conv !== null) convs.add(p.conv);
    }
    parts.push({ spans, locks: bound() });
    return parts;
  }

  /** Stop taking work and wait until everything queued is written (or failed). */
  async drain(): Promise<void> {
    this.closed = true;
    // Requests still being read (decoded, made into rows) are queued when done, then written.
    while (this.lanes.size > 0 || this.submitting > 0) {
      if (this.lanes.size > 0) await Promise.all(this.lanes);
      else await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** Start a transaction for the queued jobs on every idle lane. */
  private kick(): void {
    while (this.lanes.size < this.opts.concurrency && this.queue.length > 0) {
      const jobs = this.take();
      const lane: Promise<void> = this.runJobs(jobs).finally(() => {
        this.lanes.delete(lane);
        this.kick();
      });
      this.lanes.add(lane);
    }
  }

  /**
   * Queued jobs, oldest first, up to this lane's share of the queue (at most maxBatchSpans) and
   * the lock budget; at least one job. The share leaves work for the other lanes: after a
   * stall (a slow WAL flush holds every lane), the backlog is written by all lanes at once
   * instead of one lane's big transaction that every waiting request then waits for.
   */
  private take(): Job[] {
    const jobs: Job[] = [];
    let n = 0;
    let locks = 0;
    const share = Math.min(this.opts.maxBatchSpans, Math.ceil(this.queued / this.opts.concurrency));
    while (this.queue.length > 0) {
      const next = this.queue[0] as Job;
      const full = n + next.spans.length > share || locks + next.locks > this.maxLocks;
      if (jobs.length > 0 && full) break;
      jobs.push(next);
      n += next.spans.length;
      locks += next.locks;
      this.queue.shift();
    }
    this.queued -= n;
    this.opts.onQueueDepth?.(this.queued);
    return jobs;
  }

  private async runJobs(jobs: Job[]): Promise<void> {
    const started = performance.now();
    try {
      try {
        await this.write(jobs, 'direct');
      } catch (err) {
        // Another writer stored one of these spans after our check: redo with ON CONFLICT.
        if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
        await this.write(jobs, 'staged');
      }
      this.opts.onBatch?.(
        jobs.reduce((s, j) => s + j.spans.length, 0),
        (performance.now() - started) / 1000,
      );
      for (const j of jobs) j.resolve();
    } catch (err) {
      if (isUnavailable(err)) {
        this.opts.log?.('Postgres unavailable; answering 503', err);
        const e = CollectorError.unavailable('database unavailable, retry later', this.opts.retryAfterSeconds, err);
        for (const j of jobs) j.reject(e);
      } else if (jobs.length > 1) {
        // One request's data broke the group: write each alone so the others still land.
        for (const j of jobs) await this.runJobs([j]);
      } else {
        // The database's words stay in the log: they name tables and indexes, and help no client.
        this.opts.log?.('batch write failed', err);
        const e = new CollectorError(500, 'internal error: the spans could not be stored', { cause: err });
        for (const j of jobs) j.reject(e);
      }
    }
  }

  /** One transaction: resolve sessions, re-key, write rows, recompute touched sessions. */
  private async write(jobs: Job[], mode: Mode): Promise<void> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      if (mode === 'staged' && !this.staged.has(client)) {
        await client.query(TARGETS.map((t) => t.createStage).join(';\n'));
        this.staged.add(client);
      }
      // BEGIN is sent with the first statements and COMMIT with the last (writeIn).
      await this.writeIn(client, jobs, mode);
    } catch (err) {
      broken = isUnavailable(err);
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw err;
    } finally {
      client.release(broken);
    }
  }

  private async writeIn(client: pg.PoolClient, jobs: Job[], mode: Mode): Promise<void> {
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
        if (e === undefined || p.facts.startNs < e.facts.startNs) earliest.set(k, p);
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
    // 3. Traces stored under their trace id whose conversation id is now known: move them.
    if (rekey.length > 0) {
      const params = [rekey.map((v) => v[0]), rekey.map((v) => v[1]), rekey.map((v) => v[2])];
      await client.query(REKEY_SPANS, params);
      for (const table of ['tool_calls', 'attempts', 'guard_checks', 'model_calls']) {
        await client.query(rekeyDerived(table), params);
      }
      for (const [p, t, s] of rekey) {
        touched.set(key(p, t), [p, t]);
        touched.set(key(p, s), [p, s]);
      }
    }
    // 4. Rows of the spans not stored yet (each once, even when a batch repeats one), and the
    //    totals of the sessions this batch may be the first to write.
    const { spanRows, derived, totals } = batchRows(jobs, mode === 'direct', traceSession, traceStart, storedTraces, existing, touched);
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
    //    their locks) the session totals; then COMMIT. Values are inlined as literals (the
    //    simple protocol takes no parameters).
    const sv = [...touched.values()];
    const fresh: Record<string, unknown>[] = [];
    for (const tot of totals.values()) if (tot.exact) fresh.push(tot.row());
    const insertAndLock = upsertTracesAndLock(
      textArray(traceRows.map((r) => r[0])),
      textArray(traceRows.map((r) => r[1])),
      textArray(traceRows.map((r) => r[2])),
      textArray(traceRowStarts),
      textArray([...touched.keys()].map((k) => `s:${k}`)),
    );
    const totalsSql = recomputeSessions(textArray(sv.map((v) => v[0])), textArray(sv.map((v) => v[1])), quote(JSON.stringify(fresh)));
    statements.push(insertAndLock, totalsSql, 'COMMIT');
    await runCopyScript(client, statements.join(';\n'), data);
  }
}
