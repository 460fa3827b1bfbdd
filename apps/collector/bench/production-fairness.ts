/**
 * Fairness between tenants (issue 26, point 2), against the built collector: project A holds 64
 * raw sockets that sent an export's headers declaring 1 MiB of JSON, and then nothing (within
 * its rate limit), while project B sends 100 real OTLP/protobuf exports, 4 at a time. Before
 * issue 26 every one of B's exports got 503 for as long as A kept its sockets open.
 */
import type pg from 'pg';
import { jsonRequest, protobufRequest, sdkSession } from '../test/helpers.ts';
import { holdOpen } from '../test/raw-client.ts';
import { type BenchKey, count, load, post, type Row } from './production-kit.ts';

const SOCKETS = 64;
const EXPORTS = 100;

export async function tenantFairness(url: string, a: BenchKey, b: BenchKey, sql: pg.Pool): Promise<Row> {
  const port = Number(new URL(url).port);
  const exportOf = (key: string) => post(url, key, protobufRequest(jsonRequest(sdkSession().spans)), 'application/x-protobuf');
  // A's key is known to the collector first (as it would be: A has been exporting).
  await (await exportOf(a.key)).arrayBuffer();
  const sockets = Array.from({ length: SOCKETS }, () => holdOpen(port, a.key, 1024 * 1024));
  // The collector reads their headers within this second (they are on loopback).
  await new Promise((r) => setTimeout(r, 1_000));
  const statuses: string[] = [];
  const ms: number[] = [];
  try {
    for (let i = 0; i < EXPORTS; i += 4) {
      await Promise.all(
        [0, 1, 2, 3].map(async () => {
          const started = performance.now();
          const res = await exportOf(b.key);
          await res.arrayBuffer();
          ms.push(performance.now() - started);
          statuses.push(String(res.status));
        }),
      );
    }
  } finally {
    for (const s of sockets) s.socket.destroy();
  }
  const answeredA = sockets.filter((s) => s.answered).length;
  const accepted = statuses.filter((s) => s === '200').length;
  const { rows } = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM spans WHERE project_id = $1', [b.projectId]);
  ms.sort((x, y) => x - y);
  const p99 = ms[Math.min(ms.length - 1, Math.ceil(ms.length * 0.99) - 1)] ?? 0;
  return {
    benchmark: `tenant fairness: ${SOCKETS} sockets of project A declaring 1 MiB and sending nothing; ${EXPORTS} OTLP exports of project B`,
    metric: "B's answers; B's spans stored; B's p99; A's sockets answered meanwhile",
    value: `${Object.entries(count(statuses)).map(([s, n]) => `${n} × ${s}`).join(', ')}; ${rows[0]?.n ?? 0} spans; ${p99.toFixed(0)} ms; ${answeredA} (load ${load()})`,
    target: `≥ ${Math.ceil(EXPORTS * 0.99)} × 200, 8 spans each`,
    pass: accepted >= Math.ceil(EXPORTS * 0.99) && rows[0]?.n === 8 * accepted,
  };
}
