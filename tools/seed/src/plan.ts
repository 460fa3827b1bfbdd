/**
 * The plan of one generated session: its ids, start, sampling weight and what the collector
 * should derive from it. The generators (guardtrace.ts, others.ts) fill it in; session.ts makes it.
 */

export type Convention = 'guardtrace' | 'vercel-ai' | 'otel-genai' | 'openinference';

/** What the collector's session row should say (fields left undefined are not predicted). */
export interface Expected {
  convention: Convention;
  spans: number;
  toolCalls: number;
  attempts: number;
  failedAttempts: number;
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  repairTokens: number;
  escalated: boolean;
  outcome?: string | null;
  agentName?: string | null;
  userId?: string | null;
  samplingWeight?: number;
}

export interface SessionPlan {
  index: number;
  sessionId: string;
  traceId: string;
  userId: string;
  startNs: bigint;
  /** Sampling weight of a clean session (the SDK keeps 1 in `cleanWeight` of them). */
  cleanWeight: number;
  /** One of the run's large sessions (~5,000 spans: the replay's large-session case). */
  large: boolean;
  expected: Expected;
}
