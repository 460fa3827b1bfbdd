/**
 * The ingest writer: requests hand it their spans and wait; it groups whatever is queued into
 * a transaction (spans, derived rows, session totals), commits, then answers every waiting
 * request. Acknowledged means committed. A few transactions run at once so Postgres and this
 * process work in parallel; transaction-scoped advisory locks on the batch's traces (taken
 * first) and sessions (taken before their totals are recomputed), always in key order, make
 * transactions that share a trace or session run one after the other — also across
 * collector instances — so session lookup, re-keying and totals see each other's rows.
 *
 * What one transaction does with its batch is write-batch.ts.
 */
import type pg from 'pg';
import { CollectorError } from './errors.ts';
import type { NormSpan, SpanOrPause } from './span.ts';
import { isConflict, isUnavailable, withTimeout } from './pg.ts';
import { arenaOf, type Prepared, prepareSpan, requestArena } from './prepare.ts';
import { FairQueue } from './fair-queue.ts';
import { TARGETS } from './sql.ts';
import { type BatchJob, type BatchMode, writeBatch } from './write-batch.ts';

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
  /** Milliseconds, for the queue's notion of "recently" (tests move it on); performance.now() by default. */
  clock?: () => number;
}

interface Job extends BatchJob {
  /** Upper bound of the advisory locks its transaction takes (traces, then sessions). */
  locks: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

type Mode = BatchMode;
// Spans prepared between two turns of the event loop (~0.5 ms of work).
const PREPARE_SLICE = 128;
const UNIQUE_VIOLATION = '23505';
// A transaction Postgres aborts as a deadlock victim (two batches upserting the same daily rollup
// rows) is written again at once, up to this many times, before the client is told 503: the other
// transaction has committed or rolled back by then, so the rerun almost always goes through.
const CONFLICT_RETRIES = 3;
// 2,048 advisory locks per transaction: a few lanes stay far below Postgres' default shared
// lock table (max_locks_per_transaction 64 x max_connections 100 = 6,400 entries).
const MAX_LOCKS_PER_TRANSACTION = 2_048;
// Spans of one request in one transaction at most (~0.2-0.4 s of writing for the benchmark's
// spans on 2 cores): what another project's request may wait for a lane.
const MAX_PART_SPANS = 2_048;
// Parts of a request from this many spans on are cut into one piece per lane (spread()).
const SPREAD_MIN_SPANS = 256;

export class Writer {
  /** Queued jobs, taken one project at a time (fair-queue.ts). */
  private queue: FairQueue<Job>;
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
  /**
   * The most spans of one request a transaction takes (MAX_PART_SPANS, or maxBatchSpans when
   * smaller): a request of 30,000 spans held both lanes for seconds, and another project's
   * request waited behind it past its commit timeout.
   */
  private readonly maxPartSpans: number;

  constructor(
    private readonly pool: pg.Pool,
    private readonly opts: WriterOptions,
  ) {
    this.queue = new FairQueue<Job>(opts.clock);
    this.maxLocks = opts.maxLocksPerTransaction ?? MAX_LOCKS_PER_TRANSACTION;
    this.maxPartSpans = Math.min(opts.maxBatchSpans, MAX_PART_SPANS);
  }

  get queuedSpans(): number {
    return this.queue.queued + this.preparing;
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
    opts: {
      each?: (span: NormSpan) => void;
      arenaBytes?: number;
      /**
       * Told the size of each chunk of row text before it is made (the request's rows live until
       * its commit, and are copied once more into the transaction's COPY buffers); may throw,
       * which rejects the request before anything is queued.
       */
      onRowBytes?: (bytes: number) => void;
    } = {},
  ): Promise<void> {
    if (this.closed) throw CollectorError.unavailable('collector is shutting down', this.opts.retryAfterSeconds);
    if (this.queuedSpans >= this.opts.maxQueueSpans && this.queue.overShare(projectId, 0, this.opts.maxQueueSpans)) throw this.full();
    // Rows are built here, in the request, so this CPU work overlaps the running transaction;
    // in slices, so a big request does not hold up the commits and answers of the others.
    const prepared: Prepared[] = [];
    this.submitting++;
    try {
      const arena = opts.arenaBytes
        ? arenaOf(opts.arenaBytes, opts.onRowBytes)
        : requestArena(Array.isArray(spans) ? spans.length : 0, opts.onRowBytes);
      for (const span of spans) {
        // A decoder's pause (it has been rejecting spans): let other requests run.
        if (span === null) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          continue;
        }
        opts.each?.(span);
        prepared.push(prepareSpan(projectId, span, arena));
        this.preparing++;
        this.queue.count(projectId, 1);
        if (prepared.length % PREPARE_SLICE === 0) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          // The queue may have filled meanwhile (requests are made into rows side by side): a
          // project over its share stops here, not after all its rows are made only to be refused
          // (a flood of big requests of one project then spent the CPU the others' requests wait for).
          if (this.queuedSpans >= this.opts.maxQueueSpans && this.queue.overShare(projectId, 0, this.opts.maxQueueSpans)) throw this.full();
        }
      }
    } finally {
      this.preparing -= prepared.length;
      this.queue.count(projectId, -prepared.length);
      this.submitting--;
    }
    if (prepared.length === 0) return;
    const waiting = this.queuedSpans;
    if (waiting > 0 && waiting + prepared.length > this.opts.maxQueueSpans && this.queue.overShare(projectId, prepared.length, this.opts.maxQueueSpans)) {
      throw this.full();
    }
    // (Queued even when drain() began meanwhile: it waits for requests being prepared too.)
    const parts = this.split(prepared)
      .flatMap((part) => this.spread(part))
      .map(
        (part) =>
          new Promise<void>((resolve, reject) => {
            this.queue.push({ projectId, spans: part.spans, locks: part.locks, resolve, reject });
          }),
      );
    this.opts.onQueueDepth?.(this.queue.queued);
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
   * A part big enough is cut into one piece per lane, each piece whole sessions (a trace goes with
   * its first conversation id, else is a session of its own), so idle lanes write a big request
   * at once instead of one lane alone: its acknowledgement waits for the slowest piece, about
   * half the time when the other lane is free. Under load nothing changes: take() puts the pieces
   * of a request back into one transaction whenever the lane's share of the queue holds them.
   */
  private spread(part: { spans: Prepared[]; locks: number }): { spans: Prepared[]; locks: number }[] {
    const lanes = this.opts.concurrency;
    if (lanes < 2 || part.spans.length < SPREAD_MIN_SPANS) return [part];
    const traceSession = new Map<string, string>();
    for (const p of part.spans) if (p.conv !== null && !traceSession.has(p.traceKey)) traceSession.set(p.traceKey, `c:${p.conv}`);
    const sessions = new Map<string, Prepared[]>();
    for (const p of part.spans) {
      const k = traceSession.get(p.traceKey) ?? `t:${p.traceKey}`;
      const group = sessions.get(k);
      if (group === undefined) sessions.set(k, [p]);
      else group.push(p);
    }
    if (sessions.size < 2) return [part];
    const target = Math.ceil(part.spans.length / lanes);
    const pieces: Prepared[][] = [[]];
    for (const group of sessions.values()) {
      let piece = pieces[pieces.length - 1] as Prepared[];
      if (piece.length >= target && pieces.length < lanes) {
        piece = [];
        pieces.push(piece);
      }
      for (const p of group) piece.push(p);
    }
    return pieces.map((spans) => {
      const traces = new Set<string>();
      const convs = new Set<string>();
      for (const p of spans) {
        traces.add(p.traceId);
        if (p.conv !== null) convs.add(p.conv);
      }
      return { spans, locks: 2 * traces.size + convs.size };
    });
  }

  /**
   * Cut a request into parts whose transactions stay within the lock budget (each takes one
   * lock per trace and one per session: at most its traces plus its conversation ids) and within
   * maxPartSpans, so that no one request holds a lane for long.
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
      if (spans.length > 0 && (bound() + (newTrace ? 2 : 0) + (newConv ? 1 : 0) > this.maxLocks || spans.length >= this.maxPartSpans)) {
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
    while (this.lanes.size < this.opts.concurrency && !this.queue.empty) {
      const jobs = this.take();
      const lane: Promise<void> = this.runJobs(jobs).finally(() => {
        this.lanes.delete(lane);
        this.kick();
      });
      this.lanes.add(lane);
    }
  }

  /** The jobs of the next transaction (FairQueue.take). */
  private take(): Job[] {
    const jobs = this.queue.take({
      maxBatchSpans: this.opts.maxBatchSpans,
      maxSharedBatchSpans: this.maxPartSpans,
      lanes: this.opts.concurrency,
      maxLocks: this.maxLocks,
    });
    this.opts.onQueueDepth?.(this.queue.queued);
    return jobs;
  }

  private async runJobs(jobs: Job[]): Promise<void> {
    const started = performance.now();
    try {
      for (let conflicts = 0; ; conflicts++) {
        try {
          try {
            await this.write(jobs, 'direct');
          } catch (err) {
            // Another writer stored one of these spans after our check: redo with ON CONFLICT.
            if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
            await this.write(jobs, 'staged');
          }
          break;
        } catch (err) {
          if (!isConflict(err) || conflicts >= CONFLICT_RETRIES) throw err;
          this.opts.log?.('write transaction aborted by a conflict with another; writing it again', err);
        }
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
      // BEGIN is sent with the first statements and COMMIT with the last (writeBatch).
      await writeBatch(client, jobs, mode);
    } catch (err) {
      // (a conflict aborted the transaction only: the connection is sound)
      broken = isUnavailable(err) && !isConflict(err);
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw err;
    } finally {
      client.release(broken);
    }
  }
}
