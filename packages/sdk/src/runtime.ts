import type { Tracer } from '@opentelemetry/api';
import { type BudgetOverrides, type Budgets, CircuitBreakers, DEFAULT_BUDGETS, mergeBudgets, RepairLedger } from './budgets.ts';
import { type IdempotencyStore, MemoryIdempotencyStore } from './idempotency.ts';
import { DEFAULT_BACKOFF, DEFAULT_POLICY, mergePolicy } from './policy.ts';
import type { SanitizeOptions } from './sanitize.ts';
import { Telemetry } from './telemetry.ts';
import type { AutoRepairSetting, BackoffConfig, CaptureMode, Clock, PolicyOverrides, PolicyTable, ToolSpec } from './types.ts';

export const SDK_VERSION = '0.1.0';
/** Version of the guardtrace.* attribute set written on spans. */
export const SCHEMA_VERSION = 1;

export interface GuardtraceOptions {
  /** Tracer to emit spans with (default: the global tracer provider's `@guardtrace/sdk` tracer). */
  tracer?: Tracer;
  /** `false` turns span emission off; guards and policy still run. */
  tracing?: boolean;
  budgets?: BudgetOverrides;
  /** Per-class policy overrides for every tool. */
  policy?: PolicyOverrides;
  backoff?: Partial<BackoffConfig>;
  /** Injectable clock, sleep and randomness (deterministic tests and simulations). */
  clock?: Partial<Clock>;
  idempotencyStore?: IdempotencyStore;
  sanitize?: SanitizeOptions;
  /**
   * Tail sampling of clean sessions, decided at the session's end from its id: sessions with
   * a failure, escalation or budget hit are always kept. Default 1 (keep all). A function is
   * asked at each session's end (e.g. `remoteSamplingRate(...).rate`, the project's rate
   * set in the web app and served by the collector).
   */
  sampling?: { cleanSessionRate?: number | (() => number) };
  /**
   * Repair in code, without a model turn, of mistakes with exactly one sound correction (an
   * argument name, a tool name, a path). Default `true`, which applies to read-only and
   * idempotent tools only; a tool's own `autoRepair` overrides it, and only that opts a tool
   * that is neither in.
   */
  autoRepair?: AutoRepairSetting;
  /**
   * Tool-call content on spans (arguments and results, opt-in in the GenAI conventions):
   * `'all'`, `'failures'` (default) or `'none'`; see `CaptureMode`. At the default
   * `cleanSessionRate` of 1 every clean session is sampled in, so `'failures'` records what
   * `'all'` does; below it, the clean calls of sessions not sampled in go without content.
   * A tool's own `capture` overrides it.
   */
  capture?: CaptureMode;
}

const CAPTURE_MODES: readonly unknown[] = ['all', 'failures', 'none'];

/** Throws a clear error for a `capture` option that is not one of the modes. */
function checkCapture(v: unknown, where: string): CaptureMode | undefined {
  if (v === undefined || CAPTURE_MODES.includes(v)) return v as CaptureMode | undefined;
  throw new TypeError(`${where}: expected 'all', 'failures' or 'none', got ${typeof v === 'string' ? `'${v}'` : String(v)}`);
}

/**
 * A tool's schema must be a zod 4 schema (`_zod`): a zod 3 one (an agent on zod 3, installed past
 * the peer range) would fail every call inside the schema guard, shown to the model as a guard
 * error; said here instead, at registration.
 */
function checkSchema(schema: unknown, tool: string): void {
  if (typeof schema === 'object' && schema !== null && '_zod' in schema) return;
  if (typeof schema === 'object' && schema !== null && '_def' in schema) {
    throw new TypeError(`guardtrace: tool "${tool}": schema is a zod 3 schema; the SDK reads zod 4 schemas (its peer dependency zod@^4): upgrade with \`npm install zod@^4\``);
  }
  throw new TypeError(`guardtrace: tool "${tool}": schema is not a zod schema; pass one made with zod 4 (e.g. z.object({ ... }))`);
}

const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: () => Math.random(),
};

/** A registered tool with its merged policy. */
export interface RegisteredTool extends ToolSpec {
  readonly mergedPolicy: PolicyTable;
}

/** Per-lock-resource holders, shared by every session of one Guardtrace instance. */
class LockTable {
  readonly #holders = new Map<string, string>();
  acquire(resource: string, holder: string): { ok: true } | { ok: false; holder: string } {
    const cur = this.#holders.get(resource);
    if (cur !== undefined && cur !== holder) return { ok: false, holder: cur };
    this.#holders.set(resource, holder);
    return { ok: true };
  }
  release(resource: string, holder: string): void {
    if (this.#holders.get(resource) === holder) this.#holders.delete(resource);
  }
  holder(resource: string): string | undefined {
    return this.#holders.get(resource);
  }
}

/** Everything a session and its tool calls share. Internal. */
export class Runtime {
  readonly telemetry: Telemetry;
  readonly clock: Clock;
  readonly budgets: Budgets;
  readonly policy: PolicyTable;
  readonly backoff: BackoffConfig;
  readonly breakers: CircuitBreakers;
  readonly ledger: RepairLedger;
  readonly idempotency: IdempotencyStore;
  readonly locks = new LockTable();
  readonly tools: Map<string, RegisteredTool>;
  /**
   * Set on a check runtime (guards-only evaluation, `gt.checkSession()`): tools do not run,
   * except read-only ones under `'read-only'`; undefined on a real one.
   */
  readonly dryRun: 'none' | 'read-only' | undefined;
  readonly #opts: GuardtraceOptions;
  readonly sanitize: SanitizeOptions;
  readonly autoRepair: AutoRepairSetting;
  readonly capture: CaptureMode;
  readonly #rate: () => number;

  constructor(opts: GuardtraceOptions, check?: { tools: Map<string, RegisteredTool>; execute: 'none' | 'read-only' }) {
    this.#opts = opts;
    this.tools = check?.tools ?? new Map();
    this.dryRun = check?.execute;
    this.telemetry = new Telemetry(opts.tracer, opts.tracing !== false, SDK_VERSION);
    const c = opts.clock;
    // method lookups, not a spread: a class instance keeps its methods on the prototype
    this.clock = {
      now: c?.now ? () => c.now!() : realClock.now,
      sleep: c?.sleep ? (ms) => c.sleep!(ms) : realClock.sleep,
      random: c?.random ? () => c.random!() : realClock.random,
    };
    this.budgets = mergeBudgets(DEFAULT_BUDGETS, opts.budgets);
    this.policy = mergePolicy(DEFAULT_POLICY, opts.policy);
    this.backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
    this.breakers = new CircuitBreakers(this.budgets.circuitBreaker);
    this.ledger = new RepairLedger(this.budgets.repairTokens.windowMs);
    this.idempotency = opts.idempotencyStore ?? new MemoryIdempotencyStore();
    this.sanitize = opts.sanitize ?? {};
    this.autoRepair = opts.autoRepair ?? true;
    this.capture = checkCapture(opts.capture, 'guardtrace: option capture') ?? 'failures';
    const rate = opts.sampling?.cleanSessionRate ?? 1;
    this.#rate = typeof rate === 'function' ? rate : () => rate;
  }

  /**
   * A runtime for guards-only evaluation: the same tools (registered later ones too), options,
   * policy and auto-repair; no spans, no waits; its own idempotency store, locks, circuit
   * breakers and repair ledger, so nothing it does touches the real sessions'.
   */
  checkRuntime(execute: 'none' | 'read-only'): Runtime {
    const clock = this.clock;
    const opts: GuardtraceOptions = {
      ...this.#opts,
      tracing: false,
      clock: { now: () => clock.now(), random: () => clock.random(), sleep: () => Promise.resolve() },
      idempotencyStore: new MemoryIdempotencyStore(),
      sampling: { cleanSessionRate: 1 },
    };
    delete opts.tracer;
    return new Runtime(opts, { tools: this.tools, execute });
  }

  /** Fraction of clean sessions kept, now (clamped to 0..1; a failing rate source keeps all). */
  cleanSessionRate(): number {
    try {
      const r = this.#rate();
      return Number.isFinite(r) ? Math.min(1, Math.max(0, r)) : 1;
    } catch {
      return 1;
    }
  }

  register(spec: ToolSpec): RegisteredTool {
    if (this.tools.has(spec.name)) throw new Error(`guardtrace: tool "${spec.name}" is already registered`);
    checkCapture(spec.capture, `guardtrace: tool "${spec.name}": option capture`);
    checkSchema(spec.schema, spec.name);
    const tool: RegisteredTool = { ...spec, mergedPolicy: mergePolicy(this.policy, spec.policy) };
    this.tools.set(spec.name, tool);
    return tool;
  }
}
