/**
 * The simulated world of the retry-storm benchmark: seeded task plans with the seeds'
 * mistakes at set rates, and the model's odds of fixing a mistake from the error it sees.
 */

/** mulberry32: small, fast, deterministic. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/*
 * Sources. Every rate and odds below is either taken from a source or marked as an
 * assumption; the sensitivity table in docs/benchmarks.md scales all of them (fix odds x0.5 /
 * x2 capped at 1, mistake rates x0.5 / x2, the gap between structured and raw fix odds x0 /
 * x0.5) to show where the result depends on them.
 *
 * [S1] Seed "Tool call retries with deterministic guards" (/work/shared/seeds/000_*.txt): "50
 *      tool calls in a session with a 10% per-call failure rate"; the misspelled path
 *      "componets/Button.tsx"; the renamed parameter `path` -> `filepath`; transients get
 *      3-5 retries with backoff.
 * [S2] Seed "When to reject a tool call versus repair it" (/work/shared/seeds/001_*.txt):
 *      "466 of 513 retry attempts, about 91 percent, were spent on tools that did not exist";
 *      "a 20 percent per-step retry rate"; a 403 "usually means the credential scope is
 *      wrong or the resource belongs to another tenant" (discovery, not guessing); a charge
 *      timeout "may have succeeded".
 * [P1] Patil et al., "Gorilla: Large Language Model Connected with Massive APIs" (2023),
 *      https://arxiv.org/abs/2305.15334: API-call hallucination is common for models without
 *      retrieval of the real API list (zero-shot hallucination rates in the tens of percent).
 * [P2] Kokane et al., "ToolScan: A Benchmark for Characterizing Errors in Tool-Use LLMs"
 *      (2024), https://arxiv.org/abs/2411.13547: wrong/hallucinated tool names and
 *      incorrect/missing argument names are among the error patterns of every model tested.
 *      Its seven patterns (150 human-annotated queries) include Incorrect Function Name,
 *      Incorrect Argument Name and Repeated API Calls (identical calls again: IDENTICAL_REPEAT);
 *      it characterizes them, it does not give a rate per step that this simulation could use.
 * [P3] Berkeley Function Calling Leaderboard (BFCL), https://gorilla.cs.berkeley.edu/leaderboard.html:
 *      even the top models miss a share of single calls (wrong function or arguments).
 *      Its V3 multi-turn release (https://gorilla.cs.berkeley.edu/blogs/13_bfcl_v3_multi_turn.html)
 *      describes a model "stuck in a loop, listing the current directory, write a non-existing
 *      file, and list the directory again": the repeated-mistake behaviour IDENTICAL_REPEAT models.
 * [P4] Yao et al., "tau-bench: A Benchmark for Tool-Agent-User Interaction in Real-World
 *      Domains" (2024), https://arxiv.org/abs/2406.12045: gpt-4o function-calling agents
 *      succeed on < 50% of tasks (pass^8 < 25% in retail). A task-level figure (policy and
 *      reasoning errors included), so only an upper envelope: the framework arm here fails
 *      about 10% of tasks, well inside it.
 * None of these gives a per-step rate for each mistake kind below, nor the odds that a model
 * fixes one from a given text: those are ASSUMPTIONS, and the sensitivity table varies them
 * (rates x0.5 / x2, odds x0.5 / x2, the structured-raw gap x0 / x0.5).
 */

/**
 * Mistake rates per step (the seeds' failure modes). The papers name the failure modes and
 * show that every model makes them [P1-P3], and the seeds put failures at 10-20% of calls or
 * steps [S1, S2]; none gives the split between them for these tools, so each single rate is
 * an ASSUMPTION inside the seeds' envelope (sensitivity: x0.5 and x2).
 */
export const RATES = {
  /** ASSUMPTION within [P1-P3]: unknown tool name. */
  hallucinatedTool: 0.05,
  /** ASSUMPTION within [P2, P3]; the `path` -> `filepath` example is [S1]. */
  renamedParameter: 0.08,
  /** ASSUMPTION, on file steps; the "componets/Button.tsx" example is [S1]. */
  misspelledPath: 0.1,
  /** ASSUMPTION, on lookup_customer: [S1]'s 10% per-call failure rate rounded up for an external CRM. */
  transient503: 0.15,
  /** ASSUMPTION, on charge_card: [S1]'s 10% per-call failure rate. */
  chargeTimeout: 0.1,
  /** ASSUMPTION, on fetch_report: [S1]'s 10% per-call failure rate; the cross-tenant 403 is [S2]. */
  forbidden403: 0.1,
  /**
   * ASSUMPTION: a timed-out charge went through anyway (the duplicate-charge trap [S2]: it
   * "may have succeeded"). Not a mistake rate: the sensitivity table leaves it as is.
   */
  timeoutCommitted: 0.7,
} as const;

export type Rates = Record<keyof typeof RATES, number>;

/**
 * Probability that the model's next call fixes the mistake, by what it was shown: structured
 * feedback (a field path, the valid tool names, candidate paths, a discovery result) or the
 * raw error text. The same table serves every arm: what counts is the text the model saw
 * (`feedbackKind` in sim-model.ts), not which arm produced it.
 */
export const FIX_ODDS = {
  /**
   * raw 0.1: [S2], 91% of retries on hallucinated tools were wasted (466 of 513), so a retry
   * that sees only "not found" fixes it ~9% of the time. structured 0.95: ASSUMPTION from [S2]
   * ("rejecting with the list of valid tool names fixes this once").
   */
  hallucinatedTool: { structured: 0.95, raw: 0.1 },
  /**
   * ASSUMPTION both: [S1] says the field-path message "replaces inference with lookup"
   * (structured 0.95); a bare TypeError from inside the tool names no field (raw 0.5).
   */
  renamedParameter: { structured: 0.95, raw: 0.5 },
  /**
   * ASSUMPTION both: [S1], a bare ENOENT "teaches nothing" and the model "cycles through minor
   * variations of the same incorrect path" (raw 0.25); a bounded list of real paths (enum
   * exhaustion) leaves one choice (structured 0.95).
   */
  misspelledPath: { structured: 0.95, raw: 0.25 },
  /**
   * ASSUMPTION both: [S2], a 403 with no body does not name the fix (raw 0.1); a read-only
   * discovery call that lists the reports the caller may read does (structured 0.9).
   */
  forbidden403: { structured: 0.9, raw: 0.1 },
} as const;

export type FixOdds = Record<keyof typeof FIX_ODDS, { structured: number; raw: number }>;

/**
 * ASSUMPTION: how many attempts an outage of the CRM fails (OUTAGE_ATTEMPTS, at OUTAGE_SHARES of
 * the outages): mostly a blip, sometimes longer. No source above measures outage lengths of a
 * tool; [S1] only says transients get 3-5 retries with backoff. Sensitivity: twice as long.
 */
export const OUTAGE_ATTEMPTS: readonly [number, number, number] = [1, 2, 5];
export const OUTAGE_SHARES: readonly [number, number, number] = [0.7, 0.2, 0.1];

/**
 * ASSUMPTION: after a 503 or a timeout shown to it, the model sends the same call again (the
 * rest of the time it stops and reports to the user: the task is not done). 1 here: no source
 * gives it; [S2] names the timed-out charge a model re-sends ("may have succeeded"). Sensitivity: 0.5.
 */
export const RESEND_AFTER_TRANSIENT = 1;

/** ASSUMPTION: when a fix fails, how often the model repeats the identical call rather than a new variation ([S1]: it "cycles through minor variations"). */
export const IDENTICAL_REPEAT = 0.4;

/**
 * The fix odds a text keeps, as a share of its odds, once it has proved not actionable for the
 * model: the model was shown it for a call, sent that identical call again and is shown the same
 * text once more. [S2]: "If the model returns the identical invalid argument after reading your
 * first error, the error is not actually actionable, and repeating it just burns a turn" (0: the
 * seed's words; the model may still try a variation, which gets a text of its own). The seed
 * states it without a measured rate, so the sensitivity table also runs 0.5 and 1 (1 = a model
 * with no memory of what it was shown, the simulation before 2026-12-06).
 */
export const REPEATED_TEXT_FIX = 0;

/**
 * The workspace: one file a misspelled path can have meant, so a sound correction is always
 * unique here (Guardtrace's repair in code, and the careful author's, applies to every misspelled
 * path of a read). ASSUMPTION: how often a real workspace offers one candidate is not measured by
 * any source above; SEED_WORKSPACE_FILES is [S1]'s own example, run as a sensitivity row.
 */
export const WORKSPACE_FILES: readonly string[] = ['src/components/Button.tsx', 'src/ui/Card.tsx', 'src/api/routes.ts', 'src/utils/logger.ts', 'README.md'];

/**
 * [S1]'s example workspace: "Available paths matching **\/Button.tsx: src/components/Button.tsx,
 * src/ui/Button.tsx", two candidates for every misspelled Button path, so no repair in code is
 * sound and the model has to choose (with the structured odds, from the listed paths).
 */
export const SEED_WORKSPACE_FILES: readonly string[] = [...WORKSPACE_FILES, 'src/ui/Button.tsx'];

/** The world a sensitivity row runs in: rates and odds scaled, odds capped at 1. */
export interface Scenario {
  rates: Rates;
  odds: FixOdds;
  /** REPEATED_TEXT_FIX, or a sensitivity row's value. */
  repeatedText: number;
  /** The workspace the file tools act on: WORKSPACE_FILES, or SEED_WORKSPACE_FILES in its sensitivity row. */
  files: readonly string[];
  /** OUTAGE_ATTEMPTS, or a sensitivity row's lengths. */
  outages: readonly [number, number, number];
  /** RESEND_AFTER_TRANSIENT, or a sensitivity row's value. */
  resend: number;
}

export const BASE_SCENARIO: Scenario = {
  rates: RATES,
  odds: FIX_ODDS,
  repeatedText: REPEATED_TEXT_FIX,
  files: WORKSPACE_FILES,
  outages: OUTAGE_ATTEMPTS,
  resend: RESEND_AFTER_TRANSIENT,
};

/**
 * `odds` scales every fix odds (capped at 1); `gap` scales the gap between structured and raw
 * odds, keeping the raw odds: structured = raw + gap x (structured - raw). gap 0 = a structured
 * text helps no more than a raw error. `repeatedText` replaces REPEATED_TEXT_FIX.
 */
export function scaleScenario(factors: {
  odds?: number;
  rates?: number;
  gap?: number;
  repeatedText?: number;
  files?: readonly string[];
  outages?: readonly [number, number, number];
  resend?: number;
}): Scenario {
  const o = factors.odds ?? 1;
  const r = factors.rates ?? 1;
  const g = factors.gap ?? 1;
  const odds = Object.fromEntries(
    Object.entries(FIX_ODDS).map(([k, v]) => {
      const raw = Math.min(1, v.raw * o);
      const structured = Math.min(1, v.structured * o);
      return [k, { structured: raw + g * (structured - raw), raw }];
    }),
  ) as FixOdds;
  const rates = Object.fromEntries(Object.entries(RATES).map(([k, v]) => [k, k === 'timeoutCommitted' ? v : Math.min(1, v * r)])) as Rates;
  const outages = factors.outages ?? OUTAGE_ATTEMPTS;
  return { rates, odds, repeatedText: factors.repeatedText ?? REPEATED_TEXT_FIX, files: factors.files ?? WORKSPACE_FILES, outages, resend: factors.resend ?? RESEND_AFTER_TRANSIENT };
}

export type Mistake = keyof typeof FIX_ODDS | 'transient503' | 'chargeTimeout' | 'none';

export interface Step {
  tool: 'read_file' | 'edit_file' | 'lookup_customer' | 'fetch_report' | 'charge_card';
  mistake: Mistake;
  /** transient503: failing attempts before the CRM recovers. */
  outage?: number;
  /** chargeTimeout: whether the provider recorded the charge. */
  committed?: boolean;
}

export interface TaskPlan {
  id: number;
  steps: Step[];
}

const FILE_TOOLS = ['read_file', 'edit_file', 'read_file', 'edit_file'] as const;

export function planTasks(n: number, seed: number, rates: Rates = RATES, outages: readonly [number, number, number] = OUTAGE_ATTEMPTS): TaskPlan[] {
  const tasks: TaskPlan[] = [];
  for (let id = 0; id < n; id++) {
    const r = prng(seed * 1_000_003 + id);
    const invoice = r() < 0.4;
    const tools: Step['tool'][] = invoice ? ['lookup_customer', 'fetch_report', 'charge_card'] : [...FILE_TOOLS.slice(0, 3 + Math.floor(r() * 2))];
    const steps = tools.map((tool): Step => {
      const x = r();
      let mistake: Mistake = 'none';
      if (x < rates.hallucinatedTool) mistake = 'hallucinatedTool';
      else if (x < rates.hallucinatedTool + rates.renamedParameter) mistake = 'renamedParameter';
      else {
        const y = r();
        if ((tool === 'read_file' || tool === 'edit_file') && y < rates.misspelledPath) mistake = 'misspelledPath';
        if (tool === 'lookup_customer' && y < rates.transient503) mistake = 'transient503';
        if (tool === 'charge_card' && y < rates.chargeTimeout) mistake = 'chargeTimeout';
        if (tool === 'fetch_report' && y < rates.forbidden403) mistake = 'forbidden403';
      }
      const step: Step = { tool, mistake };
      if (mistake === 'transient503') {
        const z = r();
        step.outage = z < OUTAGE_SHARES[0] ? outages[0] : z < OUTAGE_SHARES[0] + OUTAGE_SHARES[1] ? outages[1] : outages[2];
      }
      if (mistake === 'chargeTimeout') step.committed = r() < rates.timeoutCommitted;
      return step;
    });
    tasks.push({ id, steps });
  }
  return tasks;
}

/** Correct arguments of a step, and the wrong variants the model produces. */
export const GOOD_ARGS: Record<Step['tool'], Record<string, unknown>> = {
  read_file: { path: 'src/components/Button.tsx' },
  edit_file: { path: 'src/components/Button.tsx', content: 'export const Button = 1;' },
  lookup_customer: { email: 'dana@acme.io' },
  fetch_report: { report_id: 'rep_own' },
  charge_card: { customer_id: 'cus_1', amount_cents: 4200 },
};

const RENAMES: Record<string, string> = { path: 'filepath', email: 'email_address', report_id: 'id', customer_id: 'customerId' };
const TYPO_PATHS = ['componets/Button.tsx', 'src/component/Button.tsx', 'src/components/Buton.tsx', 'src/Button.tsx'];
const FAKE_TOOLS = ['open_file', 'read_files', 'search_code', 'charge_customer', 'get_customer', 'fetch_reports'];

/** The n-th wrong variant of a step's call. */
export function wrongCall(step: Step, variant: number): { tool: string; args: Record<string, unknown> } {
  const good = GOOD_ARGS[step.tool];
  if (step.mistake === 'hallucinatedTool') return { tool: FAKE_TOOLS[variant % FAKE_TOOLS.length]!, args: good };
  if (step.mistake === 'renamedParameter') {
    const [k, v] = Object.entries(good)[0]!;
    const renamed = variant === 0 ? RENAMES[k]! : `${RENAMES[k]}_${variant}`;
    const rest = Object.fromEntries(Object.entries(good).slice(1));
    return { tool: step.tool, args: { [renamed]: v, ...rest } };
  }
  if (step.mistake === 'misspelledPath') return { tool: step.tool, args: { ...good, path: TYPO_PATHS[variant % TYPO_PATHS.length] } };
  if (step.mistake === 'forbidden403') return { tool: step.tool, args: { report_id: 'rep_other_tenant' } };
  return { tool: step.tool, args: good };
}
