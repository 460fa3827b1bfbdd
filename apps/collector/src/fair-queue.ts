/**
 * The writer's queue, shared between projects: jobs are taken one project at a time in turn (a
 * project with nothing queued goes first: it is the one served least recently), and the queue's
 * bound refuses only a project over its share of it. So a project that queues a lot (an
 * independent run: valid exports of 30,000 spans, 8-23 a second, within its rate limit) does not
 * make another's requests wait behind its backlog past their commit timeout, nor get them refused
 * "ingest queue is full".
 */

/** What the queue needs of a job: its project, its spans and the advisory locks its transaction takes. */
export interface QueueJob {
  projectId: string;
  spans: readonly unknown[];
  locks: number;
}

export interface TakeLimits {
  /** Spans in a transaction at most (alone, a project's jobs are grouped up to this). */
  maxBatchSpans: number;
  /** Spans in a transaction at most while several projects have jobs queued or wrote within the last 10 s. */
  maxSharedBatchSpans: number;
  /** Write lanes: a transaction takes at most its lane's share of what is queued. */
  lanes: number;
  /** Advisory locks a transaction may take. */
  maxLocks: number;
}

/**
 * How long a project counts as writing after its last request (10 s: an OpenTelemetry batch
 * exporter sends every 5 s). While more than one project is, every transaction is at most
 * maxSharedBatchSpans: a project alone at the moment take() runs (its big request queued, the
 * other's next export a few hundred milliseconds away) no longer fills both lanes with transactions
 * of maxBatchSpans of one session (8,192 spans: seconds each, the second lane waiting on the first's
 * session lock), which made the other project's exports wait past their commit timeout (503).
 */
const ACTIVE_WINDOW_MS = 10_000;

export class FairQueue<J extends QueueJob> {
  /** When each project last queued a request or started making one into rows (push(), count()). */
  private seen = new Map<string, number>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Queued jobs by project, each oldest first. */
  private queues = new Map<string, J[]>();
  /** The projects with queued jobs, in the order take() serves them. */
  private turn: string[] = [];
  /** Spans queued or being made into rows, by project (overShare()). */
  private waiting = new Map<string, number>();
  /** Spans queued. */
  queued = 0;

  get empty(): boolean {
    return this.turn.length === 0;
  }

  push(job: J): void {
    const q = this.queues.get(job.projectId);
    if (q !== undefined) q.push(job);
    else {
      this.queues.set(job.projectId, [job]);
      this.turn.unshift(job.projectId);
    }
    this.queued += job.spans.length;
    this.seen.set(job.projectId, this.now());
    this.count(job.projectId, job.spans.length);
  }

  /** Whether another project than the ones queued now has written within ACTIVE_WINDOW_MS (or several are queued). */
  private shared(): boolean {
    if (this.turn.length > 1) return true;
    const since = this.now() - ACTIVE_WINDOW_MS;
    let active = 0;
    for (const [project, at] of this.seen) {
      if (at < since) this.seen.delete(project);
      else if (++active > 1) return true;
    }
    return false;
  }

  /** Spans of a project being made into rows (`n` < 0: done), which count toward its share. */
  count(projectId: string, n: number): void {
    if (n > 0 && !this.waiting.has(projectId)) this.seen.set(projectId, this.now());
    const v = (this.waiting.get(projectId) ?? 0) + n;
    if (v > 0) this.waiting.set(projectId, v);
    else this.waiting.delete(projectId);
  }

  /**
   * Whether a project, with `more` spans, would hold more than its share of `bound`: the bound
   * divided among the projects with spans waiting (this one included). Before its rows are made
   * (`more` 0), as the queue's own check: at its share already.
   */
  overShare(projectId: string, more: number, bound: number): boolean {
    const own = this.waiting.get(projectId) ?? 0;
    const share = bound / (this.waiting.size + (own === 0 ? 1 : 0));
    return more === 0 ? own >= share : own + more > share;
  }

  /**
   * Queued jobs up to a lane's share of the queue (at most maxBatchSpans; maxSharedBatchSpans
   * while several projects have jobs queued or wrote lately, so that lanes turn over quickly) and
   * the lock budget; at least one job; projects in turn, each with as many of its jobs as fit. The share leaves work for the other lanes: after
   * a stall (a slow WAL flush holds every lane), the backlog is written by all lanes at once
   * instead of one lane's big transaction that every waiting request then waits for.
   */
  take(limits: TakeLimits): J[] {
    const jobs: J[] = [];
    let n = 0;
    let locks = 0;
    const most = this.shared() ? limits.maxSharedBatchSpans : limits.maxBatchSpans;
    const share = Math.min(most, Math.ceil(this.queued / limits.lanes));
    while (this.turn.length > 0) {
      const project = this.turn[0] as string;
      const q = this.queues.get(project) as J[];
      // As many of the project's jobs as fit: one job a turn let a project of small requests (100
      // spans each, 5 a second) take 100 spans a transaction while another took 2,048, and its
      // backlog grew past the commit timeout.
      let took = 0;
      while (q.length > 0) {
        const next = q[0] as J;
        const full = n + next.spans.length > share || locks + next.locks > limits.maxLocks;
        if (jobs.length > 0 && full) break;
        jobs.push(next);
        n += next.spans.length;
        locks += next.locks;
        q.shift();
        this.count(project, -next.spans.length);
        took++;
      }
      // Its next job does not fit: it stays first in turn for the next transaction.
      if (took === 0) break;
      this.turn.shift();
      if (q.length > 0) {
        // Served, more left: to the back of the turn; this transaction is full.
        this.turn.push(project);
        break;
      }
      // All of it taken: the next project's jobs may fill the rest.
      this.queues.delete(project);
    }
    this.queued -= n;
    return jobs;
  }
}
