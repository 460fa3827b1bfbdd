/**
 * One model call recorded by two instrumentations (a framework's and its provider client's:
 * Traceloop's LangChain and OpenAI instrumentations, OpenInference's, the Vercel AI SDK's telemetry
 * beside an OpenAI instrumentation) is two model-call spans; it counts once. Two model-call spans
 * of one trace are the same call when all of these hold:
 *
 * - another instrumentation recorded each (their scope names differ: one library never records
 *   one call twice, and two calls of one library are two calls);
 * - one (the inner) ran within the other's time, start and end included (give or take a
 *   millisecond: some instrumentations record whole milliseconds);
 * - they name the same model when both name one (one may name a dated version of the other);
 * - they report the same input and output tokens; or, when one of them reports no usage, the
 *   inner is a child of the outer or a sibling of it. (An instrumentation that does not make its
 *   span the active one leaves the provider client's span beside it, as Traceloop's LangChain
 *   instrumentation does, or under whatever span the app has active, as OpenInference's does.)
 *
 * Of the two, the call is the inner one (the provider-level request), unless only the outer one
 * repairs a failed attempt (Guardtrace's repair attribution) or only the outer one has usage; the
 * other keeps its raw span but no model-call row. The rule reads both spans only, so it gives the
 * same rows whichever arrives first (writer.ts applies it across exports).
 */
import type pg from 'pg';
import { key, type Prepared } from './prepare.ts';
import { DELETE_MODEL_CALLS, STORED_MODEL_CALLS } from './sql.ts';

/** A model-call span, as the rule reads it. */
export interface CallSpan {
  spanId: string;
  parentSpanId: string | null;
  startNs: bigint;
  endNs: bigint;
  scope: string | null;
  model: string | null;
  inputTokens: number;
  outputTokens: number;
  repair: boolean;
}

const hasUsage = (c: CallSpan) => c.inputTokens > 0 || c.outputTokens > 0;

function sameModel(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return true;
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x.startsWith(y) || y.startsWith(x);
}

/**
 * Span times some instrumentations record in whole milliseconds (Date.now()): a span within another
 * may then seem to start up to a millisecond before it.
 */
const SLACK_NS = 1_000_000n;

const contains = (outer: CallSpan, inner: CallSpan) => inner.startNs >= outer.startNs - SLACK_NS && inner.endNs <= outer.endNs + SLACK_NS;

/** Whether `inner` is the same call as `outer`, recorded within it (see above). */
function within(outer: CallSpan, inner: CallSpan): boolean {
  if (outer.spanId === inner.spanId || outer.scope === inner.scope || !contains(outer, inner)) return false;
  // The same interval (either within the other): the child is the inner one; between siblings, the smaller span id.
  if (contains(inner, outer) && (outer.parentSpanId === inner.spanId || (inner.parentSpanId !== outer.spanId && inner.spanId > outer.spanId))) return false;
  if (outer.parentSpanId === inner.spanId || !sameModel(outer.model, inner.model)) return false;
  if (hasUsage(outer) && hasUsage(inner)) return outer.inputTokens === inner.inputTokens && outer.outputTokens === inner.outputTokens;
  return inner.parentSpanId === outer.spanId || (inner.parentSpanId !== null && inner.parentSpanId === outer.parentSpanId);
}

/** Of a pair of spans of one call, the one that is not the call. */
function notTheCall(outer: CallSpan, inner: CallSpan): CallSpan {
  if (outer.repair !== inner.repair) return outer.repair ? inner : outer;
  if (hasUsage(outer) && !hasUsage(inner)) return inner;
  return outer;
}

/**
 * The span ids of a trace's model-call spans that another span of theirs records as the call:
 * they get no model-call row. `calls`: the trace's model-call spans (stored and new, each once).
 */
export function recordedTwice(calls: readonly CallSpan[]): Set<string> {
  const out = new Set<string>();
  if (calls.length < 2) return out;
  for (const outer of calls) for (const inner of calls) if (within(outer, inner)) out.add(notTheCall(outer, inner).spanId);
  return out;
}


interface StoredCall {
  project_id: string;
  trace_id: string;
  span_id: string;
  session_id: string;
  parent_span_id: string | null;
  model: string | null;
  input_tokens: number;
  output_tokens: number;
  repair: boolean;
  start_ns: string;
  end_ns: string;
  scope_name: string | null;
}

/**
 * In a write transaction, under its traces' locks (writer.ts): the batch's new model-call spans
 * that another span of their trace, new or stored, records as the call (their `project/trace/span`
 * keys: they get no row); stored rows that a new span records as the call are deleted, and their
 * sessions added to `touched` (recomputed whole, not by the batch's rows).
 * @param existing `project/trace/span` keys of the batch's spans already stored.
 */
export async function sameCalls(
  client: pg.PoolClient,
  jobs: readonly { projectId: string; spans: readonly Prepared[] }[],
  storedTraces: ReadonlySet<string>,
  traceStart: ReadonlyMap<string, string>,
  existing: ReadonlySet<string>,
  touched: Map<string, [string, string]>,
): Promise<Set<string>> {
  const traces = new Map<string, { projectId: string; traceId: string; calls: Map<string, CallSpan> }>();
  for (const job of jobs) {
    for (const p of job.spans) {
      if (p.call === null || existing.has(p.spanKey)) continue;
      let t = traces.get(p.traceKey);
      if (t === undefined) {
        t = { projectId: job.projectId, traceId: p.traceId, calls: new Map() };
        traces.set(p.traceKey, t);
      }
      t.calls.set(p.spanId, p.call);
    }
  }
  const drop = new Set<string>();
  if (traces.size === 0) return drop;
  const stored = new Map<string, StoredCall>();
  const lookup = [...traces].filter(([k]) => storedTraces.has(k)).map(([k, t]) => [t.projectId, traceStart.get(k) as string, t.traceId]);
  if (lookup.length > 0) {
    const { rows } = await client.query<StoredCall>(STORED_MODEL_CALLS, [lookup.map((r) => r[0]), lookup.map((r) => r[1]), lookup.map((r) => r[2])]);
    for (const r of rows) {
      const t = traces.get(key(r.project_id, r.trace_id));
      if (t === undefined || t.calls.has(r.span_id)) continue;
      stored.set(`${key(r.project_id, r.trace_id)}/${r.span_id}`, r);
      t.calls.set(r.span_id, {
        spanId: r.span_id,
        parentSpanId: r.parent_span_id,
        startNs: BigInt(r.start_ns),
        endNs: BigInt(r.end_ns),
        scope: r.scope_name,
        model: r.model,
        inputTokens: r.input_tokens,
        outputTokens: r.output_tokens,
        repair: r.repair,
      });
    }
  }
  const gone: StoredCall[] = [];
  for (const [k, t] of traces) {
    for (const spanId of recordedTwice([...t.calls.values()])) {
      const spanKey = `${k}/${spanId}`;
      const row = stored.get(spanKey);
      if (row === undefined) drop.add(spanKey);
      else gone.push(row);
    }
  }
  if (gone.length > 0) {
    await client.query(DELETE_MODEL_CALLS, [gone.map((r) => r.project_id), gone.map((r) => r.trace_id), gone.map((r) => r.span_id)]);
    for (const r of gone) touched.set(key(r.project_id, r.session_id), [r.project_id, r.session_id]);
  }
  return drop;
}
