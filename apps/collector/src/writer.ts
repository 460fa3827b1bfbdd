/**
 * The ingest writer: requests hand it their spans and wait; it groups whatever is queued into
 * one transaction (spans, derived rows, session totals), commits, then answers every waiting
 * request. Acknowledged means committed. One transaction at a time per process keeps session
 * re-keying race-free and lets batches grow under load instead of connections.
 */
import type pg from 'pg';
import { CollectorError } from './errors.ts';
import { conversationId, type DerivedRows, derive } from './mapping.ts';
import type { NormSpan } from './normalize.ts';
import { isUnavailable } from './pg.ts';
import { copyRows } from './copy.ts';
import {
  ALL_STAGED,
  ATTEMPTS,
  GUARD_CHECKS,
  MODEL_CALLS,
  RECOMPUTE_SESSIONS,
  REKEY_SPANS,
  rekeyDerived,
  SPANS,
  STORED_SESSIONS,
  TOOL_CALLS,
} from './sql.ts';

export interface WriterOptions {
  /** Spans per transaction (several requests are grouped up to this). */
  maxBatchSpans: number;
  /** Spans waiting for the writer; beyond this new requests get 503. */
  maxQueueSpans: number;
  /** Seconds a client is told to wait when the queue is full or Postgres is down. */
  retryAfterSeconds: number;
  onBatch?: (spans: number, seconds: number) => void;
  onQueueDepth?: (spans: number) => void;
  log?: (msg: string, err?: unknown) => void;
}

interface Job {
  projectId: string;
  spans: NormSpan[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class Writer {
  private queue: Job[] = [];
  private queued = 0;
  private running: Promise<void> | null = null;
  /** Connections that already have the staging temp tables. */
  private staged = new WeakSet<pg.PoolClient>();
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly opts: WriterOptions,
  ) {}

  get queuedSpans(): number {
    return this.queued;
  }

  /** Resolves once the spans are committed; rejects with a CollectorError otherwise. */
  submit(projectId: string, spans: NormSpan[]): Promise<void> {
    if (spans.length === 0) return Promise.resolve();
    if (this.closed) return Promise.reject(CollectorError.unavailable('collector is shutting down', this.opts.retryAfterSeconds));
    if (this.queued > 0 && this.queued + spans.length > this.opts.maxQueueSpans) {
      return Promise.reject(
        CollectorError.unavailable('ingest queue is full, retry later', this.opts.retryAfterSeconds),
      );
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ projectId, spans, resolve, reject });
      this.queued += spans.length;
      this.opts.onQueueDepth?.(this.queued);
      this.kick();
    });
  }

  /** Stop taking work and wait until everything queued is written (or failed). */
  async drain(): Promise<void> {
    this.closed = true;
    while (this.running) await this.running;
  }

  private kick(): void {
    if (this.running || this.queue.length === 0) return;
    this.running = this.loop().finally(() => {
      this.running = null;
      this.kick();
    });
  }

  private async loop(): Promise<void> {
    while (this.queue.length > 0) {
      const jobs: Job[] = [];
      let n = 0;
      while (this.queue.length > 0) {
        const next = this.queue[0] as Job;
        if (jobs.length > 0 && n + next.spans.length > this.opts.maxBatchSpans) break;
        jobs.push(next);
        n += next.spans.length;
        this.queue.shift();
      }
      this.queued -= n;
      this.opts.onQueueDepth?.(this.queued);
      await this.runJobs(jobs);
    }
  }

  private async runJobs(jobs: Job[]): Promise<void> {
    const started = performance.now();
    try {
      await this.write(jobs);
      this.opts.onBatch?.(jobs.reduce((s, j) => s + j.spans.length, 0), (performance.now() - started) / 1000);
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
        this.opts.log?.('batch write failed', err);
        for (const j of jobs) j.reject(new CollectorError(500, `could not store spans: ${(err as Error).message}`, { cause: err }));
      }
    }
  }

  /** One transaction: resolve sessions, re-key, insert rows, recompute touched sessions. */
  private async write(jobs: Job[]): Promise<void> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      if (!this.staged.has(client)) {
        await client.query(ALL_STAGED.map((t) => t.create).join(';\n'));
        this.staged.add(client);
      }
      await client.query('BEGIN');
      await this.writeIn(client, jobs);
      await client.query('COMMIT');
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

  private async writeIn(client: pg.PoolClient, jobs: Job[]): Promise<void> {
    // 1. Conversation id per (project, trace) as far as this batch knows it.
    const traceSession = new Map<string, string>();
    const unknown = new Map<string, [string, string]>();
    for (const job of jobs) {
      for (const span of job.spans) {
        const conv = conversationId(span);
        const k = `${job.projectId}/${span.traceId}`;
        if (conv !== null && !traceSession.has(k)) traceSession.set(k, conv);
      }
    }
    for (const job of jobs) {
      for (const span of job.spans) {
        const k = `${job.projectId}/${span.traceId}`;
        if (!traceSession.has(k)) unknown.set(k, [job.projectId, span.traceId]);
      }
    }
    // 2. Traces the batch has no id for: one may already be stored.
    if (unknown.size > 0) {
      const vals = [...unknown.values()];
      const { rows } = await client.query<{ project_id: string; trace_id: string; session_id: string }>(
        STORED_SESSIONS,
        [vals.map((v) => v[0]), vals.map((v) => v[1])],
      );
      for (const r of rows) traceSession.set(`${r.project_id}/${r.trace_id}`, r.session_id);
    }
    const touched = new Map<string, [string, string]>();
    // 3. Traces stored under their trace id that now have a conversation id: move them.
    const known = [...traceSession.entries()];
    if (known.length > 0) {
      const p = known.map(([k]) => k.slice(0, k.indexOf('/')));
      const t = known.map(([k]) => k.slice(k.indexOf('/') + 1));
      const s = known.map(([, v]) => v);
      const moved = await client.query<{ project_id: string; trace_id: string; session_id: string }>(REKEY_SPANS, [p, t, s]);
      if (moved.rowCount) {
        const m = new Map<string, [string, string, string]>();
        for (const r of moved.rows) m.set(`${r.project_id}/${r.trace_id}`, [r.project_id, r.trace_id, r.session_id]);
        const mv = [...m.values()];
        const params = [mv.map((v) => v[0]), mv.map((v) => v[1]), mv.map((v) => v[2])];
        for (const table of ['tool_calls', 'attempts', 'guard_checks', 'model_calls']) {
          await client.query(rekeyDerived(table), params);
        }
        for (const [pid, tid, sid] of mv) {
          touched.set(`${pid}/${tid}`, [pid, tid]);
          touched.set(`${pid}/${sid}`, [pid, sid]);
        }
      }
    }
    // 4. Rows.
    const spanRows: Record<string, unknown>[] = [];
    const derived: DerivedRows = { toolCalls: [], attempts: [], guardChecks: [], modelCalls: [] };
    for (const job of jobs) {
      for (const span of job.spans) {
        const sessionId =
          conversationId(span) ?? traceSession.get(`${job.projectId}/${span.traceId}`) ?? span.traceId;
        touched.set(`${job.projectId}/${sessionId}`, [job.projectId, sessionId]);
        spanRows.push({
          project_id: job.projectId,
          trace_id: span.traceId,
          span_id: span.spanId,
          parent_span_id: span.parentSpanId,
          session_id: sessionId,
          name: span.name,
          kind: span.kind,
          start_ns: span.startNs.toString(),
          end_ns: span.endNs.toString(),
          status_code: span.statusCode,
          status_message: span.statusMessage,
          service_name: span.serviceName,
          scope_name: span.scopeName,
          scope_version: span.scopeVersion,
          attributes: span.attributes,
          resource: span.resource,
          events: span.events,
          links: span.links,
        });
        derive(span, job.projectId, sessionId, derived);
      }
    }
    const staged: [typeof SPANS, Record<string, unknown>[]][] = [
      [SPANS, spanRows],
      [TOOL_CALLS, derived.toolCalls],
      [ATTEMPTS, derived.attempts],
      [GUARD_CHECKS, derived.guardChecks],
      [MODEL_CALLS, derived.modelCalls],
    ];
    const inserts: string[] = [];
    for (const [t, rows] of staged) {
      if (rows.length === 0) continue;
      await copyRows(client, t.temp, rows, t.columns);
      inserts.push(t.insert);
    }
    // One round trip for every move from the stage (simple protocol allows several statements).
    await client.query(inserts.join(';\n'));
    // 5. Session totals from what is stored now.
    const tv = [...touched.values()];
    await client.query(RECOMPUTE_SESSIONS, [tv.map((v) => v[0]), tv.map((v) => v[1])]);
  }
}
