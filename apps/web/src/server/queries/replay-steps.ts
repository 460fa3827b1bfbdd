/**
 * The replay's structure over a session's steps: cause-and-effect order, the repair links both
 * ways, and the span tree. Pure functions over the DTOs that
 * session.ts builds from the stored rows.
 */
import { stepKey } from './call-parts.ts';
import { orderSteps } from './replay-order.ts';
import type { SpanFacts } from './session-spans.ts';
import type { AttemptDto, ModelCallStepDto, SpanNodeDto, TimelineStepDto, ToolCallStepDto } from './session-types.ts';

type Unstepped<T> = Omit<T, 'step'>;
// Distributes over the union, so each kind keeps its own fields.
export type StepDraft = TimelineStepDto extends infer T ? (T extends TimelineStepDto ? Unstepped<T> : never) : never;

const key = (traceId: string, spanId: string) => `${traceId}:${spanId}`;
/** Deepest nesting shown, in the timeline and (twice as deep) in the span tree. */
export const MAX_DEPTH = 8;

const RANK = { model: 0, guard: 1, tool: 2, span: 3 } as const;

/**
 * A step's recorded place (`guardtrace.step.sequence`), keyed like the steps: `scope` names the
 * counter it comes from (the SDK counts per session object, so its steps share a parent span).
 */
export interface StepSequence {
  scope: string;
  sequence: number;
}

/** The SDK's step number of a tool call or model turn row, scoped by its trace and parent span; none without one. */
export function sequenceOf(row: { traceId: string; parentSpanId: string | null; stepSequence: number | null }): StepSequence | null {
  return row.stepSequence === null ? null : { scope: key(row.traceId, row.parentSpanId ?? ''), sequence: row.stepSequence };
}

/** Edges that keep each counter's steps in its order: consecutive steps of one scope, by number (span id on a repeat). */
function sequenceEdges(sequences: Map<string, StepSequence>): { before: string; after: string }[] {
  const scopes = new Map<string, { k: string; sequence: number }[]>();
  for (const [k, s] of sequences) {
    const list = scopes.get(s.scope);
    if (list) list.push({ k, sequence: s.sequence });
    else scopes.set(s.scope, [{ k, sequence: s.sequence }]);
  }
  const edges: { before: string; after: string }[] = [];
  for (const list of scopes.values()) {
    list.sort((a, b) => a.sequence - b.sequence || (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
    for (let i = 1; i < list.length; i++) edges.push({ before: (list[i - 1] as { k: string }).k, after: (list[i] as { k: string }).k });
  }
  return edges;
}

/**
 * Steps in cause-and-effect order (see replay-order.ts), numbered from 1: a repair turn after the
 * call it repairs, a child after its parent, the SDK's steps in their recorded sequence (within
 * one counter, `sequences` keyed `traceId:spanId`), and only then start time and span id.
 * The drafts themselves are numbered (their `step` is set) and returned in that order.
 */
export function orderByChain(
  drafts: StepDraft[],
  facts: Map<string, SpanFacts>,
  toolOfAttempt: Map<string, string>,
  sequences: Map<string, StepSequence> = new Map(),
): TimelineStepDto[] {
  const edges = sequenceEdges(sequences);
  // A call listed in parts (call-parts.ts): each later part comes after the repair turn that
  // produced it, and whatever follows the call in the SDK's sequence comes after its last part.
  const partKeys = new Set<string>();
  const lastPart = new Map<string, string>();
  for (const d of drafts) {
    if (d.kind !== 'tool' || !d.part) continue;
    partKeys.add(stepKey(d));
    if (d.part.index === d.part.count - 1) lastPart.set(key(d.traceId, d.spanId), stepKey(d));
  }
  // The turns that repaired one of a call's attempts (they come between its parts, not after them).
  const repairsOf = new Map<string, Set<string>>();
  for (const d of drafts) {
    if (d.kind !== 'model' || !d.repairAttemptSpanId) continue;
    const tool = toolOfAttempt.get(d.repairAttemptSpanId);
    if (!tool) continue;
    const base = tool.split('#')[0] as string;
    const set = repairsOf.get(base) ?? new Set<string>();
    set.add(key(d.traceId, d.spanId));
    repairsOf.set(base, set);
  }
  const nextInSequence = new Map(edges.map((e) => [e.before, e.after]));
  for (const [base, last] of lastPart) {
    if (last === base) continue;
    let after = nextInSequence.get(base);
    const repairs = repairsOf.get(base);
    while (after !== undefined && repairs?.has(after)) after = nextInSequence.get(after);
    if (after !== undefined) edges.push({ before: last, after });
  }
  const nodes = drafts.map((d) => {
    // A later part of a call (call-parts.ts) has a key of its own, and no span: its time is its first attempt's.
    const k = stepKey(d);
    const fact = facts.get(k);
    const ms = BigInt(Date.parse(d.startedAt));
    const ns = fact?.startNs;
    // The raw span's nanoseconds order what the derived row's milliseconds tie, when both agree.
    const startNs = ns !== undefined && ns / 1_000_000n === ms ? ns : ms * 1_000_000n;
    const parent = d.kind === 'span' ? d.parentSpanId : fact?.parentSpanId;
    if (parent) edges.push({ before: key(d.traceId, parent), after: k });
    // The repair turn follows the call whose attempt it repairs.
    if (d.kind === 'model' && d.repairAttemptSpanId) {
      const tool = toolOfAttempt.get(d.repairAttemptSpanId);
      if (tool) {
        edges.push({ before: tool, after: k });
        // The corrected attempt, when the call went on in its next part, follows the turn.
        const hash = tool.indexOf('#');
        const next = hash < 0 ? `${tool}#1` : `${tool.slice(0, hash)}#${Number(tool.slice(hash + 1)) + 1}`;
        if (partKeys.has(next)) edges.push({ before: k, after: next });
      }
    }
    return { draft: d, key: k, startNs, rank: RANK[d.kind], spanId: d.spanId };
  });
  // Numbered in place: the drafts are this build's own objects, and a copy of each was 2,160 more to collect.
  return orderSteps(nodes, edges).map((n, i) => Object.assign(n.draft, { step: i + 1 }) as TimelineStepDto);
}

/**
 * A rejection's repair link as the collector stored it (attempts.repair_span_id, correction_span_id,
 * correction_attempt; guardtrace_link_corrections): the model turn that answered it and the call
 * that corrects it. Analytics' "Fixed next" counts the same link, so the two never disagree.
 */
export interface RepairLink {
  repairSpanId: string | null;
  correctionSpanId: string | null;
  correctionAttempt: number | null;
}

/**
 * Fills the repair links both ways: attempt → repairing turn → corrected call. The turn is the one
 * that names the attempt (guardtrace.repair.attempt_span_id) or the stored link's (another
 * instrumentation's failed call: the model's next call). The corrected call is the stored link's
 * (the step, or part of a call, holding the linked attempt); without a stored link (an attempt the
 * link does not cover, such as a retry), the same call's next attempt (a waiting call listed in
 * parts: the first attempt of its next part), else the first tool call after the repair turn.
 */
export function linkRepairs(steps: TimelineStepDto[], toolOfAttempt: Map<string, string>, links: Map<string, RepairLink> = new Map()): void {
  const stepOfKey = new Map(steps.map((s) => [stepKey(s), s]));
  // By span id alone: a link names spans of its session, whatever their trace. A call listed in
  // parts has one step per part: all are kept, and the part holding the linked attempt is taken.
  const modelOfSpan = new Map<string, ModelCallStepDto>();
  const toolsOfSpan = new Map<string, ToolCallStepDto[]>();
  for (const s of steps) {
    if (s.kind === 'model' && !modelOfSpan.has(s.spanId)) modelOfSpan.set(s.spanId, s);
    else if (s.kind === 'tool') {
      const list = toolsOfSpan.get(s.spanId);
      if (list) list.push(s);
      else toolsOfSpan.set(s.spanId, [s]);
    }
  }
  const link = (m: ModelCallStepDto, tool: ToolCallStepDto, i: number) => {
    const failed = tool.attempts[i] as AttemptDto;
    failed.repairedByStep = m.step;
    m.repairs = { step: tool.step, attempt: failed.number, toolName: failed.toolName ?? tool.toolName };
    const stored = links.get(failed.spanId);
    if (stored) {
      const parts = stored.correctionSpanId ? (toolsOfSpan.get(stored.correctionSpanId) ?? []) : [];
      const want = stored.correctionAttempt;
      const at = parts.find((p) => want !== null && p.attempts.some((a) => a.number === want)) ?? parts[0];
      const attempt = at?.attempts.find((a) => a.number === want);
      m.corrected = at ? { step: at.step, attempt: want, toolName: attempt?.toolName ?? at.toolName } : null;
      return;
    }
    // The same call's next attempt (a waiting call, maybe naming another tool: the first attempt
    // of its next part), else the first tool call after the repair turn.
    const nextPart = tool.part ? steps[(tool.part.steps[tool.part.index + 1] ?? 0) - 1] : undefined;
    const [on, next] = tool.attempts[i + 1] ? [tool, tool.attempts[i + 1]] : nextPart?.kind === 'tool' ? [nextPart, nextPart.attempts[0]] : [tool, undefined];
    if (next) {
      m.corrected = { step: on.step, attempt: next.number, toolName: next.toolName ?? tool.toolName };
      return;
    }
    m.corrected = null;
    // Searched in place: a copy of the rest of the steps per repair turn was 2.3 MB a 6,629-span build.
    for (let j = m.step; j < steps.length; j++) {
      const after = steps[j] as TimelineStepDto;
      if (after.kind !== 'tool') continue;
      m.corrected = { step: after.step, attempt: after.attempts[0]?.number ?? null, toolName: after.toolName };
      break;
    }
  };
  for (const m of steps) {
    if (m.kind !== 'model' || !m.repairAttemptSpanId) continue;
    const tool = stepOfKey.get(toolOfAttempt.get(m.repairAttemptSpanId) ?? '');
    if (tool?.kind !== 'tool') continue;
    const i = tool.attempts.findIndex((a) => a.spanId === m.repairAttemptSpanId);
    if (i >= 0) link(m, tool, i);
  }
  // Repair turns the collector inferred (no attribute names the attempt).
  for (const tool of steps) {
    if (tool.kind !== 'tool') continue;
    tool.attempts.forEach((a, i) => {
      const m = a.repairedByStep === null ? modelOfSpan.get(links.get(a.spanId)?.repairSpanId ?? '') : undefined;
      if (m && !m.repairs) {
        link(m, tool, i);
        m.repairsInferred = true;
        a.repairedByInferred = true;
      }
    });
  }
}

/** Every span, depth first under its parent (children in start order), with the step it is. */
export function spanTree(spans: SpanFacts[], steps: TimelineStepDto[]): SpanNodeDto[] {
  // A call listed in parts is its first part's span.
  const stepOf = new Map<string, number>();
  for (const s of steps) if (!stepOf.has(key(s.traceId, s.spanId))) stepOf.set(key(s.traceId, s.spanId), s.step);
  const known = new Set(spans.map((s) => key(s.traceId, s.spanId)));
  const children = new Map<string, SpanFacts[]>();
  const tops: SpanFacts[] = [];
  const sorted = [...spans].sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : a.spanId.localeCompare(b.spanId)));
  for (const s of sorted) {
    const p = s.parentSpanId ? key(s.traceId, s.parentSpanId) : null;
    if (!p || !known.has(p)) tops.push(s);
    else {
      // Appended in place: a root with 2,000 children copied on each append was quadratic.
      const list = children.get(p);
      if (list) list.push(s);
      else children.set(p, [s]);
    }
  }
  const out: SpanNodeDto[] = [];
  const stack: { s: SpanFacts; depth: number }[] = tops.reverse().map((s) => ({ s, depth: 0 }));
  while (stack.length) {
    const { s, depth } = stack.pop() as { s: SpanFacts; depth: number };
    const k = key(s.traceId, s.spanId);
    out.push({
      spanId: s.spanId,
      traceId: s.traceId,
      parentSpanId: s.parentSpanId,
      name: s.name,
      serviceName: s.serviceName,
      scopeName: s.scopeName,
      startedAt: s.startedAt,
      durationMs: s.durationMs,
      statusCode: s.statusCode,
      statusMessage: s.statusMessage,
      depth: Math.min(depth, MAX_DEPTH * 2),
      eventCount: s.eventCount,
      linkCount: s.linkCount,
      step: stepOf.get(k) ?? null,
    });
    for (const c of [...(children.get(k) ?? [])].reverse()) stack.push({ s: c, depth: depth + 1 });
  }
  return out;
}
