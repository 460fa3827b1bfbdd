/**
 * Hosts that already run OpenTelemetry: Guardtrace is one span processor in their own
 * NodeSDK. A real NodeSDK exports through guardtraceSpanProcessor to an OTLP/HTTP receiver
 * that decodes the protobuf it gets, so the test reads back what a collector would store.
 */
import { once } from 'node:events';
import { type IncomingHttpHeaders, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { context, propagation, trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ATTR_GEN_AI_CONVERSATION_ID, ATTR_GUARDTRACE_FAILURE_CLASS } from '../src/index.ts';
import { Guardtrace } from '../src/index.ts';
import { guardtraceSpanProcessor } from '../src/setup.ts';

const require = createRequire(import.meta.url);
// The 0.210 transformer is the last release whose generated protobufjs code can decode (DESIGN.md).
const root = require('@opentelemetry/otlp-transformer-decode/build/src/generated/root.js');
const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest as {
  decode(b: Uint8Array): unknown;
  toObject(m: unknown, o: object): DecodedRequest;
};

interface KeyValue {
  key: string;
  value: { stringValue?: string; intValue?: string; boolValue?: boolean };
}
interface DecodedSpan {
  name: string;
  spanId: string;
  parentSpanId?: string;
  attributes?: KeyValue[];
}
interface DecodedRequest {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { scope?: { name?: string }; spans?: DecodedSpan[] }[] }[];
}

interface Received {
  path: string | undefined;
  headers: IncomingHttpHeaders;
  request: DecodedRequest;
}

async function otlpReceiver() {
  const received: Received[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const request = Request.toObject(Request.decode(Buffer.concat(chunks)), { longs: String, bytes: String });
    received.push({ path: req.url, headers: req.headers, request });
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { received, endpoint: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

const attr = (kvs: KeyValue[] | undefined, key: string) => {
  const v = kvs?.find((kv) => kv.key === key)?.value;
  return v?.stringValue ?? v?.intValue ?? v?.boolValue;
};

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  trace.disable();
  context.disable();
  propagation.disable();
});

describe('guardtraceSpanProcessor in a NodeSDK', () => {
  it('exports the host spans and the guarded session through the host NodeSDK', async () => {
    const rx = await otlpReceiver();
    closers.push(rx.close);
    const sdk = new NodeSDK({
      serviceName: 'nodesdk-agent',
      spanProcessors: [guardtraceSpanProcessor({ endpoint: rx.endpoint, apiKey: 'gt_nodesdk_key' })],
      instrumentations: [],
    });
    sdk.start();
    // no tracer passed: Guardtrace uses the global provider, which is the NodeSDK's
    const gt = new Guardtrace();
    gt.tool({ name: 'lookup', description: 'look a customer up', schema: z.object({ id: z.string() }), flags: { readOnly: true }, execute: (a) => `customer ${a.id}` });
    const host = trace.getTracer('host-app');
    await host.startActiveSpan('handle request', async (span) => {
      const s = gt.session({ id: 'sess_nodesdk_1', agentName: 'nodesdk-agent' });
      const bad = await s.callTool('lookup', '{"customer":"c1"}', { callId: 'call_1' });
      expect(bad.ok).toBe(false);
      const good = await s.callTool('lookup', '{"id":"c1"}', { callId: 'call_1' });
      expect(good.ok).toBe(true);
      await s.end();
      span.end();
    });
    await sdk.shutdown();

    expect(rx.received.length).toBeGreaterThan(0);
    for (const r of rx.received) {
      expect(r.path).toBe('/v1/traces');
      expect(r.headers.authorization).toBe('Bearer gt_nodesdk_key');
    }
    const resourceSpans = rx.received.flatMap((r) => r.request.resourceSpans ?? []);
    expect(resourceSpans.map((rs) => attr(rs.resource?.attributes, 'service.name'))).toContain('nodesdk-agent');
    const spans = resourceSpans.flatMap((rs) => rs.scopeSpans ?? []).flatMap((ss) => ss.spans ?? []);
    const byName = (n: string) => spans.filter((s) => s.name === n);
    const [hostSpan] = byName('handle request');
    const [root] = byName('invoke_agent nodesdk-agent');
    const [tool] = byName('execute_tool lookup');
    const attempts = byName('guardtrace.attempt');
    expect(hostSpan && root && tool).toBeTruthy();
    // the session nests under the host's active span, the call under the session
    expect(root?.parentSpanId).toBe(hostSpan?.spanId);
    expect(tool?.parentSpanId).toBe(root?.spanId);
    expect(attr(root?.attributes, ATTR_GEN_AI_CONVERSATION_ID)).toBe('sess_nodesdk_1');
    expect(attempts).toHaveLength(2);
    expect(attempts.every((a) => a.parentSpanId === tool?.spanId)).toBe(true);
    expect(attempts.map((a) => attr(a.attributes, ATTR_GUARDTRACE_FAILURE_CLASS))).toContain('invalid_arguments');
  }, 20_000);
});
