import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ATTR_GUARDTRACE_SAMPLING_WEIGHT } from '@guardtrace/semconv';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { traced } from '../test/helpers.ts';
import { remoteSamplingRate } from './remote-sampling.ts';

/** A stand-in collector: answers GET /v1/sampling with whatever `state` says (404 elsewhere). */
async function samplingServer(state: { status: number; body: unknown; auth?: string }) {
  const server = http.createServer((req, res) => {
    if (req.url !== '/v1/sampling') {
      res.writeHead(404).end();
      return;
    }
    state.auth = req.headers.authorization;
    res.writeHead(state.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(state.body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

describe('remoteSamplingRate', () => {
  it('fetches the project rate with the API key and applies it to clean sessions', async () => {
    const state = { status: 200, body: { cleanSampleRate: 0 } as unknown, auth: undefined as string | undefined };
    const srv = await samplingServer(state);
    closers.push(srv.close);
    const remote = remoteSamplingRate({ endpoint: `${srv.endpoint}/`, apiKey: 'gt_key', refreshMs: 60_000 });
    closers.push(async () => remote.stop());
    expect(await remote.refresh()).toBe(0);
    expect(state.auth).toBe('Bearer gt_key');

    const t = traced({ sampling: { cleanSessionRate: remote.rate } });
    t.gt.tool({ name: 'echo', description: 'echo', schema: z.object({ text: z.string() }), flags: { readOnly: true }, execute: (a) => a.text });
    const s = t.gt.session({ id: 'sess_remote_0', agentName: 'a' });
    expect((await s.callTool('echo', { text: 'hi' })).ok).toBe(true);
    await s.end();
    const root = t.named('invoke_agent')[0];
    expect(root?.attributes[ATTR_GUARDTRACE_SAMPLING_WEIGHT]).toBe(0);

    // The rate is changed in the web app: the next refresh picks it up.
    state.body = { cleanSampleRate: 1 };
    expect(await remote.refresh()).toBe(1);
    const s2 = t.gt.session({ id: 'sess_remote_1', agentName: 'a' });
    await s2.callTool('echo', { text: 'hi' });
    await s2.end();
    expect(t.named('invoke_agent')[1]?.attributes[ATTR_GUARDTRACE_SAMPLING_WEIGHT]).toBe(1);
  });

  it('keeps the last known rate when the collector errs or answers nonsense', async () => {
    const state = { status: 200, body: { cleanSampleRate: 0.25 } as unknown };
    const srv = await samplingServer(state);
    closers.push(srv.close);
    const remote = remoteSamplingRate({ endpoint: srv.endpoint, apiKey: 'k', fallback: 1 });
    closers.push(async () => remote.stop());
    expect(await remote.refresh()).toBe(0.25);
    state.status = 503;
    expect(await remote.refresh()).toBe(0.25);
    state.status = 200;
    state.body = { cleanSampleRate: 7 };
    expect(await remote.refresh()).toBe(0.25);
  });

  it('uses the fallback while the collector is unreachable', async () => {
    // A port nothing listens on: picked free by the OS, then closed again.
    const server = http.createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    await new Promise((r) => server.close(r));
    const remote = remoteSamplingRate({ endpoint: `http://127.0.0.1:${port}`, apiKey: 'k', fallback: 0.5, timeoutMs: 500 });
    closers.push(async () => remote.stop());
    expect(await remote.refresh()).toBe(0.5);
    expect(remote.rate()).toBe(0.5);
  });
});

describe('remoteSamplingRate with a wrong setup', () => {
  const warnings: (Error & { code?: string })[] = [];
  const onWarning = (w: Error) => warnings.push(w);

  it('a refused API key: a process warning naming the status, once, and the rate it keeps', async () => {
    process.on('warning', onWarning);
    closers.push(async () => {
      process.off('warning', onWarning);
      warnings.length = 0;
    });
    const state = { status: 401, body: { message: 'unknown API key' } as unknown };
    const srv = await samplingServer(state);
    closers.push(srv.close);
    const remote = remoteSamplingRate({ endpoint: srv.endpoint, apiKey: 'gt_revoked', fallback: 1 });
    closers.push(async () => remote.stop());
    expect(await remote.refresh()).toBe(1);
    expect(await remote.refresh()).toBe(1);
    await new Promise((r) => setImmediate(r));
    const mine = warnings.filter((w) => w.code === 'GUARDTRACE_SAMPLING_RATE' && w.message.includes(srv.endpoint)).map((w) => w.message);
    expect(mine).toEqual([
      `guardtrace: could not read the project's sampling rate from ${srv.endpoint}/v1/sampling: HTTP 401: the collector did not accept the API key (missing, mistyped or revoked); clean sessions are kept at 1 until it can`,
    ]);
  });

  it('an endpoint given as the OTLP traces URL reads the rate from the same collector', async () => {
    const state = { status: 200, body: { cleanSampleRate: 0.25 } as unknown };
    const srv = await samplingServer(state);
    closers.push(srv.close);
    const remote = remoteSamplingRate({ endpoint: `${srv.endpoint}/v1/traces`, apiKey: 'k' });
    closers.push(async () => remote.stop());
    expect(await remote.refresh()).toBe(0.25);
  });
});
