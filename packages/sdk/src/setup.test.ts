import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { context, type DiagLogger, DiagLogLevel, diag, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Guardtrace } from './guardtrace.ts';
import { CONFIG_WARNING_CODE, EXPORT_FAILED_WARNING_CODE, setupGuardtrace, UNSENT_WARNING_CODE } from './setup.ts';

interface Received {
  path: string | undefined;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

async function collector(status = 200) {
  const received: Received[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    received.push({ path: req.url, headers: req.headers, body: Buffer.concat(chunks) });
    res.writeHead(status, { 'content-type': 'application/x-protobuf' }).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { received, endpoint: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

/** A port nothing listens on: picked free by the OS, then closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** Captures what reaches the OTel diagnostic logger at warn level. */
function captureDiagWarnings(): string[] {
  const warnings: string[] = [];
  const noop = (): void => {};
  const logger: DiagLogger = { error: noop, info: noop, debug: noop, verbose: noop, warn: (m: string) => warnings.push(m) };
  diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  return warnings;
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  trace.disable();
  context.disable();
  diag.disable();
});

async function runSession(gt: Guardtrace, id: string, fail = false) {
  const s = gt.session({ id, agentName: 'setup-agent' });
  await s.callTool('echo', fail ? { wrong: 1 } : { text: 'hi' });
  await s.end();
}

describe('setupGuardtrace', () => {
  it('exports the session as OTLP protobuf to /v1/traces with the bearer key', async () => {
    const c = await collector();
    closers.push(c.close);
    const otel = setupGuardtrace({ endpoint: `${c.endpoint}/`, apiKey: 'gt_test_key', serviceName: 'setup-test', flushOnExit: false });
    expect(trace.getTracerProvider()).toBeDefined();
    const gt = new Guardtrace({ tracer: otel.tracer });
    gt.tool({ name: 'echo', description: 'echo', schema: z.object({ text: z.string() }), flags: { readOnly: true }, execute: (a) => a.text });
    await runSession(gt, 'sess_setup_1');
    await otel.shutdown();
    await otel.shutdown();
    expect(c.received).toHaveLength(1);
    const [req] = c.received;
    expect(req?.path).toBe('/v1/traces');
    expect(req?.headers.authorization).toBe('Bearer gt_test_key');
    expect(req?.headers['content-type']).toBe('application/x-protobuf');
    const body = req!.body.toString('latin1');
    for (const text of ['setup-test', 'invoke_agent setup-agent', 'execute_tool echo', 'guardtrace.attempt', 'apply_guardrail schema', 'sess_setup_1']) {
      expect(body).toContain(text);
    }
  });

  it('nests the spans a tool makes itself under the attempt that ran it', async () => {
    const c = await collector();
    closers.push(c.close);
    const otel = setupGuardtrace({ endpoint: c.endpoint, apiKey: 'k', serviceName: 'nesting', flushOnExit: false });
    const gt = new Guardtrace({ tracer: otel.tracer });
    let parentOfInner: string | undefined;
    let attemptId: string | undefined;
    gt.tool({
      name: 'http_get',
      description: 'a tool with its own instrumentation',
      schema: z.object({ url: z.string() }),
      flags: { readOnly: true },
      execute: async () => {
        await new Promise((r) => setTimeout(r, 1));
        attemptId = trace.getActiveSpan()?.spanContext().spanId;
        const inner = trace.getTracer('http').startSpan('GET /x');
        parentOfInner = (inner as unknown as { parentSpanContext?: { spanId: string } }).parentSpanContext?.spanId;
        inner.end();
        return 'ok';
      },
    });
    const s = gt.session({ agentName: 'nest' });
    const r = await s.callTool('http_get', { url: 'https://example.com/x' });
    await s.end();
    await otel.shutdown();
    expect(r.ok).toBe(true);
    expect(attemptId).toBe(r.attempts[0]?.spanId);
    expect(parentOfInner).toBe(r.attempts[0]?.spanId);
  });

  it('flushes on process exit when the host never calls shutdown', async () => {
    const c = await collector();
    closers.push(c.close);
    const fixture = fileURLToPath(new URL('../test/exit-flush.fixture.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, c.endpoint], { cwd: path.dirname(path.dirname(fixture)), stdio: 'inherit' });
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
    const body = Buffer.concat(c.received.map((r) => r.body)).toString('latin1');
    expect(body).toContain('sess_exit_flush');
    expect(body).toContain('invoke_agent exit-agent');
  }, 20_000);

  it('never throws into the agent when the collector is down', async () => {
    const otel = setupGuardtrace({ endpoint: `http://127.0.0.1:${await closedPort()}`, apiKey: 'k', serviceName: 's', register: false, flushOnExit: false, batch: { exportTimeoutMillis: 300 } });
    const gt = new Guardtrace({ tracer: otel.tracer });
    gt.tool({ name: 'echo', description: 'echo', schema: z.object({ text: z.string() }), flags: { readOnly: true }, execute: (a) => a.text });
    await runSession(gt, 'sess_down');
    await expect(otel.shutdown()).resolves.toBeUndefined();
  }, 15_000);

  it('bounds shutdown when the collector is down and reports the spans it could not send, once', async () => {
    const warnings = captureDiagWarnings();
    const processWarnings: Error[] = [];
    const onWarning = (w: Error) => processWarnings.push(w);
    process.on('warning', onWarning);
    closers.push(async () => process.off('warning', onWarning));
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const otel = setupGuardtrace({ endpoint, apiKey: 'k', serviceName: 's', register: false, flushOnExit: false, shutdownTimeoutMillis: 1000 });
    const gt = new Guardtrace({ tracer: otel.tracer });
    gt.tool({ name: 'echo', description: 'echo', schema: z.object({ text: z.string() }), flags: { readOnly: true }, execute: (a) => a.text });
    await runSession(gt, 'sess_down_bounded');
    const t0 = performance.now();
    await otel.shutdown();
    // a hang check, not a benchmark: without a bound the exporter retries for ~8 s
    expect(performance.now() - t0).toBeLessThan(3000);
    await otel.shutdown();
    const reports = warnings.filter((w) => w.includes('could not be sent'));
    // invoke_agent, execute_tool, guardtrace.attempt, apply_guardrail schema
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain('4 spans');
    // the same report as a process warning, seen without a diag logger
    await new Promise((r) => setImmediate(r));
    // (filtered by endpoint: the previous test's agent reports its own lost spans too)
    const unsent = processWarnings.filter((w) => (w as Error & { code?: string }).code === UNSENT_WARNING_CODE && w.message.includes(endpoint));
    expect(unsent.map((w) => w.message)).toEqual([expect.stringContaining(`4 spans could not be sent to ${endpoint}`)]);
  }, 20_000);

  it('exits within the shutdown bound when the collector is down and the host never calls shutdown', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const fixture = fileURLToPath(new URL('../test/exit-flush.fixture.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, endpoint, '--report-end'], {
      cwd: path.dirname(path.dirname(fixture)),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let endedAt: number | undefined;
    child.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('session-ended')) endedAt ??= performance.now();
    });
    const [code] = (await once(child, 'exit')) as [number];
    const exitedAt = performance.now();
    expect(code).toBe(0);
    expect(endedAt).toBeDefined();
    // default bound 1 s; generous for a loaded machine, far below the exporter's ~8 s of retries
    expect(exitedAt - (endedAt ?? 0)).toBeLessThan(3000);
  }, 30_000);

  it('tail-samples clean sessions by id but always keeps failed ones', async () => {
    const c = await collector();
    closers.push(c.close);
    const otel = setupGuardtrace({ endpoint: c.endpoint, apiKey: 'k', serviceName: 'sampled', register: false, flushOnExit: false, sampling: {} });
    const gt = new Guardtrace({ tracer: otel.tracer, sampling: { cleanSessionRate: 0 } });
    gt.tool({ name: 'echo', description: 'echo', schema: z.object({ text: z.string() }), flags: { readOnly: true }, execute: (a) => a.text });
    await runSession(gt, 'sess_clean');
    await runSession(gt, 'sess_failed', true);
    await otel.shutdown();
    const body = Buffer.concat(c.received.map((r) => r.body)).toString('latin1');
    expect(body).toContain('sess_failed');
    expect(body).not.toContain('sess_clean');
  });

  it('forwards the sessions it would drop when they span processes (crossProcess): the collector decides', async () => {
    const c = await collector();
    closers.push(c.close);
    const otel = setupGuardtrace({ endpoint: c.endpoint, apiKey: 'k', serviceName: 'sampled', register: false, flushOnExit: false, sampling: { crossProcess: true } });
    const gt = new Guardtrace({ tracer: otel.tracer, sampling: { cleanSessionRate: 0 } });
    gt.tool({ name: 'echo', description: 'echo', schema: z.object({ text: z.string() }), flags: { readOnly: true }, execute: (a) => a.text });
    await runSession(gt, 'sess_clean_shared');
    await otel.shutdown();
    const body = Buffer.concat(c.received.map((r) => r.body)).toString('latin1');
    expect(body).toContain('sess_clean_shared');
    expect(body).toContain('guardtrace.sampling.weight');
  });
});

describe('a wrong setup says what is wrong, while the agent runs', () => {
  const processWarnings: (Error & { code?: string })[] = [];
  const onWarning = (w: Error) => processWarnings.push(w);
  const failures = (endpoint: string) => processWarnings.filter((w) => w.code === EXPORT_FAILED_WARNING_CODE && w.message.includes(endpoint)).map((w) => w.message);
  const agent = async (opts: { endpoint: string; apiKey: string; timeoutMillis?: number }) => {
    process.on('warning', onWarning);
    closers.push(async () => {
      process.off('warning', onWarning);
      processWarnings.length = 0;
    });
    const otel = setupGuardtrace({ ...opts, serviceName: 's', register: false, flushOnExit: false, shutdownTimeoutMillis: 500 });
    const gt = new Guardtrace({ tracer: otel.tracer });
    gt.tool({ name: 'echo', description: 'echo', schema: z.object({ text: z.string() }), flags: { readOnly: true }, execute: (a) => a.text });
    await runSession(gt, `sess_wrong_${Math.random().toString(36).slice(2)}`);
    return otel;
  };

  it('a refused API key: reported at the first failed export, not only at exit, with the status and what to check', async () => {
    const c = await collector(401);
    closers.push(c.close);
    const otel = await agent({ endpoint: c.endpoint, apiKey: 'gt_revoked' });
    await otel.forceFlush();
    await new Promise((r) => setImmediate(r));
    expect(failures(c.endpoint)).toEqual([expect.stringMatching(/^guardtrace: an export of 4 spans to http:\/\/127\.0\.0\.1:\d+\/v1\/traces failed: HTTP 401 .*API key/)]);
    // the same cause again is not repeated; the report at shutdown names it
    await runSession(new Guardtrace({ tracer: otel.tracer }), 'sess_wrong_again');
    await otel.shutdown();
    await new Promise((r) => setImmediate(r));
    expect(failures(c.endpoint)).toHaveLength(1);
    const unsent = processWarnings.filter((w) => w.code === UNSENT_WARNING_CODE && w.message.includes(c.endpoint)).map((w) => w.message);
    expect(unsent).toEqual([expect.stringContaining('failed to export (HTTP 401')]);
  }, 15_000);

  it('a collector that is not there: the connection error and the address', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    // the exporter retries a refused connection within its timeout: 1 s here
    const otel = await agent({ endpoint, apiKey: 'k', timeoutMillis: 1000 });
    await otel.forceFlush();
    await new Promise((r) => setImmediate(r));
    expect(failures(endpoint)).toEqual([expect.stringMatching(/could not connect .*ECONNREFUSED.*is the collector running/)]);
    await otel.shutdown();
  }, 15_000);

  it('a wrong path: the 404 says what the endpoint should be', async () => {
    const c = await collector(404);
    closers.push(c.close);
    const otel = await agent({ endpoint: `${c.endpoint}/otlp`, apiKey: 'k' });
    await otel.forceFlush();
    await new Promise((r) => setImmediate(r));
    expect(failures(c.endpoint)).toEqual([expect.stringMatching(/HTTP 404.*endpoint is the collector's base URL/)]);
    await otel.shutdown();
  }, 15_000);

  it('an endpoint given with /v1/traces already (the OTLP traces URL) is used as it is', async () => {
    const c = await collector();
    closers.push(c.close);
    const otel = await agent({ endpoint: `${c.endpoint}/v1/traces`, apiKey: 'k' });
    await otel.shutdown();
    expect(c.received.map((r) => r.path)).toEqual(['/v1/traces']);
    expect(otel.stats()).toMatchObject({ exported: 4, failed: 0 });
  }, 15_000);

  it('no API key (an unset environment variable): said at setup', async () => {
    const c = await collector();
    closers.push(c.close);
    const otel = await agent({ endpoint: c.endpoint, apiKey: process.env.GUARDTRACE_TEST_UNSET_KEY as string });
    await new Promise((r) => setImmediate(r));
    expect(processWarnings.filter((w) => w.code === CONFIG_WARNING_CODE).map((w) => w.message)).toEqual([
      expect.stringContaining('guardtrace: no apiKey given (undefined)'),
    ]);
    await otel.shutdown();
  }, 15_000);
});

describe('setupGuardtrace beside an OpenTelemetry setup of the host', () => {
  it('says so when a global tracer provider is registered already (the host’s, or a second setupGuardtrace), and what to do', async () => {
    const processWarnings: (Error & { code?: string })[] = [];
    const onWarning = (w: Error) => processWarnings.push(w);
    process.on('warning', onWarning);
    closers.push(async () => process.off('warning', onWarning));
    const c = await collector();
    closers.push(c.close);
    const first = setupGuardtrace({ endpoint: c.endpoint, apiKey: 'k', serviceName: 'first', flushOnExit: false });
    const second = setupGuardtrace({ endpoint: c.endpoint, apiKey: 'k', serviceName: 'second', flushOnExit: false });
    await new Promise((r) => setImmediate(r));
    const config = processWarnings.filter((w) => w.code === CONFIG_WARNING_CODE).map((w) => w.message);
    expect(config).toEqual([expect.stringMatching(/^guardtrace: a global tracer provider is registered already .*guardtraceSpanProcessor/)]);
    await first.shutdown();
    await second.shutdown();
  });
});

describe('a span that ends after shutdown began', () => {
  it('is reported as such, not as a collector that accepted nothing for the shutdown bound', async () => {
    const processWarnings: (Error & { code?: string })[] = [];
    const onWarning = (w: Error) => processWarnings.push(w);
    process.on('warning', onWarning);
    closers.push(async () => process.off('warning', onWarning));
    const c = await collector();
    closers.push(c.close);
    const otel = setupGuardtrace({ endpoint: c.endpoint, apiKey: 'k', serviceName: 's', register: false, flushOnExit: false });
    // a framework's outer span that ends a tick after the result the agent awaited (streamText's)
    const late = otel.tracer.startSpan('ai.streamText');
    otel.tracer.startSpan('ai.streamText.doStream').end();
    const stopping = otel.shutdown();
    late.end();
    await stopping;
    await new Promise((r) => setImmediate(r));
    expect(otel.stats()).toMatchObject({ produced: 2, exported: 1, unsentAtShutdown: 1 });
    const unsent = processWarnings.filter((w) => w.code === UNSENT_WARNING_CODE && w.message.includes(c.endpoint)).map((w) => w.message);
    expect(unsent).toEqual([`guardtrace: 1 of 2 spans could not be sent to ${c.endpoint}: 1 ended after shutdown began (end the session and await the framework's calls before shutdown())`]);
  });
});
