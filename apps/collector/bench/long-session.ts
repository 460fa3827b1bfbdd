/**
 * A long session stays cheap (issue 13): one session of 10,000 spans sent in 100 requests of
 * 100 spans, one request at a time, to the real collector process. The cost of a request is
 * its ack latency (committed, with derived rows and session totals); the last 10 requests must
 * cost at most 1.5 times the first 10. A ratio measured within one run, so a slower or busier
 * machine changes both sides alike.
 */
import { randomBytes } from 'node:crypto';
import { longSession, toProtobuf } from './payload.ts';

// 100 requests x 20 turns x 5 spans = 10,000 spans: the long session.
const REQUESTS = 100;
const TURNS_PER_REQUEST = 20;
// The first and last 10 requests are compared (the measure).
const WINDOW = 10;
// Two sessions, one after the other, pooled: the ratio of the summed windows.
const SESSIONS = 2;
// 20 requests of another session first, so the first window does not pay for JIT warm-up.
const WARM_UP = 20;

interface Row {
  benchmark: string;
  metric: string;
  value: string;
  target: string;
  pass: boolean;
}

type Send = (body: Buffer) => Promise<number>;

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function oneSession(send: Send): Promise<{ first: number; last: number; ratio: number }> {
  const bodies = longSession(`long_${randomBytes(6).toString('hex')}`, REQUESTS, TURNS_PER_REQUEST).map(toProtobuf);
  const latencies: number[] = [];
  for (const body of bodies) latencies.push(await send(body));
  const first = mean(latencies.slice(0, WINDOW));
  const last = mean(latencies.slice(-WINDOW));
  return { first, last, ratio: last / first };
}

export async function longSessionBench(send: Send): Promise<{ rows: Row[]; method: string }> {
  for (const body of longSession(`warm_${randomBytes(6).toString('hex')}`, WARM_UP, TURNS_PER_REQUEST).map(toProtobuf)) await send(body);
  const runs: { first: number; last: number; ratio: number }[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const r = await oneSession(send);
    console.log(`long session ${i + 1}: first ${WINDOW} requests ${r.first.toFixed(1)} ms each, last ${WINDOW} ${r.last.toFixed(1)} ms (x${r.ratio.toFixed(2)})`);
    runs.push(r);
  }
  const first = mean(runs.map((r) => r.first));
  const last = mean(runs.map((r) => r.last));
  const pooled = { first, last, ratio: last / first };
  const spans = REQUESTS * TURNS_PER_REQUEST * 5;
  return {
    rows: [
      {
        benchmark: `long session (${spans.toLocaleString('en-US')} spans in ${REQUESTS} requests)`,
        metric: `ack of the last ${WINDOW} / first ${WINDOW} requests`,
        value: `${pooled.last.toFixed(1)} ms / ${pooled.first.toFixed(1)} ms = x${pooled.ratio.toFixed(2)}`,
        target: '<= x1.5',
        pass: pooled.ratio <= 1.5,
      },
    ],
    method:
      `Long session: one session of ${spans} spans (${REQUESTS} protobuf requests of ${TURNS_PER_REQUEST} guard-shaped turns, each its own trace with the same ` +
      `gen_ai.conversation.id) sent one request at a time; mean ack latency of the last ${WINDOW} requests over the first ${WINDOW}, pooled over ${SESSIONS} sessions, after ${WARM_UP} warm-up requests of another session.`,
  };
}
