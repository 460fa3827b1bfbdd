/**
 * A node:http client that writes a big OTLP body with Content-Length in 64 KiB chunks, as fast
 * as the socket takes them, and reports what an exporter would: the status and Retry-After
 * once the response ended and the body was written, or the write error (EPIPE, ECONNRESET).
 * Used by test/refusals.test.ts and bench/production.ts. And `holdOpen`: a socket that sends a
 * request's headers and part of its body, then nothing (test/tenant-fairness.test.ts, the bench).
 */
import http from 'node:http';
import net from 'node:net';

export type Outcome = { status?: number; retryAfter?: string; error?: string };

/** POST `size` bytes with Content-Length, written in 64 KiB chunks as fast as the socket takes them. */
export function sendBig(port: number, key: string, size: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/v1/traces',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': size, authorization: `Bearer ${key}` },
    });
    // Like an exporter: the outcome is known once the response has ended and the body has been
    // written; a write that fails (EPIPE, ECONNRESET) on the way is a broken connection.
    let settled = false;
    let answer: Outcome | undefined;
    let written = false;
    const done = (o: Outcome) => {
      if (settled) return;
      settled = true;
      req.destroy();
      resolve(o);
    };
    const check = () => {
      if (answer && written) done(answer);
    };
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        answer = { status: res.statusCode, retryAfter: res.headers['retry-after'] as string | undefined };
        check();
      });
    });
    req.on('finish', () => {
      written = true;
      check();
    });
    req.on('error', (e) => done({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
    let sent = 0;
    const write = () => {
      while (sent < size && !settled) {
        const n = Math.min(chunk.length, size - sent);
        sent += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          req.once('drain', write);
          return;
        }
      }
      if (sent >= size && !settled) req.end();
    };
    write();
  });
}

/**
 * A raw socket that sends a trace export's headers (declaring `declared` bytes of JSON) and
 * `sent` bytes of its body, then nothing. `answered` is set if the collector ever answers.
 */
export function holdOpen(port: number, key: string, declared: number, sent = 0): { socket: net.Socket; answered: boolean } {
  const socket = net.connect(port, '127.0.0.1');
  const state = { socket, answered: false };
  socket.on('data', () => {
    state.answered = true;
  });
  socket.on('error', () => {});
  socket.write(
    `POST /v1/traces HTTP/1.1\r\nHost: collector\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\nAuthorization: Bearer ${key}\r\n\r\n`,
  );
  if (sent > 0) socket.write(Buffer.alloc(sent, 0x20));
  return state;
}
