/**
 * Session totals computed in the writer from the rows one batch writes, for sessions that
 * have nothing stored yet: the same values the SQL recompute (sql.ts, recomputeSessions)
 * produces, without reading the rows back.
 */
import { sessionSamplingWeight } from '@guardtrace/semconv';
import { USER_ID_KEYS } from './conventions/index.ts';
import { timestamp } from './mapping.ts';
import type { NormSpan } from './span.ts';
import { ATTEMPTS, MODEL_CALLS, TOOL_CALLS, type Target } from './sql.ts';

/**
 * What the totals read of a span. A span's full attributes are not kept while it waits for
 * its transaction: only the ones the totals read (`totalsAttributes`).
 */
export type TotalsSpan = Pick<NormSpan, 'startNs' | 'endNs' | 'serviceName' | 'parentSpanId' | 'statusCode' | 'attributes'>;

export interface DerivedRow {
  decision?: string | null;
  outcome?: string | null;
  input_tokens?: number;
  output_tokens?: number;
  repair_attempt_span_id?: string | null;
  repair_failure_class?: string | null;
}

/**
 * Totals of a session from the rows one batch writes: the same values RECOMPUTE computes in
 * SQL, used only for sessions with nothing stored yet (see recomputeSessions). `exact` turns
 * false when the batch alone cannot tell (stored rows may exist, or a value whose text form
 * is jsonb's to decide), and the session is then recomputed in SQL.
 */
export class SessionTotals {
  exact = true;
  startNs = 0n;
  endNs = 0n;
  spans = 0;
  agent: First = { ns: 0n, v: undefined };
  user: First = { ns: 0n, v: undefined };
  /** OpenTelemetry's (and OpenInference's) `user.id`: the user when no span names a Guardtrace one. */
  otelUser: First = { ns: 0n, v: undefined };
  /** The Vercel AI SDK's `telemetry.metadata.userId`: the user when no span names one above. */
  aiUser: First = { ns: 0n, v: undefined };
  outcomeAttr: First = { ns: 0n, v: undefined };
  service: First = { ns: 0n, v: undefined };
  /** Smallest positive `guardtrace.sampling.weight` seen (null: none), and whether a process said 0 (drop). */
  keptWeight: number | null = null;
  droppedWeight = false;
  rootError = false;
  hasRoot = false;
  escalated = false;
  toolCalls = 0;
  attempts = 0;
  failed = 0;
  modelCalls = 0;
  input = 0;
  output = 0;
  repair = 0;

  constructor(
    readonly projectId: string,
    readonly id: string,
  ) {}

  /** Whether this batch saw a failure that keeps the session whatever the sampling (sessionSamplingWeight). */
  private get failure(): boolean {
    return this.failed > 0 || this.escalated || this.rootError;
  }

  /** A span of the session, its derived row and any extra rows it reports (prepare.ts). */
  add(span: TotalsSpan, target: Target | undefined, row: DerivedRow | null, extra: readonly { target: Target; row: DerivedRow }[] | null = null): void {
    const ns = span.startNs;
    if (this.spans === 0 || ns < this.startNs) this.startNs = ns;
    if (this.spans === 0 || span.endNs > this.endNs) this.endNs = span.endNs;
    this.spans++;
    const a = span.attributes;
    this.exact &&=
      pick(this.agent, a, AGENT_NAME, ns, false) &&
      pick(this.user, a, USER_ID, ns, false) &&
      pick(this.otelUser, a, OTEL_USER_ID, ns, false) &&
      pick(this.aiUser, a, AI_USER_ID, ns, false);
    this.exact &&= pick(this.outcomeAttr, a, SESSION_OUTCOME, ns, true);
    if (span.serviceName !== null && (this.service.v === undefined || ns < this.service.ns)) {
      this.service.v = span.serviceName;
      this.service.ns = ns;
    }
    const w = a[SAMPLING_WEIGHT];
    if (typeof w === 'number') {
      if (w <= 0) this.droppedWeight = true;
      else if (this.keptWeight === null || w < this.keptWeight) this.keptWeight = w;
    }
    if (span.parentSpanId === null) {
      this.hasRoot = true;
      if (span.statusCode === 2) this.rootError = true;
    }
    if (row) this.addRow(target, row);
    if (extra) for (const x of extra) this.addRow(x.target, x.row);
  }

  private addRow(target: Target | undefined, row: DerivedRow): void {
    if (target === TOOL_CALLS || target === ATTEMPTS) {
      if (row.decision === 'escalate_human') this.escalated = true;
      if (target === TOOL_CALLS) this.toolCalls++;
      else {
        this.attempts++;
        if (row.outcome !== 'success') this.failed++;
      }
    } else if (target === MODEL_CALLS) {
      const i = row.input_tokens ?? 0;
      const o = row.output_tokens ?? 0;
      this.modelCalls++;
      this.input += i;
      this.output += o;
      if (row.repair_attempt_span_id != null || row.repair_failure_class != null) this.repair += i + o;
    }
  }

  row(): Record<string, unknown> {
    const outcome =
      this.outcomeAttr.v ?? (this.escalated ? 'escalated' : this.rootError ? 'failed' : this.hasRoot ? 'success' : null);
    return {
      project_id: this.projectId,
      id: this.id,
      agent_name: this.agent.v ?? null,
      service_name: this.service.v ?? null,
      user_id: this.user.v ?? this.otelUser.v ?? this.aiUser.v ?? null,
      started_at: timestamp(this.startNs),
      ended_at: timestamp(this.endNs),
      outcome,
      span_count: this.spans,
      tool_call_count: this.toolCalls,
      attempt_count: this.attempts,
      failed_attempt_count: this.failed,
      model_call_count: this.modelCalls,
      input_tokens: this.input,
      output_tokens: this.output,
      repair_tokens: this.repair,
      sampling_weight: sessionSamplingWeight(this.failure, this.keptWeight, this.droppedWeight),
      ...this.mergeFields(),
    };
  }

  /**
   * What merging this batch's totals into a stored session row needs beyond the row itself
   * (sql.ts, recomputeSessions): when each first/last value was seen, the batch's outcome
   * signals, and its users. Timestamps are text, as `timestamp` makes them.
   */
  private mergeFields(): Record<string, unknown> {
    const at = (f: First) => (f.v === undefined ? null : timestamp(f.ns));
    const users = [this.user.v, this.otelUser.v, this.aiUser.v].filter((v) => v !== undefined);
    const one = users.length > 0 && users.every((v) => v !== null && v === users[0]) ? users[0] : null;
    return {
      agent_at: at(this.agent),
      service_at: at(this.service),
      outcome_attr: this.outcomeAttr.v ?? null,
      outcome_attr_at: at(this.outcomeAttr),
      escalated: this.escalated,
      root_error: this.rootError,
      has_root: this.hasRoot,
      derived_outcome: this.escalated ? 'escalated' : this.rootError ? 'failed' : this.hasRoot ? 'success' : null,
      user_any: users.length > 0,
      user_one: one,
      // Weights merge only when the batch decides them alone (sql.ts): a failure makes it 1, and a batch
      // that carries no weight leaves the stored one; any other weight is recomputed from the stored spans.
      batch_failure: this.failure,
      batch_weight: this.keptWeight ?? (this.droppedWeight ? 0 : null),
      // A value present but null (an empty AnyValue) is not merged: the stored row cannot tell it from absent.
      mergeable: this.agent.v !== null && this.outcomeAttr.v !== null,
    };
  }
}

/** The value of an attribute on the first (or, `last`, the latest) span that has it. */
interface First {
  ns: bigint;
  v: string | null | undefined;
}
const AGENT_NAME = 'gen_ai.agent.name';
const [USER_ID, OTEL_USER_ID, AI_USER_ID] = USER_ID_KEYS;
const SESSION_OUTCOME = 'guardtrace.session.outcome';
const SAMPLING_WEIGHT = 'guardtrace.sampling.weight';
const TOTALS_KEYS = [AGENT_NAME, ...USER_ID_KEYS, SESSION_OUTCOME, SAMPLING_WEIGHT];
const NONE: NormSpan['attributes'] = Object.freeze({}) as NormSpan['attributes'];

/** The attributes the totals read, alone (most spans carry none of them: one shared empty object). */
export function totalsAttributes(attrs: NormSpan['attributes']): NormSpan['attributes'] {
  let out: NormSpan['attributes'] | null = null;
  for (const k of TOTALS_KEYS) {
    if (!Object.hasOwn(attrs, k)) continue;
    out ??= {};
    out[k] = attrs[k] as NormSpan['attributes'][string];
  }
  return out ?? NONE;
}

/** The fields of a derived row the totals read (the rest, arguments and feedback among them, is in its COPY text). */
export function totalsRow(row: DerivedRow): DerivedRow {
  return {
    decision: row.decision,
    outcome: row.outcome,
    input_tokens: row.input_tokens,
    output_tokens: row.output_tokens,
    repair_attempt_span_id: row.repair_attempt_span_id,
    repair_failure_class: row.repair_failure_class,
  };
}

/** Track `key`'s value on the earliest (latest) span; false when a value is not a string or null. */
function pick(f: First, attrs: NormSpan['attributes'], key: string, ns: bigint, last: boolean): boolean {
  if (!Object.hasOwn(attrs, key)) return true;
  const v = attrs[key];
  if (v !== null && typeof v !== 'string') return false;
  if (f.v === undefined || (last ? ns > f.ns : ns < f.ns)) {
    f.v = v;
    f.ns = ns;
  }
  return true;
}

