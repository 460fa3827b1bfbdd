/**
 * Reads from a streaming replica, with the primary as the fallback (the web's `DATABASE_READ_URL`).
 *
 * Which server a read goes to is decided from a check of the replica, made at most once per
 * `checkEveryMs` and shared by the reads in between:
 * - the replica answers and its data is at most `maxLagMs` old: the replica, with that age;
 * - it is unreachable, answers with an error, is too far behind, or says nothing usable: the primary.
 * A read that fails on the replica (the replica went away since the check, or Postgres cancelled
 * the query for a conflict with recovery) runs again on the primary, and the next read checks
 * the replica afresh.
 *
 * How old the replica's data is ("lag"): WAL positions, not the replay timestamp alone. With
 * P the primary's `pg_current_wal_lsn()` read first and R the replica's `pg_last_wal_replay_lsn()`
 * read next, R >= P means the replica has everything the primary had a moment ago: lag 0. `now() -
 * pg_last_xact_replay_timestamp()` would instead grow for as long as nobody writes, on a replica
 * that misses nothing. When R < P the replica misses something, and its data is at most as old as
 * the smaller of:
 * - the time since the last check that read a primary position R has reached (the replica has
 *   everything the primary had then), and
 * - the age of the last transaction the replica replayed (its commit time, read against the
 *   primary's clock): nothing committed before it is missing.
 * With neither known (no earlier check, no transaction replayed since the replica started) the
 * age has no bound: the primary is read, until a later check bounds it.
 *
 * A server that is not a standby of the primary is not read: one of another cluster (its system
 * identifier differs), or one not in recovery that is not the primary itself (a standby promoted by
 * a failover keeps the identifier but stops following: its data would stay as it was, read as
 * caught up). `onChange` is told each time where reads go changes, with why, so the operator
 * sees it (the web logs it).
 */
import type { PrismaClient } from './client.ts';

export interface ReadChoice {
  /** The client to read with. */
  db: PrismaClient;
  source: 'primary' | 'replica';
  /**
   * With a replica configured and the primary chosen, why: it did not answer (or answered with an
   * error), or its data was older than the maximum. Null when reading from the replica or with no
   * replica configured.
   */
  fallback: null | 'unreachable' | 'lagging' | 'not_a_replica';
  /** How old the replica's data may be, in ms (0: caught up); with the primary chosen, 0. */
  lagMs: number;
}

export interface ReadRouterOptions {
  primary: PrismaClient;
  /** The replica's client; none: every read goes to the primary. */
  replica?: PrismaClient | null;
  /** Data older than this on the replica: read the primary. */
  maxLagMs: number;
  /** One check of the replica serves the reads of this long (default 1 s). */
  checkEveryMs?: number;
  /** A check that takes longer counts as an unreachable replica (default 2 s). */
  checkTimeoutMs?: number;
  /**
   * After a read fails on the replica, reads stay on the primary this long before a check may send
   * them back (default 15 s), doubled after each failure in a row up to 8 times it: a replica whose
   * open connections answer checks while new ones cannot connect (a frozen server) fails one read
   * per hold, not one per check.
   */
  failureHoldMs?: number;
  /** Monotonic milliseconds (tests pass their own). */
  clock?: () => number;
  /** Told when where reads go changes (the replica, or the primary and why), once per change. */
  onChange?: (choice: ReadChoice) => void;
}

interface Sample {
  at: number;
  lsn: bigint;
}

// Samples of the primary's WAL position kept for the age bound: enough for checks once a second
// over the longest useful maximum lag, bounded so a long-running process holds a few KB.
const MAX_SAMPLES = 600;

/** measure()'s answer for a server that is not a standby of the primary. */
const NOT_A_REPLICA = -1;

/** `X/Y` (a pg_lsn as text) as a number. */
function lsnOf(text: string): bigint {
  const [hi, lo] = text.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

export class ReadRouter {
  private readonly primary: PrismaClient;
  private readonly replica: PrismaClient | null;
  private readonly maxLagMs: number;
  private readonly checkEveryMs: number;
  private readonly checkTimeoutMs: number;
  private readonly clock: () => number;
  private samples: Sample[] = [];
  private last: { at: number; choice: Promise<ReadChoice> } | null = null;
  /** The last check's answer once it came (null while none has). */
  private settled: ReadChoice | null = null;
  /** A check under way, started while reads went on without it. */
  private pending: Promise<ReadChoice> | null = null;
  private readonly onChange: ((choice: ReadChoice) => void) | undefined;
  /** The last source and fallback told to onChange. */
  private told: string | null = null;
  private readonly failureHoldMs: number;
  /** Until when reads stay on the primary after a read failed on the replica, and how many failed in a row. */
  private heldUntil = 0;
  private failures = 0;

  constructor(opts: ReadRouterOptions) {
    this.primary = opts.primary;
    this.replica = opts.replica ?? null;
    this.maxLagMs = opts.maxLagMs;
    // 1 s: a page's queries share one check, and a replica that falls behind is noticed within a second.
    this.checkEveryMs = opts.checkEveryMs ?? 1000;
    // 2 s: a replica that answers slower than that would make every page slow; the primary is there.
    this.checkTimeoutMs = opts.checkTimeoutMs ?? 2000;
    this.clock = opts.clock ?? (() => performance.now());
    this.failureHoldMs = opts.failureHoldMs ?? 15_000;
    this.onChange = opts.onChange;
  }

  private tell(choice: ReadChoice): ReadChoice {
    const key = `${choice.source}:${choice.fallback}`;
    if (this.onChange && key !== this.told) {
      this.told = key;
      this.onChange(choice);
    }
    return choice;
  }

  /** Whether a replica is configured. */
  get hasReplica(): boolean {
    return this.replica !== null;
  }

  /**
   * Where reads go now: the last check's answer while it is fresh, else a new check's. While the
   * replica gives no answer (the last check ran out of time: a hung server, a dropped network),
   * reads go to the primary at once and the next check runs beside them, one at a time: a page
   * does not wait out each check's timeout.
   */
  choose(): Promise<ReadChoice> {
    if (!this.replica) return Promise.resolve(this.onPrimary(null));
    const now = this.clock();
    if (now < this.heldUntil) return Promise.resolve(this.onPrimary('unreachable'));
    if (this.last && now - this.last.at < this.checkEveryMs) return this.last.choice;
    if (this.settled?.fallback === 'unreachable') {
      const known = this.settled;
      if (!this.pending) {
        this.pending = this.check(this.replica).finally(() => {
          this.pending = null;
        });
        // Until it answers, reads stay on the primary; its answer is then the fresh one.
        this.last = { at: now, choice: Promise.resolve(known) };
        void this.pending.then((c) => {
          this.last = { at: this.clock(), choice: Promise.resolve(c) };
        });
      }
      return Promise.resolve(known);
    }
    const choice = this.check(this.replica);
    this.last = { at: now, choice };
    return choice;
  }

  /**
   * Runs `read` on the chosen server. On the replica, it runs again on the primary when it fails,
   * or when `orPrimaryWhen` says its answer may be missing what the primary has (a session the
   * collector has just written, not found on a lagging replica). Returns the answer and the
   * server it came from.
   */
  async read<T>(read: (db: PrismaClient) => Promise<T>, opts: { choice?: ReadChoice; orPrimaryWhen?: (value: T) => boolean } = {}): Promise<{ value: T; choice: ReadChoice }> {
    const choice = opts.choice ?? (await this.choose());
    if (choice.source === 'primary') return { value: await read(choice.db), choice };
    let value: T;
    try {
      value = await read(choice.db);
    } catch {
      // Reads go to the primary now and for the hold; the first one after it checks the replica again, beside its read.
      this.last = null;
      this.settled = this.onPrimary('unreachable');
      this.failures++;
      this.heldUntil = this.clock() + this.failureHoldMs * 2 ** Math.min(this.failures - 1, 3);
      return { value: await read(this.primary), choice: this.tell(this.settled) };
    }
    this.failures = 0;
    if (opts.orPrimaryWhen?.(value)) return { value: await read(this.primary), choice: this.onPrimary(null) };
    return { value, choice };
  }

  private onPrimary(fallback: ReadChoice['fallback']): ReadChoice {
    return { db: this.primary, source: 'primary', fallback, lagMs: 0 };
  }

  private async check(replica: PrismaClient): Promise<ReadChoice> {
    const choice = await this.checkOnce(replica);
    this.settled = choice;
    return choice;
  }

  private async checkOnce(replica: PrismaClient): Promise<ReadChoice> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), this.checkTimeoutMs);
    });
    try {
      const lagMs = await Promise.race([this.measure(replica), timeout]);
      if (lagMs === null) return this.tell(this.onPrimary('unreachable'));
      if (lagMs === NOT_A_REPLICA) return this.tell(this.onPrimary('not_a_replica'));
      if (lagMs > this.maxLagMs) return this.tell(this.onPrimary('lagging'));
      return this.tell({ db: replica, source: 'replica', fallback: null, lagMs });
    } catch {
      return this.tell(this.onPrimary('unreachable'));
    } finally {
      clearTimeout(timer);
    }
  }

  /** The replica's lag in ms (see the module's comment; infinite when unbounded), or null when it cannot tell. */
  private async measure(replica: PrismaClient): Promise<number | null> {
    const at = this.clock();
    // The primary first: whatever the replica has replayed by the time it answers, the primary had
    // written by the time of this read.
    const [p] = await this.primary.$queryRaw<{ lsn: string; now_ms: number; system: string; started: string }[]>`
      SELECT pg_current_wal_lsn()::text AS lsn, (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now_ms,
        (SELECT system_identifier::text FROM pg_control_system()) AS system, pg_postmaster_start_time()::text AS started`;
    const [r] = await replica.$queryRaw<{ standby: boolean; lsn: string | null; replayed_ms: number | null; system: string; started: string }[]>`
      SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS lsn,
        (extract(epoch FROM pg_last_xact_replay_timestamp()) * 1000)::float8 AS replayed_ms,
        (SELECT system_identifier::text FROM pg_control_system()) AS system, pg_postmaster_start_time()::text AS started`;
    if (!p || !r) return null;
    // Another cluster's server: not a copy of this data at all.
    if (r.system !== p.system) return NOT_A_REPLICA;
    // Not in recovery: the primary itself (DATABASE_READ_URL naming it: it has what it has), or a
    // standby promoted since, which no longer follows the primary.
    if (!r.standby) return r.started === p.started ? 0 : NOT_A_REPLICA;
    if (r.lsn === null) return null;
    const primaryLsn = lsnOf(p.lsn);
    const replayed = lsnOf(r.lsn);
    this.samples.push({ at, lsn: primaryLsn });
    if (this.samples.length > MAX_SAMPLES) this.samples.shift();
    // Samples older than the maximum cannot change a decision: the oldest kept bounds the rest.
    while (this.samples.length > 2 && at - (this.samples[1] as Sample).at > this.maxLagMs) this.samples.shift();
    if (replayed >= primaryLsn) return 0;
    let reached: Sample | undefined;
    for (const s of this.samples) if (s.lsn <= replayed) reached = s;
    const bounds: number[] = [];
    if (reached) bounds.push(at - reached.at);
    if (r.replayed_ms !== null) bounds.push(Math.max(0, p.now_ms - r.replayed_ms));
    return bounds.length > 0 ? Math.min(...bounds) : Number.POSITIVE_INFINITY;
  }
}
