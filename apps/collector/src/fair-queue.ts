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
  /** Spans in a transaction at most while several projects have jobs queued. */
  maxSharedBatchSpans: number;
  /** Write lanes: a transaction takes at most its lane's share of what is queued. */
  lanes: number;
  /** Advisory locks a transaction may take. */
  maxLocks: number;
}

export class FairQueue<J extends QueueJob> {
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
    this.count(job.projectId, job.spans.length);
  }

  /** Spans of a project being made into rows (`n` < 0: done), which count toward its share. */
  count(projectId: string, n: number): void {
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
   * while several projects have jobs queued, so that lanes turn over quickly) and the lock budget;
   * at least one job; one job a project in turn. The share leaves work for the other lanes: after
   * a stall (a slow WAL flush holds every lane), the backlog is written by all lanes at once
   * instead of one lane's big transaction that every waiting request then waits for.
   */
  take(limits: TakeLimits): J[] {
    const jobs: J[] = [];
    let n = 0;
    let locks = 0;
    const most = this.turn.length > 1 ? limits.maxSharedBatchSpans : limits.maxBatchSpans;
    const share = Math.min(most, Math.ceil(this.queued / limits.lanes));
    while (this.turn.length > 0) {
      const project = this.turn[0] as string;
      const q = this.queues.get(project) as J[];
      const next = q[0] as J;
      const full = n + next.spans.length > share || locks + next.locks > limits.maxLocks;
      if (jobs.length > 0 && full) break;
      jobs.push(next);
      n += next.spans.length;
      locks += next.locks;
      q.shift();
      this.count(project, -next.spans.length);
      // To the back of the turn (or out of it).
      this.turn.shift();
      if (q.length > 0) this.turn.push(project);
      else this.queues.delete(project);
    }
    this.queued -= n;
    return jobs;
  }
}
