/** The rows the collector writes for OTLP JSON bodies, built without a collector (raw COPY baselines). */
import { sessionId as spanSessionId } from '../src/conventions/index.ts';
import { type DerivedRows, derive, spanRow } from '../src/mapping.ts';
import { Normalizer } from '../src/normalize.ts';
import { decodeJsonRequest } from '../src/otlp-decode.ts';
import { ATTEMPTS, GUARD_CHECKS, MODEL_CALLS, SPANS, TOOL_CALLS, type Target } from '../src/sql.ts';

/** Each table with its rows; a span row carries its trace's start (its partition key): the earliest span's, as the collector sets it. */
export function tableRows(projectId: string, jsonBodies: readonly Record<string, unknown>[]): [Target, Record<string, unknown>[]][] {
  const spanRows: Record<string, unknown>[] = [];
  const derived: DerivedRows = { toolCalls: [], attempts: [], guardChecks: [], modelCalls: [] };
  const traceStart = new Map<string, { ns: bigint; text: unknown }>();
  for (const body of jsonBodies) {
    const { spans } = new Normalizer().normalize(decodeJsonRequest(Buffer.from(JSON.stringify(body))));
    for (const s of spans) {
      const sessionId = spanSessionId(s) ?? s.traceId;
      const row: Record<string, unknown> = spanRow(s, projectId, sessionId);
      const t = traceStart.get(s.traceId);
      if (t === undefined || s.startNs < t.ns) traceStart.set(s.traceId, { ns: s.startNs, text: row.start_time });
      spanRows.push(row);
      derive(s, projectId, sessionId, derived);
    }
  }
  for (const row of spanRows) row.trace_start = traceStart.get(row.trace_id as string)?.text;
  return [
    [SPANS, spanRows],
    [TOOL_CALLS, derived.toolCalls],
    [ATTEMPTS, derived.attempts],
    [GUARD_CHECKS, derived.guardChecks],
    [MODEL_CALLS, derived.modelCalls],
  ];
}
