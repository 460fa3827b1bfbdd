import type { CircuitState } from '@guardtrace/semconv';

export interface Budgets {
  /** Hard cap of attempts for one logical tool call. Seeds: "hard-cap retries per tool call at 2-3 attempts". */
  maxAttemptsPerCall: number;
  /** Retries across one session. Seeds: "a session-wide budget (e.g. 10 total retries)". */
  sessionRetries: number;
  /** Rejections with feedback per task (session). Seeds: "two is a common choice". */
  rejectionsPerTask: number;
  /**
   * What `rejectionsPerTask` counts over: `task` (default), every rejection of the session
   * since it began or since `startTask()`; `call`, the rejections of one logical call (a call
   * and the model's corrections of it), for a long-lived session that serves many unrelated
   * tasks and has no task boundary to mark, such as an MCP proxy's connection.
   */
  rejectionsScope: 'task' | 'call';
  /** Added wall-clock latency (backoff + failed attempts) per session. Seeds: "commonly 30 seconds". */
  addedLatencyMs: number;
  /** Repair tokens per user on a rolling window (the SRE rule: budget retry tokens per user, not attempts). */
  repairTokens: { perUser: number; windowMs: number };
  /**
   * Consecutive failed calls of a tool (each counted once its code-level retries ended) that open
   * its circuit, and how long it stays open. Seeds: circuit breakers "kill runaway operations".
   */
  circuitBreaker: { failureThreshold: number; cooldownMs: number };
}

export const DEFAULT_BUDGETS: Budgets = {
  maxAttemptsPerCall: 3,
  sessionRetries: 10,
  rejectionsPerTask: 2,
  rejectionsScope: 'task',
  addedLatencyMs: 30_000,
  // ~10 context-replay repairs of a three-step agent (18k tokens each) per user per hour.
  repairTokens: { perUser: 200_000, windowMs: 60 * 60 * 1000 },
  // 5 straight failed calls is a pattern, not bad luck; 30 s lets a flapping dependency recover.
  // Calls, not attempts: a call's retries are what a framework's code does within one tool call, and
  // an outage must not be cut before those would have got through (issue 25 point 2).
  circuitBreaker: { failureThreshold: 5, cooldownMs: 30_000 },
};

export type BudgetOverrides = Partial<Omit<Budgets, 'repairTokens' | 'circuitBreaker'>> & {
  repairTokens?: Partial<Budgets['repairTokens']>;
  circuitBreaker?: Partial<Budgets['circuitBreaker']>;
};

export function mergeBudgets(base: Budgets, o: BudgetOverrides | undefined): Budgets {
  if (!o) return base;
  return {
    ...base,
    ...o,
    repairTokens: { ...base.repairTokens, ...o.repairTokens },
    circuitBreaker: { ...base.circuitBreaker, ...o.circuitBreaker },
  };
}

/** Repair tokens spent per user on a rolling window. */
export class RepairLedger {
  readonly #entries = new Map<string, { at: number; tokens: number }[]>();
  constructor(private readonly windowMs: number) {}

  add(user: string, tokens: number, now: number): void {
    const from = now - this.windowMs;
    const list = (this.#entries.get(user) ?? []).filter((e) => e.at > from);
    list.push({ at: now, tokens });
    this.#entries.set(user, list);
    // users who never come back must not pile up: sweep expired users once the map is large
    if (this.#entries.size > 10_000) {
      for (const [u, l] of this.#entries) if (!l.some((e) => e.at > from)) this.#entries.delete(u);
    }
  }

  spent(user: string, now: number): number {
    const list = this.#entries.get(user);
    if (!list) return 0;
    const from = now - this.windowMs;
    const kept = list.filter((e) => e.at > from);
    if (kept.length !== list.length) this.#entries.set(user, kept);
    return kept.reduce((sum, e) => sum + e.tokens, 0);
  }
}

/** Per-tool circuit breaker: opens after N consecutive execution failures, half-opens after a cooldown. */
export class CircuitBreakers {
  readonly #state = new Map<string, { failures: number; openedAt?: number }>();
  constructor(private readonly cfg: Budgets['circuitBreaker']) {}

  state(tool: string, now: number): CircuitState {
    const s = this.#state.get(tool);
    if (!s || s.openedAt === undefined) return 'closed';
    return now - s.openedAt >= this.cfg.cooldownMs ? 'half_open' : 'open';
  }

  success(tool: string): void {
    this.#state.delete(tool);
  }

  failure(tool: string, now: number): void {
    const s = this.#state.get(tool) ?? { failures: 0 };
    s.failures += 1;
    if (s.openedAt !== undefined && now - s.openedAt >= this.cfg.cooldownMs) s.openedAt = now; // half-open trial failed
    else if (s.failures >= this.cfg.failureThreshold) s.openedAt ??= now;
    this.#state.set(tool, s);
  }
}
