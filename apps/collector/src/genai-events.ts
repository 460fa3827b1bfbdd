/**
 * Stores the GenAI events of a /v1/logs request (genai_events): one INSERT of the request's rows,
 * a retried export's rows ignored by their key. Not through the spans' writer: a log record
 * derives nothing, so it never joins (or slows) a span transaction; the replay reads it beside its
 * span, whichever came first. One request's insert runs at a time per collector (each is one
 * short statement), so log exports never take the pool connections the span writer's lanes use;
 * a long queue of them is answered 503 with Retry-After, as the span writer's is.
 */
import type pg from 'pg';
import { storableJson, storableText } from './copy.ts';
import { CollectorError } from './errors.ts';
import type { GenAiEvent } from './otlp-logs.ts';
import { isUnavailable, timedQuery } from './pg.ts';

const INSERT = `
INSERT INTO genai_events (project_id, trace_id, span_id, record_key, event_name, time_unix_nano, time, body, attributes, scope_name)
SELECT $1::uuid, r.trace_id, r.span_id, r.record_key, r.event_name, r.ns,
  to_timestamp(0) + make_interval(secs => (r.ns / 1000)::float8 / 1e6), r.body::jsonb, r.attributes::jsonb, r.scope_name
FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::text[])
  WITH ORDINALITY AS r(trace_id, span_id, record_key, event_name, ns, body, attributes, scope_name, i)
ORDER BY r.i
ON CONFLICT DO NOTHING`;

export interface GenAiEventStoreOptions {
  /** Requests waiting for their insert beyond which new ones are answered 503. */
  maxWaiting: number;
  retryAfterSeconds: number;
  /** Longest an insert may take (client-side read timeout). */
  queryTimeoutMs: number;
}

export class GenAiEventStore {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly opts: GenAiEventStoreOptions,
  ) {}

  /** Inserts the events; resolves once they are committed (duplicates of stored ones are ignored). */
  async write(projectId: string, events: readonly GenAiEvent[]): Promise<void> {
    if (events.length === 0) return;
    if (this.waiting >= this.opts.maxWaiting) {
      throw CollectorError.unavailable('too many log exports waiting to be stored', this.opts.retryAfterSeconds);
    }
    this.waiting++;
    const turn = this.tail.then(() => this.insert(projectId, events));
    this.tail = turn.catch(() => {});
    try {
      await turn;
    } finally {
      this.waiting--;
    }
  }

  private async insert(projectId: string, events: readonly GenAiEvent[]): Promise<void> {
    const values = [
      projectId,
      events.map((e) => e.traceId),
      events.map((e) => e.spanId),
      events.map((e) => e.recordKey),
      events.map((e) => storableText(e.eventName)),
      events.map((e) => e.timeNs.toString()),
      // What redaction decoded (a `%00`, a `\u0000`) may hold what Postgres cannot: see copy.ts.
      events.map((e) => (e.body === null ? null : storableJson(e.body))),
      events.map((e) => storableJson(e.attributes)),
      events.map((e) => (e.scopeName === null ? null : storableText(e.scopeName))),
    ];
    try {
      await this.pool.query(timedQuery(INSERT, values, this.opts.queryTimeoutMs));
    } catch (err) {
      if (isUnavailable(err) || /timeout/i.test((err as Error).message ?? '')) {
        throw CollectorError.unavailable('database unavailable: log records not stored, retry later', this.opts.retryAfterSeconds, err);
      }
      throw err;
    }
  }
}
