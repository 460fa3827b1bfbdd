/**
 * The input side of the production benchmark (bench/production.ts): refusals a client reads,
 * one over-long session id, a span re-sent with a shifted start time, a stalled upload, a
 * revoked key, the malformed payload corpus, and the secret corpus with the false-positive
 * rate on ordinary payloads. Each measures the built collector process over real HTTP and
 * returns its figures as rows.
 */
import net from 'node:net';
import { ORDINARY_PAYLOADS, SECRET_SHAPES, asText, fragments } from '@guardtrace/secret-corpus';
import { type PrismaClient, revokeApiKey } from '@guardtrace/db';
import type pg from 'pg';
import { decodeResponseProtobuf, decodeStatusProtobuf } from '../test/otlp-reference.ts';
import { hex, jsonRequest, jsonSpan, protobufRequest, startCollectorProcess } from '../test/helpers.ts';
import { buildCorpus, type Case, CORPUS_BODY_LIMIT, PROTO_T } from '../test/malformed-corpus.ts';
import { type Outcome, sendBig } from '../test/raw-client.ts';
import { b64, everythingStored, secretSession } from '../test/secret-spans.ts';
import { type BenchKey, count, load, post, type Row } from './production-kit.ts';

const MiB = 1024 * 1024;

/** Refusals decided before the body is read, `tries` times each: how many the client read. */
export async function refusals(url: string, key: string, tries: number): Promise<Row[]> {
  const port = Number(new URL(url).port);
  const run = async (k: string, size: number) => {
    const out: Outcome[] = [];
    for (let i = 0; i < tries; i++) out.push(await sendBig(port, k, size));
    return out;
  };
  const rows: Row[] = [];
  for (const [what, k, size, status] of [
    ['413 by Content-Length, 30 MiB body', key, 30 * MiB, 413],
    ['401 unknown key, 4 MiB body', 'gt_unknown_bench_key', 4 * MiB, 401],
  ] as const) {
    const out = await run(k, size);
    const read = out.filter((o) => o.status === status).length;
    const errors = count(out.filter((o) => o.error).map((o) => o.error as string));
    rows.push({
      benchmark: `refusal: ${what}`,
      metric: 'client read the status',
      value: `${read} of ${tries}; broken connections: ${Object.entries(errors).map(([e, n]) => `${n} × ${e}`).join(', ') || 'none'} (load ${load()})`,
      target: `${tries} of ${tries}`,
      pass: read === tries,
    });
  }
  return rows;
}

/** 50 valid spans and one whose session.id is 3,000 characters, sent twice. */
export async function longSessionId(url: string, k: BenchKey, sql: pg.Pool): Promise<Row> {
  const traceId = hex(16);
  const good = Array.from({ length: 50 }, (_, i) => jsonSpan({ traceId, name: `step ${i}`, attrs: { 'gen_ai.conversation.id': `sess_${hex(4)}` } }));
  const bad = jsonSpan({ traceId, name: 'long', attrs: { 'session.id': hex(1_500) } });
  const body = JSON.stringify(jsonRequest([...good.slice(0, 25), bad, ...good.slice(25)]));
  const answers: string[] = [];
  let leak = false;
  for (let i = 0; i < 2; i++) {
    const res = await post(url, k.key, body);
    const text = await res.text();
    leak ||= /index|btree|postgres/i.test(text);
    const rejected = res.status === 200 ? Number(JSON.parse(text).partialSuccess?.rejectedSpans ?? 0) : Number.NaN;
    const n = Number((await sql.query('SELECT count(*)::int AS n FROM spans WHERE project_id = $1 AND trace_id = $2', [k.projectId, traceId])).rows[0].n);
    answers.push(`${res.status}, ${rejected} rejected, ${n} stored`);
  }
  const ok = answers.every((a) => a === '200, 1 rejected, 50 stored') && !leak;
  return {
    benchmark: '51 spans, one with a 3,000-character session.id',
    metric: 'status, rejected, stored (send; retry)',
    value: `${answers.join('; ')}; database text in the answer: ${leak ? 'yes' : 'no'} (load ${load()})`,
    target: '200, 1 rejected, 50 stored; twice',
    pass: ok,
  };
}

/** One span sent, then re-sent 1 ms later and 40 days earlier: rows stored. */
export async function resentSpan(url: string, k: BenchKey, sql: pg.Pool): Promise<Row> {
  const traceId = hex(16);
  const spanId = hex(8);
  const now = Date.now();
  for (const startMs of [now, now + 1, now - 40 * 86_400_000]) {
    const res = await post(url, k.key, JSON.stringify(jsonRequest([jsonSpan({ traceId, spanId, name: 'resent', startMs, attrs: { 'gen_ai.conversation.id': `sess_${hex(4)}` } })])));
    if (res.status !== 200) throw new Error(`re-sent span: collector answered ${res.status}: ${await res.text()}`);
  }
  const n = Number((await sql.query('SELECT count(*)::int AS n FROM spans WHERE project_id = $1 AND span_id = $2', [k.projectId, spanId])).rows[0].n);
  return {
    benchmark: 'span re-sent with a shifted start time (+1 ms, −40 days)',
    metric: 'rows stored after 3 sends',
    value: `${n} (load ${load()})`,
    target: '1',
    pass: n === 1,
  };
}

/**
 * Headers and 64 KiB of a 1 MiB body, then nothing: how long until the collector answers and
 * closes the connection. Resolves with the row; runs while the other figures are measured.
 */
export function stalledUpload(url: string, key: string): Promise<Row> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const started = performance.now();
    let answer = '';
    const socket = net.connect(Number(u.port), u.hostname, () => {
      socket.write(
        `POST /v1/traces HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nAuthorization: Bearer ${key}\r\nContent-Length: ${MiB}\r\n\r\n`,
      );
      socket.write(Buffer.alloc(64 * 1024, 0x20));
    });
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      answer += d;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      const seconds = (performance.now() - started) / 1000;
      const status = /^HTTP\/1\.1 (\d+)/.exec(answer)?.[1] ?? 'none';
      resolve({
        benchmark: 'stalled upload (64 KiB of a 1 MiB body, then nothing)',
        metric: 'answer; time until the connection closed',
        value: `${status}; ${seconds.toFixed(1)} s (load ${load()})`,
        target: '408 within the 30 s body timeout + 2 s',
        pass: status === '408' && seconds <= 32,
      });
    });
  });
}

/**
 * A key writing ~25 times a second is revoked through the web app's path (revokeApiKey):
 * time from the revocation's commit to the first 403, and writes accepted after it.
 */
export async function revokedKey(url: string, prisma: PrismaClient, k: BenchKey): Promise<Row> {
  const body = () => JSON.stringify(jsonRequest([jsonSpan({ traceId: hex(16), name: 'write', attrs: { 'gen_ai.conversation.id': `sess_${hex(4)}` } })]));
  let revokedAt = Number.POSITIVE_INFINITY;
  let firstRefusal = Number.NaN;
  let acceptedAfter = 0;
  let before = 0;
  const end = performance.now() + 5_000;
  const writer = async () => {
    while (performance.now() < end) {
      const sent = performance.now();
      const res = await post(url, k.key, body());
      await res.arrayBuffer();
      if (res.status === 200 && sent >= revokedAt) acceptedAfter++;
      if (res.status === 200 && sent < revokedAt) before++;
      if (res.status === 403 && Number.isNaN(firstRefusal)) firstRefusal = performance.now() - revokedAt;
      await new Promise((r) => setTimeout(r, 80));
    }
  };
  const writers = [writer(), writer()];
  await new Promise((r) => setTimeout(r, 1_500));
  if (!(await revokeApiKey(prisma, k.projectId, k.keyId))) throw new Error('revokeApiKey found no key to revoke');
  revokedAt = performance.now();
  await Promise.all(writers);
  return {
    benchmark: 'revoked key (writing ~25 times a second)',
    metric: 'time to the first 403; writes accepted after revocation',
    value: `${Number.isNaN(firstRefusal) ? 'never refused' : `${firstRefusal.toFixed(0)} ms`}; ${acceptedAfter} (${before} accepted before it) (load ${load()})`,
    target: '≤ 1,000 ms; 0',
    pass: firstRefusal <= 1_000 && acceptedAfter === 0,
  };
}

/** The malformed corpus (test/malformed-corpus.ts) against a collector with the corpus' body limit. */
export async function malformed(databaseUrl: string, k: BenchKey, sql: pg.Pool): Promise<Row[]> {
  const { proc, url } = await startCollectorProcess(databaseUrl, 0, { built: true, env: { COLLECTOR_MAX_BODY_BYTES: String(CORPUS_BODY_LIMIT) } });
  try {
    const corpus = buildCorpus();
    const statuses: number[] = [];
    const wrong: string[] = [];
    const neighbours: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < corpus.length) {
          const c = corpus[next++] as Case;
          const res = await post(url, k.key, c.body, c.type, c.encoding);
          const raw = Buffer.from(await res.arrayBuffer());
          statuses.push(res.status);
          if (!c.status.includes(res.status)) wrong.push(`${c.name}: ${res.status}`);
          else if (res.status === 200) {
            const proto = c.type === PROTO_T;
            const r = (proto ? decodeResponseProtobuf(raw) : JSON.parse(raw.toString())) as { partialSuccess?: { rejectedSpans?: unknown } };
            if (c.rejected !== undefined && Number(r.partialSuccess?.rejectedSpans ?? 0) !== c.rejected) wrong.push(`${c.name}: rejected ${String(r.partialSuccess?.rejectedSpans)}`);
            if (c.neighbour) neighbours.push(c.neighbour);
          } else {
            const s = (c.type === PROTO_T ? decodeStatusProtobuf(raw) : JSON.parse(raw.toString())) as { code?: unknown; message?: unknown };
            if (typeof s.code !== 'number' || !s.message) wrong.push(`${c.name}: no rpc Status body`);
          }
        }
      }),
    );
    const stored = Number(
      (await sql.query('SELECT count(DISTINCT trace_id)::int AS n FROM spans WHERE project_id = $1 AND trace_id = ANY($2)', [k.projectId, neighbours])).rows[0].n,
    );
    const ready = (await fetch(`${url}/readyz`)).status;
    const byStatus = Object.entries(count(statuses.map(String)))
      .map(([s, n]) => `${n} × ${s}`)
      .join(', ');
    if (wrong.length) console.log('malformed corpus, unexpected answers:', wrong.slice(0, 10));
    return [
      {
        benchmark: `malformed payloads (${corpus.length}, test/malformed-corpus.ts)`,
        metric: 'answered as expected; by status',
        value: `${corpus.length - wrong.length} of ${corpus.length}; ${byStatus}; 5xx: ${statuses.filter((s) => s >= 500).length}; /readyz after: ${ready} (load ${load()})`,
        target: 'all; no 5xx; ready after',
        pass: wrong.length === 0 && ready === 200 && statuses.every((s) => s < 500),
      },
      {
        benchmark: 'valid spans sent beside malformed ones',
        metric: 'stored',
        value: `${stored} of ${neighbours.length}`,
        target: 'all',
        pass: stored === neighbours.length && neighbours.length > 0,
      },
    ];
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
  }
}

/** Every secret shape in every value kind, as OTLP/JSON and protobuf; then every stored text is searched. */
export async function secrets(url: string, k: BenchKey, sql: pg.Pool): Promise<Row[]> {
  const json = SECRET_SHAPES.map(secretSession);
  const proto = SECRET_SHAPES.map(secretSession);
  const a = await post(url, k.key, JSON.stringify({ resourceSpans: json.map((x) => x.block) }));
  const b = await post(url, k.key, protobufRequest({ resourceSpans: proto.map((x) => x.block) }), PROTO_T);
  if (a.status !== 200 || b.status !== 200) throw new Error(`secret corpus: collector answered ${a.status} / ${b.status}`);
  const stored = await everythingStored(sql);
  const leaked = SECRET_SHAPES.filter((s) => [...fragments(s), b64(asText(s)), b64(s.secret)].some((f) => stored.includes(f)));
  // Ordinary agent payloads as a plain attribute and as tool arguments: how many come back changed.
  const traceId = hex(16);
  const spans = ORDINARY_PAYLOADS.map((p) =>
    jsonSpan({ traceId, name: `ordinary ${p.id}`, attrs: { 'gen_ai.conversation.id': `sess_ordinary_${traceId}`, 'app.text': p.text, 'gen_ai.tool.call.arguments': JSON.stringify({ text: p.text }) } }),
  );
  const c = await post(url, k.key, JSON.stringify(jsonRequest(spans)));
  if (c.status !== 200) throw new Error(`ordinary payloads: collector answered ${c.status}`);
  const { rows } = await sql.query<{ name: string; text: string; args: string }>(
    `SELECT name, attributes->>'app.text' AS text, attributes->>'gen_ai.tool.call.arguments' AS args FROM spans WHERE project_id = $1 AND trace_id = $2`,
    [k.projectId, traceId],
  );
  const byName = new Map(rows.map((r) => [r.name, r]));
  const changed = ORDINARY_PAYLOADS.filter((p) => {
    const r = byName.get(`ordinary ${p.id}`);
    return !r || r.text !== p.text || r.args !== JSON.stringify({ text: p.text });
  });
  return [
    {
      benchmark: `secret corpus (${SECRET_SHAPES.length} shapes × every value kind × JSON and protobuf)`,
      metric: 'shapes found stored',
      value: `${leaked.length} of ${SECRET_SHAPES.length}${leaked.length ? ` (${leaked.map((s) => s.id).join(', ')})` : ''} (load ${load()})`,
      target: '0',
      pass: leaked.length === 0,
    },
    {
      benchmark: `ordinary agent payloads (${ORDINARY_PAYLOADS.length})`,
      metric: 'changed by redaction (false positives)',
      value: `${changed.length} of ${ORDINARY_PAYLOADS.length} (${((100 * changed.length) / ORDINARY_PAYLOADS.length).toFixed(1)}%)${changed.length ? `: ${changed.map((p) => p.id).join(', ')}` : ''}`,
      target: '≤ 1%',
      pass: changed.length / ORDINARY_PAYLOADS.length <= 0.01,
    },
  ];
}
