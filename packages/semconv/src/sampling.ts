/**
 * The weight a session is stored with, from what its processes said: each process's SDK writes
 * `guardtrace.sampling.weight` on its part's root span (1 when it saw a failure, 1/rate when it
 * keeps the session clean, 0 when it would drop it). One rule for everything that decides a
 * session's weight: the seed's sessions use it, and the collector's session totals apply it in
 * SQL (`guardtrace_sampling_weight`, migration session_totals_in_sql), which
 * apps/collector/test/session-totals.test.ts compares with this function on every case.
 *
 * - `failure`: a failed or rejected attempt, an escalation or a failed root span anywhere in
 *   the session: it is kept whatever the sampling, at 1.
 * - `smallestKept`: the smallest positive weight any process wrote (null: none did); a process
 *   that saw a failure says 1, one at a higher rate says less.
 * - `anyDropped`: some process wrote 0.
 *
 * 0 only when every process that wrote a weight would drop the session (the collector holds it
 * until its decision wait ends, then deletes it); 1 when no span carries a weight (spans of other
 * instrumentations follow the session).
 */
export function sessionSamplingWeight(failure: boolean, smallestKept: number | null, anyDropped: boolean): number {
  if (failure) return 1;
  return smallestKept ?? (anyDropped ? 0 : 1);
}
