/**
 * The GenAI guardrail conventions merged in the OpenTelemetry GenAI semantic-conventions
 * repository: the `apply_guardrail` span's `gen_ai.guardrail.*` attributes and its
 * `gen_ai.guardrail.result` events, and the same events on a span that is no guardrail (a
 * dedicated in-process guardrail API, such as OpenAI Agents', reports its results on the span it
 * ran under). Values are kept as the provider wrote them; pass/fail is derived only from an
 * explicit value, by the table below (docs/semantic-conventions.md, "Guardrail results").
 */
import { createHash } from 'node:crypto';
import {
  ATTR_GEN_AI_GUARDRAIL_COMPONENT_NAME,
  ATTR_GEN_AI_GUARDRAIL_POLICY_ID,
  ATTR_GEN_AI_GUARDRAIL_POLICY_RULE_ID,
  ATTR_GEN_AI_GUARDRAIL_POLICY_VERSION,
  ATTR_GEN_AI_GUARDRAIL_RESULT_REASON,
  ATTR_GEN_AI_GUARDRAIL_RESULT_TYPE,
  ATTR_GEN_AI_GUARDRAIL_RESULT_VALUE,
  ATTR_GEN_AI_GUARDRAIL_RISK_CATEGORY,
  ATTR_GEN_AI_GUARDRAIL_RISK_SCORE,
  ATTR_GEN_AI_GUARDRAIL_SOURCE,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GUARDTRACE_GUARD_POINTERS,
  EVENT_GEN_AI_GUARDRAIL_RESULT,
  GUARDRAIL_RESULT_TYPE_VERDICT,
} from '@guardtrace/semconv';
import type { Attributes, NormSpan, SpanEvent } from '../span.ts';
import { num, text } from './read.ts';

/** One result a guardrail reported, in the provider's own values (only the keys it had). */
export interface GuardrailResult {
  component?: string;
  provider?: string;
  policyId?: string;
  policyVersion?: string;
  ruleId?: string;
  source?: string;
  type?: string;
  value?: string;
  reason?: string;
  riskCategory?: string;
  riskScore?: number;
}

/** A guard check made of result events on a span that is no guardrail span: one per component. */
export interface EventCheck {
  /** A stable 16-hex id for the row, derived from the reporting span and the component. */
  spanId: string;
  guardName: string;
  verdict: string;
  reason: string | null;
  results: GuardrailResult[];
  pointers: string[] | null;
  /** The first result event's time, in nanoseconds since the epoch. */
  timeNs: bigint;
}

/** The verdict the replay shows when no result has an explicit pass/fail value. */
export const NOT_DERIVED = 'unknown';

/** At most this many results per check: past 16 categories a list is no longer read (one Azure call reports 4-8). */
const MAX_RESULTS = 16;
/** Characters kept of a native value (the convention asks for low-cardinality values: names, ids, short reasons). */
const MAX_VALUE_CHARS = 512;

/**
 * Pass/fail from an explicit result, by `result.type` then `result.value` (lower-cased). A type
 * or value not here derives nothing: Azure AI Content Safety's `severity` and Google Model
 * Armor's `filter_match_state` are a score and a match, not a verdict.
 */
const DERIVED: Record<string, Record<string, 'pass' | 'fail'>> = {
  // Amazon Bedrock Guardrails, ApplyGuardrail's `action`.
  action: { guardrail_intervened: 'fail', none: 'pass' },
  // OpenAI Agents guardrail results.
  tripwire_triggered: { true: 'fail', false: 'pass' },
  // Azure OpenAI content filter results, per category.
  filtered: { true: 'fail', false: 'pass' },
  // Guardtrace's own guards.
  [GUARDRAIL_RESULT_TYPE_VERDICT]: { fail: 'fail', pass: 'pass' },
};

function cut(v: string): string {
  return v.length > MAX_VALUE_CHARS ? `${v.slice(0, MAX_VALUE_CHARS)}…` : v;
}

type TextKey = Exclude<keyof GuardrailResult, 'riskScore'>;

/** Sets `key` from attribute `attr` when `into` has no value yet and `a` has one (no undefined keys: the stored JSON holds only what was reported). */
function put(into: GuardrailResult, key: TextKey, a: Attributes, attr: string): void {
  if (into[key] !== undefined) return;
  const v = text(a, attr);
  if (v !== null) into[key] = cut(v);
}

/** The context keys of a result (who evaluated what, under which policy): `into` keeps what it has. */
function context(a: Attributes, into: GuardrailResult): void {
  put(into, 'component', a, ATTR_GEN_AI_GUARDRAIL_COMPONENT_NAME);
  put(into, 'provider', a, ATTR_GEN_AI_PROVIDER_NAME);
  put(into, 'policyId', a, ATTR_GEN_AI_GUARDRAIL_POLICY_ID);
  put(into, 'policyVersion', a, ATTR_GEN_AI_GUARDRAIL_POLICY_VERSION);
  put(into, 'ruleId', a, ATTR_GEN_AI_GUARDRAIL_POLICY_RULE_ID);
  put(into, 'source', a, ATTR_GEN_AI_GUARDRAIL_SOURCE);
}

/** The result keys of `a`, or null when it has none. */
function outcome(a: Attributes): GuardrailResult | null {
  const r: GuardrailResult = {};
  put(r, 'type', a, ATTR_GEN_AI_GUARDRAIL_RESULT_TYPE);
  put(r, 'value', a, ATTR_GEN_AI_GUARDRAIL_RESULT_VALUE);
  put(r, 'reason', a, ATTR_GEN_AI_GUARDRAIL_RESULT_REASON);
  put(r, 'riskCategory', a, ATTR_GEN_AI_GUARDRAIL_RISK_CATEGORY);
  const score = num(a, ATTR_GEN_AI_GUARDRAIL_RISK_SCORE);
  if (score !== null) r.riskScore = score;
  return r.type === undefined && r.value === undefined && r.reason === undefined && r.riskCategory === undefined && score === null ? null : r;
}

/** One result of an event: its own keys, the span's context where the event has none. */
function eventResult(e: SpanEvent, base: Attributes | null): GuardrailResult {
  const r: GuardrailResult = outcome(e.attributes) ?? {};
  context(e.attributes, r);
  if (base) context(base, r);
  return r;
}

/**
 * The results of a guardrail span: its own result keys (when it has any), then each
 * `gen_ai.guardrail.result` event's, every one with the span's context where it has none; null
 * when the span reports no merged-convention result.
 */
export function spanResults(span: NormSpan): GuardrailResult[] | null {
  const a = span.attributes;
  let out: GuardrailResult[] | null = null;
  const own = outcome(a);
  if (own !== null) {
    context(a, own);
    out = [own];
  }
  for (const e of span.events) {
    if (e.name !== EVENT_GEN_AI_GUARDRAIL_RESULT) continue;
    if (out === null) out = [];
    out.push(eventResult(e, a));
    if (out.length === MAX_RESULTS) break;
  }
  return out;
}

/** `fail` when any result derives fail, `pass` when one derives pass and none fail, else null (not derived). */
export function verdictOf(results: GuardrailResult[]): 'pass' | 'fail' | null {
  let verdict: 'pass' | 'fail' | null = null;
  for (const r of results) {
    if (r.type === undefined || r.value === undefined) continue;
    const v = DERIVED[r.type.toLowerCase()]?.[r.value.toLowerCase()];
    if (v === 'fail') return 'fail';
    if (v === 'pass') verdict = 'pass';
  }
  return verdict;
}

/** The first reason a result gives. */
export function reasonOf(results: GuardrailResult[]): string | null {
  for (const r of results) if (r.reason !== undefined) return r.reason;
  return null;
}

/**
 * Whether a span's merged-convention results are only Guardtrace's own verdict (its SDK writes
 * one such event per guard span): its columns say it all already, so they are not read again.
 */
export function onlyOwnResults(span: NormSpan): boolean {
  if (span.attributes[ATTR_GEN_AI_GUARDRAIL_RESULT_TYPE] !== undefined) return false;
  for (const e of span.events) {
    if (e.name !== EVENT_GEN_AI_GUARDRAIL_RESULT) continue;
    const a = e.attributes;
    if (a[ATTR_GEN_AI_GUARDRAIL_RESULT_TYPE] !== GUARDRAIL_RESULT_TYPE_VERDICT || a[ATTR_GEN_AI_GUARDRAIL_RISK_CATEGORY] !== undefined || a[ATTR_GEN_AI_GUARDRAIL_RISK_SCORE] !== undefined) return false;
  }
  return true;
}

/** At most this many pointers per guard check (the SDK sends at most 16; more is not a hint any more). */
const MAX_POINTERS = 16;
/** Bytes of one pointer (span-rules.ts rejects longer ones on spans; on events they are dropped). */
const MAX_POINTER_BYTES = 1_024;

/**
 * The JSON pointers of `guardtrace.guard.pointers` (a string or a list): entries that are
 * pointers (`''` or starting with `/`, within 1,024 bytes), first 16, without repeats.
 */
export function pointers(v: unknown): string[] | null {
  const list = typeof v === 'string' ? [v] : Array.isArray(v) ? v : null;
  if (list === null) return null;
  const out: string[] = [];
  for (const p of list) {
    if (typeof p !== 'string' || (p !== '' && p[0] !== '/') || out.includes(p)) continue;
    if (p.length * 3 > MAX_POINTER_BYTES && Buffer.byteLength(p, 'utf8') > MAX_POINTER_BYTES) continue;
    out.push(p);
    if (out.length === MAX_POINTERS) break;
  }
  return out.length > 0 ? out : null;
}

/** The pointers the result events of a span name, when the span itself names none. */
export function eventPointers(events: SpanEvent[]): string[] | null {
  for (const e of events) {
    if (e.name !== EVENT_GEN_AI_GUARDRAIL_RESULT) continue;
    const p = pointers(e.attributes[ATTR_GUARDTRACE_GUARD_POINTERS]);
    if (p !== null) return p;
  }
  return null;
}

/** The name of a check made of events without a component name. */
const UNNAMED = 'guardrail';

/**
 * The guard checks of the `gen_ai.guardrail.result` events on a span that is no guardrail span
 * (rarely any: one scan of its events), one per component name, in the order they came.
 */
export function eventChecks(span: NormSpan): EventCheck[] | null {
  if (span.events.length === 0) return null;
  let byName: Map<string, EventCheck> | null = null;
  for (const e of span.events) {
    if (e.name !== EVENT_GEN_AI_GUARDRAIL_RESULT) continue;
    const r = eventResult(e, null);
    const name = r.component ?? UNNAMED;
    byName ??= new Map();
    let c = byName.get(name);
    if (c === undefined) {
      if (byName.size === MAX_RESULTS) continue;
      c = { spanId: checkId(span, name), guardName: name, verdict: NOT_DERIVED, reason: null, results: [], pointers: null, timeNs: eventNs(e, span) };
      byName.set(name, c);
    }
    if (c.results.length < MAX_RESULTS) c.results.push(r);
    c.pointers ??= pointers(e.attributes[ATTR_GUARDTRACE_GUARD_POINTERS]);
  }
  if (byName === null) return null;
  const out = [...byName.values()];
  for (const c of out) {
    c.verdict = verdictOf(c.results) ?? NOT_DERIVED;
    c.reason = reasonOf(c.results);
  }
  return out;
}

function eventNs(e: SpanEvent, span: NormSpan): bigint {
  try {
    const ns = BigInt(e.timeUnixNano);
    return ns > 0n ? ns : span.startNs;
  } catch {
    return span.startNs;
  }
}

/** A stable id of the check: a resent export writes the same row, which the unique key then ignores. */
function checkId(span: NormSpan, name: string): string {
  return createHash('sha256').update(`${span.traceId}/${span.spanId}/guardrail/${name}`).digest('hex').slice(0, 16);
}
