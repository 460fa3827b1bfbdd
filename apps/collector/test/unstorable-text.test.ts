/**
 * Text Postgres cannot store (NUL, a lone surrogate) that a step after decoding puts back: the
 * redactor's second look decodes `%00`, `\u0000` and `\ud800` (and keeps the decoded text when it
 * held a secret), the conventions parse prompt JSON whose strings may hold `\u0000`, a tool
 * definition's summary is parsed too. Each is stored with U+FFFD; the request is not refused with
 * 500, and its other spans are stored. (Input is cleaned so on decoding: span-rules.ts.)
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, hex, jsonRequest, jsonSpan, protobufRequest, setupDatabase, startCollectorProcess } from './helpers.ts';

let env: Env;
let proc: ChildProcess;
let url: string;

beforeAll(async () => {
  env = await setupDatabase();
  ({ proc, url } = await startCollectorProcess(env.db.url));
});
afterAll(async () => {
  proc?.kill('SIGTERM');
  await env?.close();
});

async function send(body: Record<string, unknown>, opts: { path?: string; protobuf?: boolean } = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(`${url}${opts.path ?? '/v1/traces'}`, {
    method: 'POST',
    headers: { 'content-type': opts.protobuf ? 'application/x-protobuf' : 'application/json', authorization: `Bearer ${env.key}` },
    body: opts.protobuf ? protobufRequest(body) : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

const spansOf = async (traceId: string) =>
  (await env.sql.query<{ name: string; all: string }>('SELECT name, row_to_json(s)::text AS "all" FROM spans s WHERE trace_id = $1 ORDER BY name', [traceId])).rows;

/** A secret that redaction finds only decoded, beside what decodes to NUL (or half a surrogate pair). */
const HIDDEN = ['%00 user%3Ddana%26password%3DHunter2-Zq9x', '\\u0000 password\\u003dHunter2-Zq9x', '\\ud800 password\\u003dHunter2-Zq9x'];

describe('text Postgres cannot store, put back after decoding', () => {
  for (const value of HIDDEN) {
    for (const protobuf of [false, true]) {
      it(`${JSON.stringify(value)} as an attribute, the span name and the status message (${protobuf ? 'protobuf' : 'JSON'}): every span stored, the secret not`, async () => {
        const t = hex(16);
        const bad = { ...jsonSpan({ traceId: t, name: value, attrs: { note: value } }), status: { code: 2, message: value } };
        const res = await send(jsonRequest([jsonSpan({ traceId: t, name: 'a-before' }), bad, jsonSpan({ traceId: t, name: 'z-after' })]), { protobuf });
        expect(res.status, res.text).toBe(200);
        const rows = await spansOf(t);
        expect(rows.map((r) => r.name)).toContain('a-before');
        expect(rows.map((r) => r.name)).toContain('z-after');
        expect(rows).toHaveLength(3);
        for (const r of rows) expect(r.all).not.toContain('Hunter2-Zq9x');
      });
    }
  }

  it('a refusal read from the AI SDK prompt whose error text and tool name hold \\u0000: stored with U+FFFD', async () => {
    const t = hex(16);
    const messages = JSON.stringify([
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'write\u0000file', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'write\u0000file', output: { type: 'error-text', value: 'Invalid input for tool write_file: \u0000 bad' } }] },
    ]);
    const model = jsonSpan({ traceId: t, name: 'ai.generateText.doGenerate', attrs: { 'ai.prompt.messages': messages, 'ai.model.id': 'gpt-x', 'ai.usage.inputTokens': 5 } });
    const res = await send(jsonRequest([jsonSpan({ traceId: t, name: 'neighbour' }), model]));
    expect(res.status, res.text).toBe(200);
    expect(await spansOf(t)).toHaveLength(2);
    const { rows } = await env.sql.query<{ tool_name: string; failure_reason: string }>('SELECT tool_name, failure_reason FROM attempts WHERE trace_id = $1', [t]);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.tool_name).toBe('write\uFFFDfile');
    expect(rows[0]?.failure_reason).toContain('\uFFFD bad');
  });

  it('a refusal read from GenAI input messages holding \\u0000: stored, its neighbour too', async () => {
    const t = hex(16);
    const messages = JSON.stringify([
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'query', arguments: {} }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: "Error invoking tool 'query' with kwargs {} with error: \u0000" }] },
    ]);
    const chat = jsonSpan({ traceId: t, name: 'chat gpt-x', attrs: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-x', 'gen_ai.input.messages': messages } });
    const res = await send(jsonRequest([jsonSpan({ traceId: t, name: 'neighbour' }), chat]));
    expect(res.status, res.text).toBe(200);
    expect(await spansOf(t)).toHaveLength(2);
  });

  it('/v1/logs: a GenAI event whose body decodes to NUL is stored beside its neighbour', async () => {
    const t = hex(16);
    const record = (body: string) => ({ timeUnixNano: '1764500000000000000', eventName: 'gen_ai.user.message', traceId: t, spanId: hex(8), body: { stringValue: body } });
    const res = await send({ resourceLogs: [{ scopeLogs: [{ logRecords: [record('hello'), record(HIDDEN[0] as string)] }] }] }, { path: '/v1/logs' });
    expect(res.status, res.text).toBe(200);
    const { rows } = await env.sql.query<{ body: string }>('SELECT body::text AS body FROM genai_events WHERE trace_id = $1', [t]);
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.body).join('\n')).not.toContain('Hunter2-Zq9x');
  });
});
