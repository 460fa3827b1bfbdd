/**
 * Per-key token buckets. Hand-written rather than rate-limiter-flexible: its memory limiter
 * is a fixed window, and a bucket (steady rate + burst) is what lets a batch exporter's
 * periodic flushes through while capping a runaway client. Twenty lines, tested beside.
 */
export interface BucketOptions {
  /** Tokens (requests) added per second. 0 disables limiting. */
  ratePerSecond: number;
  /** Bucket size: requests allowed back to back. */
  burst: number;
  /** Buckets kept; the least recently used is dropped beyond this. */
  maxKeys?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private buckets = new Map<string, Bucket>();
  constructor(
    private readonly opts: BucketOptions,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** 0 when allowed (a token is taken), else the seconds until a token is available. */
  take(key: string): number {
    const { ratePerSecond, burst } = this.opts;
    if (ratePerSecond <= 0) return 0;
    const t = this.now();
    let b = this.buckets.get(key);
    if (b) {
      this.buckets.delete(key);
      b.tokens = Math.min(burst, b.tokens + ((t - b.at) / 1000) * ratePerSecond);
      b.at = t;
    } else {
      b = { tokens: burst, at: t };
    }
    this.buckets.set(key, b);
    // 10,000 keys: far more than active keys per collector; bounds memory against key spraying.
    if (this.buckets.size > (this.opts.maxKeys ?? 10_000)) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return (1 - b.tokens) / ratePerSecond;
  }
}
