/**
 * A write transaction's rows (writer.ts, step 4): the COPY text of the batch's spans not stored
 * yet, each once even when the batch repeats one (by trace and span id, whatever its start
 * time), straight into Buffers (each span's prepared row, then its session id and, for a span
 * row, its trace's start time), and each session's totals of the batch's new rows (inserted as
 * they are for a new session, merged into a stored one: sql.ts, recomputeSessions).
 */
import { CopyBuffer, copyField } from './copy.ts';
import { key, type Prepared } from './prepare.ts';
import { SessionTotals } from './session-totals.ts';
import type { DerivedRow } from './session-totals.ts';
import { ATTEMPTS, DERIVED_TARGETS, MODEL_CALLS, type Target, TOOL_CALLS } from './sql.ts';

export interface BatchRows {
  spanRows: CopyBuffer;
  derived: Map<Target, CopyBuffer>;
  /** By `project/session`; `exact` ones are complete from this batch alone. */
  totals: Map<string, SessionTotals>;
  /** The batch's rows the analytics rollup counts (sql.ts, updateAnalytics). */
  analytics: AnalyticsRows;
}

/**
 * The keys of a batch's new attempts ('a'), tool calls ('c') and repair turns ('m'): what the
 * analytics rollup's update reads, with the stored rows they affect (guardtrace_update_analytics).
 */
class AnalyticsRows {
  readonly kinds: string[] = [];
  readonly projects: string[] = [];
  readonly traces: string[] = [];
  readonly spans: string[] = [];

  add(target: Target, row: DerivedRow | null, projectId: string, traceId: string, spanId: string): void {
    let kind: string;
    if (target === ATTEMPTS) kind = 'a';
    else if (target === TOOL_CALLS) kind = 'c';
    else if (target === MODEL_CALLS && row && (row.repair_attempt_span_id != null || row.repair_failure_class != null)) kind = 'm';
    else return;
    this.kinds.push(kind);
    this.projects.push(projectId);
    this.traces.push(traceId);
    this.spans.push(spanId);
  }
}

/**
 * @param exactTotals false on the ON CONFLICT path, where some rows may not be written at all.
 * @param traceSession session id per `project/trace`, as far as the batch and the store know it.
 * @param traceStart start time per `project/trace` (timestamptz text): the partition key of its spans.
 * @param existing `project/trace/span` keys already stored; the batch's own are added.
 * @param touched sessions this transaction writes (re-keyed ones already in); the batch's are added.
 */
export function batchRows(
  jobs: readonly { projectId: string; spans: readonly Prepared[] }[],
  exactTotals: boolean,
  traceSession: ReadonlyMap<string, string>,
  traceStart: ReadonlyMap<string, string>,
  existing: Set<string>,
  touched: Map<string, [string, string]>,
): BatchRows {
  const spanRows = new CopyBuffer();
  const derived = new Map<Target, CopyBuffer>(DERIVED_TARGETS.map((t) => [t, new CopyBuffer()]));
  /** Each session's last COPY field and the line end, made once; and each trace's for its span rows. */
  const tails = new Map<string, string>();
  const spanTails = new Map<string, [string, string]>();
  // Not re-keyed sessions: their moved rows are stored.
  const totals = new Map<string, SessionTotals>();
  const analytics = new AnalyticsRows();
  for (const job of jobs) {
    for (const p of job.spans) {
      const traceKey = p.traceKey;
      const sessionId = p.conv ?? traceSession.get(traceKey) ?? p.traceId;
      const sessionKey = key(job.projectId, sessionId);
      let tot = totals.get(sessionKey);
      if (tot === undefined) {
        tot = new SessionTotals(job.projectId, sessionId);
        tot.exact = exactTotals && !touched.has(sessionKey);
        totals.set(sessionKey, tot);
        touched.set(sessionKey, [job.projectId, sessionId]);
      }
      let tail = tails.get(sessionKey);
      if (tail === undefined) {
        tail = `\t${copyField(sessionId)}\n`;
        tails.set(sessionKey, tail);
      }
      // (A trace with stored spans, or a span stored already: the session has a row, and the
      // batch's totals of its new rows are merged into it.)
      const spanKey = p.spanKey;
      if (existing.has(spanKey)) continue;
      existing.add(spanKey);
      if (tot.exact) tot.add(p.facts, p.derived ?? undefined, p.row, p.extra);
      // (Spans of one trace may name different conversations: the tail is remade when the session changes.)
      let spanTail = spanTails.get(traceKey);
      if (spanTail === undefined || spanTail[0] !== sessionId) {
        spanTail = [sessionId, `\t${copyField(sessionId)}\t${copyField(traceStart.get(traceKey))}\n`];
        spanTails.set(traceKey, spanTail);
      }
      spanRows.writeBytes(p.buf, p.lineStart, p.lineEnd);
      spanRows.write(spanTail[1]);
      if (p.derived) {
        const rows = derived.get(p.derived) as CopyBuffer;
        rows.writeBytes(p.derivedBuf as Buffer, p.derivedStart, p.derivedEnd);
        rows.write(tail);
        analytics.add(p.derived, p.row, job.projectId, p.traceId, p.spanId);
      }
      if (p.extra) {
        for (const x of p.extra) {
          const rows = derived.get(x.target) as CopyBuffer;
          rows.writeBytes(x.buf, x.start, x.end);
          rows.write(tail);
          analytics.add(x.target, x.row, job.projectId, p.traceId, x.spanId);
        }
      }
    }
  }
  return { spanRows, derived, totals, analytics };
}
