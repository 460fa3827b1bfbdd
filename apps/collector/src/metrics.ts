/** Prometheus metrics of one collector instance (own registry: several apps can share a process in tests). */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'guardtrace_collector_' });
  return {
    registry,
    spansReceived: new Counter({
      name: 'guardtrace_collector_spans_received_total',
      help: 'Spans decoded from accepted requests (valid and invalid)',
      registers: [registry],
    }),
    spansStored: new Counter({
      name: 'guardtrace_collector_spans_stored_total',
      help: 'Spans committed to Postgres and acknowledged (retried duplicates included)',
      registers: [registry],
    }),
    spansRejected: new Counter({
      name: 'guardtrace_collector_spans_rejected_total',
      help: 'Invalid spans reported in partial success responses',
      registers: [registry],
    }),
    logRecordsStored: new Counter({
      name: 'guardtrace_collector_log_records_stored_total',
      help: 'GenAI event log records committed to Postgres and acknowledged (retried duplicates included)',
      registers: [registry],
    }),
    logRecordsRejected: new Counter({
      name: 'guardtrace_collector_log_records_rejected_total',
      help: 'Log records reported in partial success responses (not GenAI events, no span context, malformed)',
      registers: [registry],
    }),
    requests: new Histogram({
      name: 'guardtrace_collector_request_duration_seconds',
      help: 'Request latency from arrival to response, by route and status',
      labelNames: ['route', 'status'],
      // 1 ms to 10 s: ack latency targets sit around 100 ms; outages push requests to the pool timeout.
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: 'guardtrace_collector_queue_spans',
      help: 'Spans waiting for the writer',
      registers: [registry],
    }),
    inFlightBytes: new Gauge({
      name: 'guardtrace_collector_inflight_bytes',
      help: 'Decompressed request bytes being processed',
      registers: [registry],
    }),
    batchSize: new Histogram({
      name: 'guardtrace_collector_batch_spans',
      help: 'Spans written per transaction',
      // Powers of 4 from 1 to 16k: the writer groups up to maxBatchSpans.
      buckets: [1, 4, 16, 64, 256, 1024, 4096, 16384],
      registers: [registry],
    }),
    batchSeconds: new Histogram({
      name: 'guardtrace_collector_batch_duration_seconds',
      help: 'Time of one write transaction',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers: [registry],
    }),
    overloaded: new Counter({
      name: 'guardtrace_collector_overload_responses_total',
      help: 'Requests answered 429 or 503',
      labelNames: ['reason'],
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
