/**
 * A write transaction's rows (writer.ts, step 4): the COPY text of the batch's spans not stored
 * yet, each once even when the batch repeats one (by trace and span id, whatever its start
 * time), straight into Buffers (each span's prepared row, then its session id and, for a span
 * row, its trace's start time). Session totals are not computed here: the transaction
 * recomputes them in SQL from the stored rows (sql.ts, recomputeSessions), the one rule.
 */
import { CopyBuffer, copyField } from './copy.ts';
import { key, type Prepared } from './prepare.ts';
import { DERIVED_TARGETS, type Target } from './sql.ts';

export interface BatchRows {
  spanRows: CopyBuffer;
  derived: Map<Target, CopyBuffer>;
}

/**
 * @param traceSession session id per `project/trace`, as far as the batch and the store know it.
 * @param traceStart start time per `project/trace` (timestamptz text): the partition key of its spans.
 * @param storedTraces traces with spans stored before this batch.
 * @param existing `project/trace/span` keys already stored; the batch's own are added.
 * @param touched sessions this transaction writes (re-keyed ones already in); the batch's are added.
 */
export function batchRows(
  jobs: readonly { projectId: string; spans: readonly Prepared[] }[],
  traceSession: ReadonlyMap<string, string>,
  traceStart: ReadonlyMap<string, string>,
  storedTraces: ReadonlySet<string>,
  existing: Set<string>,
  touched: Map<string, [string, string]>,
): BatchRows {
  const spanRows = new CopyBuffer();
  const derived = new Map<Target, CopyBuffer>(DERIVED_TARGETS.map((t) => [t, new CopyBuffer()]));
  /** Each session's last COPY field and the line end, made once; and each trace's for its span rows. */
  const tails = new Map<string, string>();
  const spanTails = new Map<string, [string, string]>();
  for (const job of jobs) {
    for (const p of job.spans) {
      const traceKey = p.traceKey;
      const sessionId = p.conv ?? traceSession.get(traceKey) ?? p.traceId;
      const sessionKey = key(job.projectId, sessionId);
      let tail = tails.get(sessionKey);
      if (tail === undefined) {
        tail = `\t${copyField(sessionId)}\n`;
        tails.set(sessionKey, tail);
        touched.set(sessionKey, [job.projectId, sessionId]);
      }
      const spanKey = p.spanKey;
      if (existing.has(spanKey)) continue;
      existing.add(spanKey);
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
      }
      if (p.extra) {
        for (const x of p.extra) {
          const rows = derived.get(x.target) as CopyBuffer;
          rows.writeBytes(x.buf, x.start, x.end);
          rows.write(tail);
        }
      }
    }
  }
  return { spanRows, derived };
}
