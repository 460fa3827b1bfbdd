/**
 * The rules a span is held to, whichever decoder read it (normalize.ts walks JSON, otlp-proto.ts
 * reads protobuf): limits, ids, times, enums, int64 values and text Postgres accepts. A span that
 * breaks one is rejected with a SpanError naming the field; its neighbours are kept.
 */
import {
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GUARDTRACE_FAILURE_CLASS,
  ATTR_GUARDTRACE_GUARD_POINTERS,
  ATTR_GUARDTRACE_REPAIR_FAILURE_CLASS,
  ATTR_GUARDTRACE_SAMPLING_WEIGHT,
} from '@guardtrace/semconv';
import { SESSION_ID_KEYS } from './conventions/index.ts';
import type { Attributes, Rejection } from './span.ts';

export interface NormalizeLimits {
  /** Longest string value kept; longer ones are truncated and marked. */
  maxStringChars: number;
  /** Deepest array/kvlist nesting accepted in one attribute value. */
  maxValueDepth: number;
  /** Most attributes, events or links accepted on one span. */
  maxItemsPerSpan: number;
}

const DEFAULT_NORMALIZE_LIMITS: NormalizeLimits = {
  // 64 Ki characters: more than any tool-argument or feedback preview; beyond that it is a payload, not metadata.
  maxStringChars: 65_536,
  // 16 levels: GenAI attributes nest 2-3 deep; a bound keeps recursion (and stack) small on hostile input.
  maxValueDepth: 16,
  // 1,024: eight times the OTel SDKs' default attribute count limit (128).
  maxItemsPerSpan: 1024,
};

/**
 * A span (or a resource or scope, with its spans) is invalid: rejected with this reason,
 * neighbours kept. Made without a stack trace: it is an answer, not a bug, and capturing one
 * cost ~6 µs, ten times the rest of rejecting a span (a body of millions of bad spans took
 * half a minute).
 */
export class SpanError extends Error {
  constructor(message: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

// Text that becomes an indexed column must fit a Postgres btree entry (at most 2,704 bytes for the
// whole entry, e.g. attempts' project_id + failure_class + session_id); a longer value would fail
// the whole transaction. Session ids and failure classes are what rows are joined and counted by:
// a span carrying a longer one is rejected. Names (tools, models, agents, users) are stored
// shortened instead (key-text.ts).
// 1,024 bytes: session ids are UUIDs or short slugs (36-64 bytes); 16x that still fits an index entry.
const MAX_SESSION_ID_BYTES = 1_024;
// 256 bytes: failure classes are short enum-like names (the longest built-in is 21 characters).
const MAX_FAILURE_CLASS_BYTES = 256;
// 1,024 bytes per JSON pointer of a failed check (guard_checks.failed_pointers, matched by the
// replay's "next session with the same failure"): field paths are short; longer is not a field.
const MAX_POINTER_BYTES = 1_024;

const ZERO32 = '0'.repeat(32);
const ZERO16 = '0'.repeat(16);
// fixed64 nanoseconds fit int64; later than this (year 2262) is not a real timestamp.
const MAX_NS = 9_223_372_036_854_775_807n;
// NUL and UTF-16 surrogates (lone ones are what Postgres refuses). Built from strings: a
// literal would hold control characters, which the linter rightly flags as usually a mistake.
// biome-ignore lint/complexity/useRegexLiterals: see above
const NEEDS_CLEANING = new RegExp('[\\u0000\\ud800-\\udfff]');
// biome-ignore lint/complexity/useRegexLiterals: see above
const NUL = new RegExp('\\u0000', 'g');

/** `service.name` of a resource, when it is a string. */
export function serviceNameOf(resource: Attributes): string | null {
  const v = resource['service.name'];
  return typeof v === 'string' ? v : null;
}

/** A span's start and end (nanoseconds): the start is required, the end not before it. */
export function checkTimes(startNs: bigint, endNs: bigint): void {
  if (startNs <= 0n) throw new SpanError('startTimeUnixNano is missing');
  if (endNs < startNs) throw new SpanError('endTimeUnixNano is before startTimeUnixNano');
}

/** A timestamp in nanoseconds within int64 (later than year 2262 is not a real timestamp). */
export function checkNs(n: bigint, field: string): bigint {
  if (n < 0n || n > MAX_NS) throw new SpanError(`${field} is out of range`);
  return n;
}

/** A lowercase hex id of the right size; all-zero ids are invalid (OTLP spec). */
export function checkIdHex(hex: string, bytes: 8 | 16, field: string): string {
  if (hex === (bytes === 16 ? ZERO32 : ZERO16)) throw new SpanError(`${field} is all zeros`);
  return hex;
}

/**
 * The attributes that become indexed or matched columns (session id, failure class, a repair
 * turn's failure class, failed-check pointers) within their byte
 * limits; a span over one is rejected with the attribute, its length and the limit.
 */
export function checkIndexedText(attributes: Attributes, resource: Attributes): void {
  for (const k of SESSION_ID_KEYS) checkBytes(attributes, k, 'attributes', MAX_SESSION_ID_BYTES, 'a session id');
  checkBytes(resource, ATTR_GEN_AI_CONVERSATION_ID, 'resource.attributes', MAX_SESSION_ID_BYTES, 'a session id');
  checkBytes(attributes, ATTR_GUARDTRACE_FAILURE_CLASS, 'attributes', MAX_FAILURE_CLASS_BYTES, 'a failure class');
  // A repair turn's class keys the analytics rollups when the attempt it names is not stored.
  checkBytes(attributes, ATTR_GUARDTRACE_REPAIR_FAILURE_CLASS, 'attributes', MAX_FAILURE_CLASS_BYTES, 'a failure class');
  const pointers = attributes[ATTR_GUARDTRACE_GUARD_POINTERS];
  if (pointers === undefined) return;
  if (!Array.isArray(pointers)) {
    checkBytes(attributes, ATTR_GUARDTRACE_GUARD_POINTERS, 'attributes', MAX_POINTER_BYTES, 'a JSON pointer');
    return;
  }
  for (let i = 0; i < pointers.length; i++) {
    const p = pointers[i];
    if (typeof p === 'string' && p.length * 3 > MAX_POINTER_BYTES) {
      checkText(p, `attributes[${JSON.stringify(ATTR_GUARDTRACE_GUARD_POINTERS)}][${i}]`, MAX_POINTER_BYTES, 'a JSON pointer');
    }
  }
}

// A session's sampling weight: 0 (its process would drop it) or 1/rate for a rate of at most 1 and
// at least one in a million (the web's settings go down to 0.01%, a weight of 10,000). A weight
// outside that is a bug, not a rate: below 0 it read as "drop" (the sweep deleted an acknowledged
// session), between 0 and 1 or huge it scaled every estimate and alert (1e9 made a failure rate read 0%).
const MAX_SAMPLING_WEIGHT = 1_000_000;

/** `guardtrace.sampling.weight`, when present: a number, 0 or from 1 to MAX_SAMPLING_WEIGHT; else the span is rejected, naming it. */
export function checkSamplingWeight(attributes: Attributes): void {
  const w = attributes[ATTR_GUARDTRACE_SAMPLING_WEIGHT];
  if (w === undefined) return;
  if (typeof w === 'number' && (w === 0 || (w >= 1 && w <= MAX_SAMPLING_WEIGHT))) return;
  const shown = typeof w === 'string' ? JSON.stringify(w.slice(0, 40)) : (JSON.stringify(w)?.slice(0, 40) ?? String(w));
  throw new SpanError(
    `attributes[${JSON.stringify(ATTR_GUARDTRACE_SAMPLING_WEIGHT)}] is ${shown}: a sampling weight is a number, 0 (the session is dropped) or 1/rate from 1 to ${MAX_SAMPLING_WEIGHT}`,
  );
}

function checkBytes(attrs: Attributes, key: string, field: string, max: number, what: string): void {
  checkText(attrs[key], `${field}[${JSON.stringify(key)}]`, max, what);
}

function checkText(v: unknown, where: string, max: number, what: string): void {
  // A UTF-16 unit is at most 3 UTF-8 bytes: most values need no count.
  if (typeof v !== 'string' || v.length * 3 <= max) return;
  const bytes = Buffer.byteLength(v, 'utf8');
  if (bytes > max) throw new SpanError(`${where} is ${bytes} bytes long, over the limit of ${max} bytes for ${what}`);
}

/** An enum number within 0..max. */
export function checkEnum(v: number, max: number, field: string): number {
  if (v >= 0 && v <= max) return v;
  throw new SpanError(`${field} has an unknown value ${v}: expected 0..${max}`);
}

/** An int64 attribute value: a number when exact, else its decimal string. */
export function int64Value(n: bigint): number | string {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();
}

/** Limits and text cleaning, shared by both decoders (the Normalizer is one). */
export class SpanRules {
  constructor(readonly limits: NormalizeLimits = DEFAULT_NORMALIZE_LIMITS) {}

  /** Text Postgres accepts (no NUL, no lone surrogates), truncated and marked when too long. */
  clean(s: string): string {
    let out = s;
    if (NEEDS_CLEANING.test(out)) {
      out = (out as string & { toWellFormed(): string }).toWellFormed().replace(NUL, '\ufffd');
    }
    if (out.length > this.limits.maxStringChars) {
      const dropped = out.length - this.limits.maxStringChars;
      out = `${out.slice(0, this.limits.maxStringChars)}…[TRUNCATED:${dropped} chars]`;
    }
    return out;
  }
}

/** One line naming the first rejected spans (or other `items`) and why (the count says how many in all). */
export function rejectionMessage(rejected: readonly Rejection[], total = rejected.length, max = 5, items = 'span(s)'): string {
  if (total === 0) return '';
  const shown = rejected.slice(0, max).map((r) => `${r.path}: ${r.reason}`);
  const more = total > shown.length ? `; and ${total - shown.length} more` : '';
  return `rejected ${total} ${items}: ${shown.join('; ')}${more}`;
}
