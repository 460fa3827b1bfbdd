/**
 * One tenant cannot take the in-flight memory bound from the others (issue 26, point 2). A body
 * is counted as it arrives, not as its Content-Length declares, so sockets that send headers
 * and then nothing hold nothing; and what a project, and one of its keys, may hold in flight is
 * bounded apart from the collector's whole bound. Real HTTP and raw sockets against the app.
 */
import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, jsonRequest, one, protobufRequest, sdkSession, setupApp, setupDatabase } from './helpers.ts';
import { holdOpen } from './raw-client.ts';

const KiB = 1024;
const MiB = 1024 * KiB;

let env: Env;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  env = await setupDatabase();
});
afterAll(async () => {
  for (const a of apps) await a.close();
  await env?.close();
});

async function start(opts: Parameters<typeof setupApp>[1] = {}): Promise<{ app: FastifyInstance; port: number }> {
  const app = await setupApp(env, opts);
  apps.push(app);
  return { app, port: Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port) };
}

/** A project with a key that has already sent one export (so its key is known to the collector). */
async function tenant(port: number, projectId?: string): Promise<{ projectId: string; key: string }> {
  const pid = projectId ?? (await env.newProject());
  const { key } = await env.newKey(pid);
  expect((await exportOnce(port, key)).status).toBe(200);
  return { projectId: pid, key };
}

/** One real OTLP/protobuf export of an SDK-shaped session (8 spans). */
async function exportOnce(port: number, key: string): Promise<{ status: number; retryAfter: string | null; message: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${key}` },
    body: protobufRequest(jsonRequest(sdkSession().spans)),
  });
  const body = Buffer.from(await res.arrayBuffer());
  // A refusal is a google.rpc.Status { code = 1; message = 2 }: its message follows the 0x12 tag and a length.
  const at = body.indexOf(0x12);
  return { status: res.status, retryAfter: res.headers.get('retry-after'), message: at >= 0 ? body.subarray(at + 2).toString('utf8') : '' };
}

/** Resolves once the server has read the headers of `n` requests with this key, and they have gone through admission. */
function requestsSeen(app: FastifyInstance, key: string, n: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const onRequest = (req: IncomingMessage) => {
      if (req.headers.authorization !== `Bearer ${key}`) return;
      if (++seen < n) return;
      app.server.off('request', onRequest);
      // Admission of a known key takes no I/O: it is over within the turns that follow.
      setTimeout(resolve, 100);
    };
    app.server.on('request', onRequest);
  });
}

async function inFlightGauge(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(/^guardtrace_collector_inflight_bytes (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
}

/** Until the collector holds at least `bytes` in flight (the held-open bodies have arrived). */
async function holding(port: number, bytes: number): Promise<void> {
  for (let tries = 0; (await inFlightGauge(port)) < bytes; tries++) {
    if (tries > 200) throw new Error(`the collector never held ${bytes} bytes in flight`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('fairness of the in-flight bound between tenants', () => {
  it("keeps ≥ 99% of project B's exports accepted while project A holds 64 sockets that declared 1 MiB each and send nothing", async () => {
    // The default bounds (256 MiB in all): each socket's declared 1 MiB of JSON was counted
    // with its decoding (~5 MiB), so 64 of them took the whole bound for 30 s.
    const { app, port } = await start();
    const a = await tenant(port);
    const b = await tenant(port);
    const seen = requestsSeen(app, a.key, 64);
    const sockets = Array.from({ length: 64 }, () => holdOpen(port, a.key, MiB));
    await seen;
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 100; i += 4) {
        const batch = await Promise.all([0, 1, 2, 3].map(() => exportOnce(port, b.key)));
        statuses.push(...batch.map((r) => r.status));
      }
      const accepted = statuses.filter((s) => s === 200).length;
      expect(accepted, `statuses of B's exports: ${[...new Set(statuses)].join(', ')}`).toBeGreaterThanOrEqual(99);
      // Stored: 8 spans per accepted export, plus the first one of tenant().
      const stored = await one<{ n: number }>(env.sql, 'SELECT count(*)::int AS n FROM spans WHERE project_id = $1', [b.projectId]);
      expect(stored.n).toBe(8 * (accepted + 1));
      // A kept it up all along: none of its sockets was answered or closed.
      expect(sockets.filter((s) => s.answered || s.socket.destroyed)).toHaveLength(0);
    } finally {
      for (const s of sockets) s.socket.destroy();
    }
  }, 60_000);

  it('bounds what one API key holds in flight: its next export is refused 503 while another key of its project is served', async () => {
    const { port } = await start({ maxInFlightBytesPerKey: 128 * KiB });
    const a1 = await tenant(port);
    const a2 = await tenant(port, a1.projectId);
    // 200 KiB of a 1 MiB body arrive, then nothing: the key holds 200 KiB (a lone request
    // may hold more than its key's bound: it would never fit otherwise).
    const held = holdOpen(port, a1.key, MiB, 200 * KiB);
    try {
      await holding(port, 200 * KiB);
      const refused = await exportOnce(port, a1.key);
      expect(refused.status).toBe(503);
      expect(refused.retryAfter).toBe('2');
      expect(refused.message).toMatch(/this API key/);
      expect((await exportOnce(port, a2.key)).status).toBe(200);
      expect(held.answered).toBe(false);
    } finally {
      held.socket.destroy();
    }
  });

  it('bounds what one project holds in flight, whatever its keys: another project is served', async () => {
    const { port } = await start({ maxInFlightBytesPerProject: 128 * KiB });
    const a1 = await tenant(port);
    const a2 = await tenant(port, a1.projectId);
    const b = await tenant(port);
    const held = holdOpen(port, a1.key, MiB, 200 * KiB);
    try {
      await holding(port, 200 * KiB);
      const refused = await exportOnce(port, a2.key);
      expect(refused.status).toBe(503);
      expect(refused.retryAfter).toBe('2');
      expect(refused.message).toMatch(/this project/);
      expect((await exportOnce(port, b.key)).status).toBe(200);
    } finally {
      held.socket.destroy();
    }
  });

  it('does not count what is left of a refused body while it is read and dropped', async () => {
    const { port } = await start({ maxInFlightBytesPerKey: 128 * KiB });
    const a = await tenant(port);
    const held = holdOpen(port, a.key, MiB, 200 * KiB);
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => {
      answer += d.toString('latin1');
    });
    try {
      await holding(port, 200 * KiB);
      // Chunked: nothing declared, so admitted; its first 64 KiB would take the key over its
      // bound: refused, and not counted either.
      socket.write(
        `POST /v1/traces HTTP/1.1\r\nHost: collector\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nAuthorization: Bearer ${a.key}\r\n\r\n`,
      );
      const chunk = (n: number) => socket.write(`${n.toString(16)}\r\n${' '.repeat(n)}\r\n`);
      chunk(64 * KiB);
      await new Promise((r) => setTimeout(r, 300));
      expect(await inFlightGauge(port)).toBe(200 * KiB);
      // 4 MiB more, read and dropped: the bound is not charged for them.
      for (let i = 0; i < 64; i++) chunk(64 * KiB);
      await new Promise((r) => setTimeout(r, 500));
      expect(await inFlightGauge(port)).toBe(200 * KiB);
      socket.write('0\r\n\r\n');
      for (let i = 0; !answer.includes('\r\n\r\n'); i++) {
        if (i > 200) throw new Error(`no answer: ${answer}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(answer).toMatch(/^HTTP\/1\.1 503 /);
      expect(answer).toMatch(/retry-after: 2/i);
    } finally {
      socket.destroy();
      held.socket.destroy();
    }
  });

  it('keeps a project within its bound and an eighth while many of its requests are refused and their bodies drain', async () => {
    // 256 KiB per project (288 KiB with its eighth); the collector's whole bound is far above.
    const { port } = await start({ maxInFlightBytesPerProject: 256 * KiB });
    const a = await tenant(port);
    const b = await tenant(port);
    const sockets = Array.from({ length: 8 }, () => {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write(
        `POST /v1/traces HTTP/1.1\r\nHost: collector\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nAuthorization: Bearer ${a.key}\r\n\r\n`,
      );
      return socket;
    });
    const chunk = (s: net.Socket, n: number) => s.write(`${n.toString(16)}\r\n${' '.repeat(n)}\r\n`);
    try {
      for (const s of sockets) chunk(s, 32 * KiB);
      await holding(port, 256 * KiB);
      // 32 KiB more each: the project's eighth takes one; the others are refused, and their
      // answers wait for the rest of their bodies (which never come) with nothing counted.
      for (const s of sockets) chunk(s, 32 * KiB);
      await new Promise((r) => setTimeout(r, 500));
      const held = await inFlightGauge(port);
      expect(held).toBeGreaterThanOrEqual(256 * KiB);
      expect(held).toBeLessThanOrEqual(288 * KiB);
      expect((await exportOnce(port, b.key)).status).toBe(200);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });
});
