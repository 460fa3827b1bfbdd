/**
 * A write transaction's rows (writer.ts, step 4): the COPY text of the batch's spans not stored
 * yet, each once even when the batch repeats one (by trace and span id, whatever its start
 * time), straight into Buffers (each span's prepared row, then its session id and, for a span
 * row, its trace's start time); and the keys of those rows per session, from which SQL computes
 * each session's totals (sql.ts, updateSessions) and the analytics rollup's change (updateAnalytics).
 */
import { CopyBuffer, copyField } from './copy.ts';
import { key, type Prepared } from './prepare.ts';
import { ATTEMPTS, DERIVED_TARGETS, MODEL_CALLS, type Target, TOOL_CALLS } from './sql.ts';
import type { DefinitionRow } from './tool-definitions.ts';

export interface BatchRows {
  spanRows: CopyBuffer;
  derived: Map<Target, CopyBuffer>;
  /**
   * The sessions the batch writes rows of, by `project/session`: whether they are `listed` (every
   * new row of theirs is in `totals`: not re-keyed, on the direct path) and how many new spans they get.
   */
  sessions: Map<string, SessionBatch>;
  /** The batch's new rows the session totals count, by key (guardtrace_session_totals). */
  totals: TotalsRows;
  /** The batch's rows the analytics rollup counts (sql.ts, updateAnalytics). */
  analytics: AnalyticsRows;
  /** Tool definitions carried by the batch's new spans (tool-definitions.ts). */
  definitions: DefinitionRow[];
}

/** What a batch brings to one session. */
interface SessionBatch {
  listed: boolean;
  spans: number;
  /** The earliest start of its new spans (timestamptz text), null with none. */
  since: string | null;
  sinceNs: bigint;
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

  add(target: Target, repair: boolean, projectId: string, traceId: string, spanId: string): void {
    let kind: string;
    if (target === ATTEMPTS) kind = 'a';
    else if (target === TOOL_CALLS) kind = 'c';
    else if (target === MODEL_CALLS && repair) kind = 'm';
    else return;
    this.kinds.push(kind);
    this.projects.push(projectId);
    this.traces.push(traceId);
    this.spans.push(spanId);
  }
}

/**
 * The keys of a listed session's new spans ('s', with their trace's start: the spans' partition
 * key), tool calls ('c'), attempts ('a') and model calls ('m'), each with its session
 * (`project/session`) and its own start time (a derived row's is its span's).
 */
class TotalsRows {
  readonly sessions: string[] = [];
  readonly kinds: string[] = [];
  readonly times: string[] = [];
  readonly starts: (string | undefined)[] = [];
  readonly traces: string[] = [];
  readonly spans: string[] = [];

  add(session: string, kind: string, time: string, start: string | undefined, traceId: string, spanId: string): void {
    this.sessions.push(session);
    this.kinds.push(kind);
    this.times.push(time);
    this.starts.push(start);
    this.traces.push(traceId);
    this.spans.push(spanId);
  }

  addDerived(session: string, target: Target, time: string, traceId: string, spanId: string): void {
    const kind = target === TOOL_CALLS ? 'c' : target === ATTEMPTS ? 'a' : target === MODEL_CALLS ? 'm' : null;
    if (kind !== null) this.add(session, kind, time, undefined, traceId, spanId);
  }
}

/**
 * @param listable false on the ON CONFLICT path, where some rows may not be written at all.
 * @param traceSession session id per `project/trace`, as far as the batch and the store know it.
 * @param traceStart start time per `project/trace` (timestamptz text): the partition key of its spans.
 * @param existing `project/trace/span` keys already stored; the batch's own are added.
 * @param touched sessions this transaction writes (re-keyed ones already in); the batch's are added.
 * @param sameCall `project/trace/span` keys of model-call spans another span records as the call (same-call.ts): no row.
 */
export function batchRows(
  jobs: readonly { projectId: string; spans: readonly Prepared[] }[],
  listable: boolean,
  traceSession: ReadonlyMap<string, string>,
  traceStart: ReadonlyMap<string, string>,
  existing: Set<string>,
  touched: Map<string, [string, string]>,
  sameCall: ReadonlySet<string> = new Set(),
): BatchRows {
  const spanRows = new CopyBuffer();
  const derived = new Map<Target, CopyBuffer>(DERIVED_TARGETS.map((t) => [t, new CopyBuffer()]));
  /** Each session's last COPY field and the line end, made once; and each trace's for its span rows. */
  const tails = new Map<string, string>();
  const spanTails = new Map<string, [string, string]>();
  const sessions = new Map<string, SessionBatch>();
  const totals = new TotalsRows();
  const analytics = new AnalyticsRows();
  const definitions: DefinitionRow[] = [];
  for (const job of jobs) {
    for (const p of job.spans) {
      const traceKey = p.traceKey;
      const sessionId = p.conv ?? traceSession.get(traceKey) ?? p.traceId;
      const sessionKey = key(job.projectId, sessionId);
      let session = sessions.get(sessionKey);
      if (session === undefined) {
        // Re-keyed sessions (already touched) have stored rows moved into or out of them: not listed.
        session = { listed: listable && !touched.has(sessionKey), spans: 0, since: null, sinceNs: 0n };
        sessions.set(sessionKey, session);
        touched.set(sessionKey, [job.projectId, sessionId]);
      }
      let tail = tails.get(sessionKey);
      if (tail === undefined) {
        tail = `\t${copyField(sessionId)}\n`;
        tails.set(sessionKey, tail);
      }
      const spanKey = p.spanKey;
      if (existing.has(spanKey)) continue;
      existing.add(spanKey);
      session.spans++;
      if (session.since === null || p.startNs < session.sinceNs) {
        session.since = p.startTime;
        session.sinceNs = p.startNs;
      }
      const start = traceStart.get(traceKey);
      if (session.listed) totals.add(sessionKey, 's', p.startTime, start, p.traceId, p.spanId);
      // (Spans of one trace may name different conversations: the tail is remade when the session changes.)
      let spanTail = spanTails.get(traceKey);
      if (spanTail === undefined || spanTail[0] !== sessionId) {
        spanTail = [sessionId, `\t${copyField(sessionId)}\t${copyField(start)}\n`];
        spanTails.set(traceKey, spanTail);
      }
      spanRows.writeBytes(p.buf, p.lineStart, p.lineEnd);
      spanRows.write(spanTail[1]);
      if (p.definition) definitions.push(p.definition);
      if (p.derived && !(p.call !== null && sameCall.has(spanKey))) {
        const rows = derived.get(p.derived) as CopyBuffer;
        rows.writeBytes(p.derivedBuf as Buffer, p.derivedStart, p.derivedEnd);
        rows.write(tail);
        if (session.listed) totals.addDerived(sessionKey, p.derived, p.startTime, p.traceId, p.spanId);
        analytics.add(p.derived, p.repair, job.projectId, p.traceId, p.spanId);
      }
      if (p.extra) {
        for (const x of p.extra) {
          const rows = derived.get(x.target) as CopyBuffer;
          rows.writeBytes(x.buf, x.start, x.end);
          rows.write(tail);
          if (session.listed) totals.addDerived(sessionKey, x.target, x.startedAt, p.traceId, x.spanId);
          analytics.add(x.target, false, job.projectId, p.traceId, x.spanId);
        }
      }
    }
  }
  return { spanRows, derived, sessions, totals, analytics, definitions };
}
