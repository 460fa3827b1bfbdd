/** Every limit of the collector, with why it has that value. env.ts can override each. */
export interface Limits {
  maxBodyBytes: number;
  maxInFlightBytes: number;
  maxInFlightBytesPerProject: number;
  maxInFlightBytesPerKey: number;
  maxBatchSpans: number;
  maxQueueSpans: number;
  writerConcurrency: number;
  retryAfterSeconds: number;
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  keyCacheTtlMs: number;
  bodyTimeoutMs: number;
  maxDiscardBytes: number;
  dbTimeoutMs: number;
  samplingDecisionWaitMs: number;
}

export const DEFAULT_LIMITS: Limits = {
  // 16 MiB after decompression: the OTel Collector's own default cap is 20 MiB; SDK batches are ~1 MiB.
  maxBodyBytes: 16 * 1024 * 1024,
  // 256 MiB of decoded bodies in flight: bounds memory to a few hundred MiB on a small machine.
  maxInFlightBytes: 256 * 1024 * 1024,
  // 0: half of maxInFlightBytes, so no project takes more than half the collector from the others (in-flight.ts).
  maxInFlightBytesPerProject: 0,
  // 0: as much as a project (a project usually sends with one key); set lower so one service (key) of a project
  // cannot take its project's whole share from the project's other services.
  maxInFlightBytesPerKey: 0,
  // 8,192 spans per transaction: big enough to amortise round trips, small enough to commit in ~100 ms.
  maxBatchSpans: 8_192,
  // 2 transactions at once: one streams rows while Postgres works on the other (2 cores here).
  writerConcurrency: 2,
  // 100,000 queued spans: ~2-4 s of peak ingest; beyond that, clients should back off (503).
  maxQueueSpans: 100_000,
  // 2 s: long enough for a burst to drain, short enough that retrying exporters recover quickly.
  retryAfterSeconds: 2,
  // 200 requests/s per key: a batch exporter sends ~1/s; an OTel Collector gateway at 100k spans/s sends ~200.
  rateLimitPerSecond: 200,
  // 400 requests back to back: absorbs reconnect storms after an outage without tripping the limit.
  rateLimitBurst: 400,
  // 30 s: revocation takes effect within half a minute while ingest rarely touches api_keys.
  keyCacheTtlMs: 30_000,
  // 30 s for a whole body: OTel SDK exporters give up on a request after 10 s and the OTel Collector after 30 s, so
  // nobody waits for the answer to a body still arriving later (16 MiB in 30 s is a mere ~0.56 MB/s); 0 turns it off.
  bodyTimeoutMs: 30_000,
  // 64 MiB of a refused body read and dropped before the answer (so the client, still writing, reads it rather than a
  // reset): four times the body limit covers any exporter's oversized batch; a bigger body is answered and cut off.
  maxDiscardBytes: 64 * 1024 * 1024,
  // 5 s: the longest a request or /readyz waits on Postgres (a key lookup, a check, its commit) before 503 + Retry-After;
  // a commit takes ~100 ms and a WAL-flush stall a second or two, so only a database that is not answering hits it.
  dbTimeoutMs: 5_000,
  // 5 min: a session every process would drop is deleted once none of its spans has arrived for this long, so a
  // failure another process reports later (after a tool call of minutes; exporters send every ~1 s) still keeps the
  // whole session; meanwhile it is stored at weight 0 (charts count it as nothing). 0 turns the sweep off.
  samplingDecisionWaitMs: 300_000,
};
