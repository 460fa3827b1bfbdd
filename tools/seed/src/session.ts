/**
 * Session `i` of a seed run: its ids, start time, convention and spans, all decided by the
 * run's seed and `i` alone. Also what the collector should derive from it (`expected`).
 */
import { guardtraceSession } from './guardtrace.ts';
import { openInferenceSession, otelGenAiSession, vercelAiSession } from './others.ts';
import { msToNs, type SpanGroup } from './otlp.ts';
import type { Convention, Expected, SessionPlan } from './plan.ts';
import { Rng } from './random.ts';

export type { Convention, Expected } from './plan.ts';

export interface GeneratedSession {
  plan: SessionPlan;
  groups: SpanGroup[];
}

export interface SeedOptions {
  seed: number;
  sessions: number;
  /** The newest session starts near this time (ms since the epoch). */
  untilMs: number;
  /** Sessions spread over this many days before `untilMs`. */
  days: number;
}

// One session in 10,000 is a long one (~5,000 spans): the replay's large-session case.
const LONG_EVERY = 10_000;
const LONG_CALLS = 1_000;

const CONVENTIONS: readonly (readonly [Convention, number])[] = [
  ['guardtrace', 88],
  ['vercel-ai', 5],
  ['otel-genai', 4],
  ['openinference', 3],
];

/** Session `index` of the run (0-based). */
export function generateSession(opts: SeedOptions, index: number): GeneratedSession {
  const r = new Rng(opts.seed, index);
  const seedHex = (opts.seed >>> 0).toString(16).padStart(8, '0');
  const traceId = `${seedHex}${(index + 1).toString(16).padStart(24, '0')}`;
  // Evenly spread, newest last, with a little jitter so sessions do not tick like a clock.
  const spanMs = opts.days * 86_400_000;
  const slot = spanMs / Math.max(1, opts.sessions);
  const startMs = opts.untilMs - spanMs + index * slot + r.int(0, Math.max(0, Math.floor(slot * 0.8)));
  const long = index % LONG_EVERY === LONG_EVERY - 1;
  const convention: Convention = long ? 'guardtrace' : r.weighted(CONVENTIONS);
  const expected: Expected = {
    convention, spans: 0, toolCalls: 0, attempts: 0, failedAttempts: 0, modelCalls: 0,
    inputTokens: 0, outputTokens: 0, repairTokens: 0, escalated: false,
  };
  const plan: SessionPlan = {
    index,
    sessionId: `sess_${seedHex}_${index.toString(36).padStart(5, '0')}_${r.hex(6)}`,
    traceId,
    userId: `u_${r.int(1, 400)}`,
    startNs: msToNs(startMs),
    cleanWeight: r.chance(0.25) ? 4 : 1,
    large: long,
    expected,
  };
  let groups: SpanGroup[];
  if (convention === 'guardtrace') groups = guardtraceSession(plan, r, long ? LONG_CALLS : r.int(2, 6));
  else if (convention === 'vercel-ai') groups = vercelAiSession(plan, r);
  else if (convention === 'otel-genai') groups = otelGenAiSession(plan, r);
  else groups = openInferenceSession(plan, r);
  return { plan, groups };
}
