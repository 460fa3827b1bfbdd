/**
 * A request's spans made ready for the writer, in the request (so this CPU work overlaps the
 * running transactions): each span's COPY rows, encoded into the request's RowArena, and the
 * few fields its transaction needs. Only session_id (and a span row's trace_start) is left out
 * of the rows, known per batch.
 */

import { interpret, sessionId } from './conventions/index.ts';
import { copyLine, RowArena, shareJson } from './copy.ts';
import { type DerivedRows, deriveOne, guardEventRows, impliedRows, spanCopyHead } from './mapping.ts';
import type { CallSpan } from './same-call.ts';
import type { NormSpan } from './span.ts';
import { ATTEMPTS, GUARD_CHECKS, MODEL_CALLS, type Target, TOOL_CALLS } from './sql.ts';
import { type DefinitionRow, spanDefinition } from './tool-definitions.ts';

// A request's row texts are ~1 KB a span (guard-shaped spans: 0.6-1.3 KB); bigger rows get
// chunks of their own. At most 1 MiB at a time, so a huge request does not reserve it all up front.
const ARENA_BYTES_PER_SPAN = 1536;
const ARENA_MAX_BYTES = 1 << 20;
const ARENA_MIN_BYTES = 4096;

/** `project/trace`: the writer's map key of a trace (and, with a session id, of a session). */
export const key = (projectId: string, traceId: string) => `${projectId}/${traceId}`;

/** The arena of a request of `spans` spans. */
export function requestArena(spans: number, onAlloc?: (bytes: number) => void): RowArena {
  return arenaOf(spans * ARENA_BYTES_PER_SPAN, onAlloc);
}

/** An arena whose chunks hold `bytes` (within 4 KiB..1 MiB), when the span count is not known yet. */
export function arenaOf(bytes: number, onAlloc?: (bytes: number) => void): RowArena {
  return new RowArena(arenaChunkBytes(bytes), onAlloc);
}

/** The first chunk of an arena asked for `bytes`. */
export function arenaChunkBytes(bytes: number): number {
  return Math.max(ARENA_MIN_BYTES, Math.min(ARENA_MAX_BYTES, bytes));
}

/**
 * A span with its rows built ahead of the transaction, all but session_id (known later): the
 * COPY text of its `spans` row and of its derived row, each without session_id (the last
 * column, appended per batch).
 */
export interface Prepared {
  traceId: string;
  spanId: string;
  /** Start time as timestamptz text (a trace new in a batch starts at its earliest span's: the spans' key). */
  startTime: string;
  /** Its start in nanoseconds (a new trace's spans are keyed by its earliest span's start). */
  startNs: bigint;
  /** `project/trace` and `project/trace/span`: the batch's map keys, built once. */
  traceKey: string;
  spanKey: string;
  conv: string | null;
  /** Its `spans` row text: bytes `lineStart` to `lineEnd` of `buf` (the request's RowArena). */
  buf: Buffer;
  lineStart: number;
  lineEnd: number;
  /** Its derived row's table, and text (in `derivedBuf`), if it has one. */
  derived: Target | null;
  derivedBuf: Buffer | null;
  derivedStart: number;
  derivedEnd: number;
  /** Its derived row is a model call that repairs a failed attempt (the analytics rollup lists those). */
  repair: boolean;
  /** Rows of tool calls the span reports as refused (no span of their own): rarely any. */
  extra: ExtraRow[] | null;
  /** The tool definition a tool call span carries, when this process has not stored it yet (tool-definitions.ts). */
  definition: DefinitionRow | null;
  /** A model call span, as same-call.ts reads it (another span may record the same call). */
  call: CallSpan | null;
}

/** A derived row beyond a span's own: its table, its text (bytes `start` to `end` of `buf`). */
interface ExtraRow {
  target: Target;
  /** The row's span id (the refused call's own, not the span's). */
  spanId: string;
  /** The row's start (a refused call's is just before the span that reports it). */
  startedAt: string;
  buf: Buffer;
  start: number;
  end: number;
}

const DERIVED_TARGET: Record<keyof DerivedRows, Target> = {
  toolCalls: TOOL_CALLS,
  attempts: ATTEMPTS,
  guardChecks: GUARD_CHECKS,
  modelCalls: MODEL_CALLS,
};

/** A span's rows (without session_id) in the request's arena, and what its transaction needs. */
export function prepareSpan(projectId: string, span: NormSpan, arena: RowArena): Prepared {
  shareJson(span.resource);
  const m = interpret(span);
  const d = m === null ? null : deriveOne(span, m, projectId, '');
  const lineStart = arena.put(spanCopyHead(span, projectId, m?.role ?? null));
  const buf = arena.buf;
  const lineEnd = arena.end;
  let derived: Target | null = null;
  let derivedBuf: Buffer | null = null;
  let derivedStart = 0;
  if (d) {
    derived = DERIVED_TARGET[d[0]];
    derivedStart = arena.put(copyLine(d[1], derived.head));
    derivedBuf = arena.buf;
  }
  const traceKey = key(projectId, span.traceId);
  const spanKey = `${traceKey}/${span.spanId}`;
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    startTime: span.startTime as string,
    startNs: span.startNs,
    traceKey,
    spanKey,
    conv: sessionId(span),
    buf,
    lineStart,
    lineEnd,
    derived,
    derivedBuf,
    derivedStart,
    derivedEnd: arena.end,
    repair: derived === MODEL_CALLS && d !== null && isRepair(d[1] as RepairFields),
    extra: extraRows(span, m, projectId, arena),
    definition: derived === TOOL_CALLS ? spanDefinition(projectId, span, span.startTime as string) : null,
    call: derived === MODEL_CALLS && d !== null ? callSpan(span, d[1] as unknown as ModelCallFields) : null,
  };
}

/** The fields of a model call row that same-call.ts reads. */
interface ModelCallFields extends RepairFields {
  model: string | null;
  input_tokens: number;
  output_tokens: number;
}

function callSpan(span: NormSpan, row: ModelCallFields): CallSpan {
  return {
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    startNs: span.startNs,
    endNs: span.endNs,
    scope: span.scopeName,
    model: row.model,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    repair: isRepair(row),
  };
}

/** Rows beyond the span's own: attempts it implies (refused calls, another instrumentation's tool call), guardrail results it carries. */
function extraRows(span: NormSpan, m: ReturnType<typeof interpret>, projectId: string, arena: RowArena): ExtraRow[] | null {
  const implied = m === null ? null : impliedRows(span, m, projectId, '');
  const events = guardEventRows(span, m?.role ?? null, projectId, '');
  const rows = implied === null ? events : events === null ? implied : [...implied, ...events];
  if (rows === null) return null;
  return rows.map(([table, row]) => {
    const target = DERIVED_TARGET[table];
    const start = arena.put(copyLine(row, target.head));
    return { target, spanId: row.span_id, startedAt: row.started_at, buf: arena.buf, start, end: arena.end };
  });
}

/** The fields of a model call row that make it a repair turn. */
interface RepairFields {
  repair_attempt_span_id?: string | null;
  repair_failure_class?: string | null;
}

const isRepair = (row: RepairFields) => row.repair_attempt_span_id != null || row.repair_failure_class != null;
