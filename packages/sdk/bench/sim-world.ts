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

/** Mistake rates per step (the seeds' failure modes). */
export const RATES = {
  hallucinatedTool: 0.05,
  renamedParameter: 0.08,
  misspelledPath: 0.1, // on file steps
  transient503: 0.15, // on lookup_customer
  chargeTimeout: 0.1, // on charge_card
  forbidden403: 0.1, // on fetch_report
  /** A timed-out charge went through anyway (the duplicate-charge trap). */
  timeoutCommitted: 0.7,
} as const;

/**
 * Probability that the model's next call fixes the mistake, by what it was shown: structured
 * feedback (field names, valid tool names, candidate paths) or the raw error text. The raw
 * odds follow the seeds: 91% of retries on hallucinated tools were wasted; a bare ENOENT
 * teaches nothing about the right path; a 403 repeats unless the agent runs discovery.
 */
export const FIX_ODDS = {
  hallucinatedTool: { structured: 0.95, raw: 0.1 },
  renamedParameter: { structured: 0.95, raw: 0.5 },
  misspelledPath: { structured: 0.95, raw: 0.25 },
  forbidden403: { structured: 0.9, raw: 0.1 },
} as const;

/** When a fix fails, how often the model repeats the identical call rather than a new variation. */
export const IDENTICAL_REPEAT = 0.4;

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

export function planTasks(n: number, seed: number): TaskPlan[] {
  const tasks: TaskPlan[] = [];
  for (let id = 0; id < n; id++) {
    const r = prng(seed * 1_000_003 + id);
    const invoice = r() < 0.4;
    const tools: Step['tool'][] = invoice ? ['lookup_customer', 'fetch_report', 'charge_card'] : [...FILE_TOOLS.slice(0, 3 + Math.floor(r() * 2))];
    const steps = tools.map((tool): Step => {
      const x = r();
      let mistake: Mistake = 'none';
      if (x < RATES.hallucinatedTool) mistake = 'hallucinatedTool';
      else if (x < RATES.hallucinatedTool + RATES.renamedParameter) mistake = 'renamedParameter';
      else {
        const y = r();
        if ((tool === 'read_file' || tool === 'edit_file') && y < RATES.misspelledPath) mistake = 'misspelledPath';
        if (tool === 'lookup_customer' && y < RATES.transient503) mistake = 'transient503';
        if (tool === 'charge_card' && y < RATES.chargeTimeout) mistake = 'chargeTimeout';
        if (tool === 'fetch_report' && y < RATES.forbidden403) mistake = 'forbidden403';
      }
      const step: Step = { tool, mistake };
      if (mistake === 'transient503') {
        const z = r();
        step.outage = z < 0.7 ? 1 : z < 0.9 ? 2 : 5;
      }
      if (mistake === 'chargeTimeout') step.committed = r() < RATES.timeoutCommitted;
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

export const WORKSPACE_FILES = ['src/components/Button.tsx', 'src/ui/Card.tsx', 'src/api/routes.ts', 'src/utils/logger.ts', 'README.md'];
