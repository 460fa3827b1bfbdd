/**
 * Tool definition fingerprints, from raw OTLP through the collector over HTTP: a tool call's
 * `guardtrace.tool.definition.hash` is stored on its row; the readable definition it carries
 * (`guardtrace.tool.definition`) is kept once per project and hash, the first seen winning; a
 * summary that is no JSON, that Postgres cannot store as jsonb, or a hash that is no 16 hex
 * characters, loses the definition only (the spans are stored and the request succeeds).
 */
import { ATTR_GUARDTRACE_TOOL_DEFINITION, ATTR_GUARDTRACE_TOOL_DEFINITION_HASH } from '@guardtrace/semconv';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, hex, jsonRequest, jsonSpan, setupApp, setupDatabase } from './helpers.ts';

let env: Env;
let app: FastifyInstance;
let endpoint: string;

beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env);
  endpoint = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

async function send(spans: Record<string, unknown>[], key = env.key): Promise<number> {
  const res = await fetch(`${endpoint}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(jsonRequest(spans)),
  });
  await res.arrayBuffer();
  return res.status;
}

function toolSpan(traceId: string, attrs: Record<string, string>) {
  return jsonSpan({
    traceId,
    name: 'execute_tool read_file',
    attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file', 'gen_ai.conversation.id': `s-${traceId.slice(0, 6)}`, 'guardtrace.outcome': 'success', ...attrs },
  });
}

const summaryV1 = { tool: 'read_file', schema: { type: 'object', properties: { path: { type: 'string' } } }, guards: [{ name: 'insideWorkspace', stage: 'logical', options: { roots: ['src'] } }], flags: { readOnly: true }, policy: {} };

describe('tool definition fingerprints', () => {
  it('stores the hash on the call and the summary once per project and hash', async () => {
    const t1 = hex(16);
    const t2 = hex(16);
    const first = toolSpan(t1, { [ATTR_GUARDTRACE_TOOL_DEFINITION_HASH]: 'aaaaaaaaaaaaaaa1', [ATTR_GUARDTRACE_TOOL_DEFINITION]: JSON.stringify(summaryV1) });
    const second = toolSpan(t1, { [ATTR_GUARDTRACE_TOOL_DEFINITION_HASH]: 'aaaaaaaaaaaaaaa1' });
    // Another session sends the same hash with another summary: the first one seen is kept.
    const again = toolSpan(t2, { [ATTR_GUARDTRACE_TOOL_DEFINITION_HASH]: 'aaaaaaaaaaaaaaa1', [ATTR_GUARDTRACE_TOOL_DEFINITION]: JSON.stringify({ ...summaryV1, flags: {} }) });
    expect(await send([first, second])).toBe(200);
    expect(await send([again])).toBe(200);
    const calls = await env.sql.query('SELECT span_id, definition_hash FROM tool_calls WHERE project_id = $1 AND trace_id = ANY($2) ORDER BY span_id', [env.projectId, [t1, t2]]);
    expect(calls.rows.map((r) => r.definition_hash)).toEqual(['aaaaaaaaaaaaaaa1', 'aaaaaaaaaaaaaaa1', 'aaaaaaaaaaaaaaa1']);
    const defs = await env.sql.query('SELECT hash, tool_name, summary FROM tool_definitions WHERE project_id = $1', [env.projectId]);
    expect(defs.rows).toEqual([{ hash: 'aaaaaaaaaaaaaaa1', tool_name: 'read_file', summary: summaryV1 }]);
  });

  it('keeps the span but skips a summary that is no JSON object and a hash that is no 16 hex characters', async () => {
    const t = hex(16);
    const badJson = toolSpan(t, { [ATTR_GUARDTRACE_TOOL_DEFINITION_HASH]: 'bbbbbbbbbbbbbbb2', [ATTR_GUARDTRACE_TOOL_DEFINITION]: '{"tool":"read_file","sch' });
    const notObject = toolSpan(t, { [ATTR_GUARDTRACE_TOOL_DEFINITION_HASH]: 'ccccccccccccccc3', [ATTR_GUARDTRACE_TOOL_DEFINITION]: '"read_file"' });
    const badHash = toolSpan(t, { [ATTR_GUARDTRACE_TOOL_DEFINITION_HASH]: 'not-a-hash-at-all-but-long', [ATTR_GUARDTRACE_TOOL_DEFINITION]: JSON.stringify(summaryV1) });
    expect(await send([badJson, notObject, badHash])).toBe(200);
    const calls = await env.sql.query('SELECT definition_hash FROM tool_calls WHERE project_id = $1 AND trace_id = $2 ORDER BY definition_hash', [env.projectId, t]);
    expect(calls.rows.map((r) => r.definition_hash)).toEqual(['bbbbbbbbbbbbbbb2', 'ccccccccccccccc3', null]);
    const spans = await env.sql.query('SELECT count(*)::int AS n FROM spans WHERE project_id = $1 AND trace_id = $2', [env.projectId, t]);
    expect(spans.rows[0].n).toBe(3);
    const defs = await env.sql.query('SELECT hash FROM tool_definitions WHERE project_id = $1 AND hash <> $2', [env.projectId, 'aaaaaaaaaaaaaaa1']);
    expect(defs.rows).toEqual([]);
  });

  it('keeps definitions per project', async () => {
    const other = await env.newProject();
    const { key } = await env.newKey(other);
    const t = hex(16);
    expect(await send([toolSpan(t, { [ATTR_GUARDTRACE_TOOL_DEFINITION_HASH]: 'aaaaaaaaaaaaaaa1', [ATTR_GUARDTRACE_TOOL_DEFINITION]: JSON.stringify({ ...summaryV1, tool: 'other' }) })], key)).toBe(200);
    const defs = await env.sql.query('SELECT project_id, tool_name FROM tool_definitions WHERE hash = $1 ORDER BY tool_name', ['aaaaaaaaaaaaaaa1']);
    expect(defs.rows).toEqual([
      { project_id: other, tool_name: 'other' },
      { project_id: env.projectId, tool_name: 'read_file' },
    ]);
  });

  it('stores the spans of a request whose summary escapes a NUL character (no jsonb), and the definitions beside it', async () => {
    const t = hex(16);
    const nul = toolSpan(t, { [ATTR_GUARDTRACE_TOOL_DEFINITION_HASH]: 'ddddddddddddddd4', [ATTR_GUARDTRACE_TOOL_DEFINITION]: '{"tool":"read_file","schema":{"description":"a\\u0000b"}}' });
    const fine = toolSpan(t, { [ATTR_GUARDTRACE_TOOL_DEFINITION_HASH]: 'eeeeeeeeeeeeeee5', [ATTR_GUARDTRACE_TOOL_DEFINITION]: JSON.stringify(summaryV1) });
    expect(await send([nul, fine])).toBe(200);
    const spans = await env.sql.query('SELECT count(*)::int AS n FROM spans WHERE project_id = $1 AND trace_id = $2', [env.projectId, t]);
    expect(spans.rows[0].n).toBe(2);
    const defs = await env.sql.query('SELECT hash FROM tool_definitions WHERE project_id = $1 AND hash = ANY($2) ORDER BY hash', [env.projectId, ['ddddddddddddddd4', 'eeeeeeeeeeeeeee5']]);
    expect(defs.rows).toEqual([{ hash: 'eeeeeeeeeeeeeee5' }]);
  });

  it('stores a definition sent again after a summary of the same hash that could not be stored', async () => {
    const t = hex(16);
    const bad = toolSpan(t, { [ATTR_GUARDTRACE_TOOL_DEFINITION_HASH]: 'fffffffffffffff6', [ATTR_GUARDTRACE_TOOL_DEFINITION]: '{"tool":"read_file","sch' });
    expect(await send([bad])).toBe(200);
    const good = toolSpan(hex(16), { [ATTR_GUARDTRACE_TOOL_DEFINITION_HASH]: 'fffffffffffffff6', [ATTR_GUARDTRACE_TOOL_DEFINITION]: JSON.stringify(summaryV1) });
    expect(await send([good])).toBe(200);
    const defs = await env.sql.query('SELECT summary FROM tool_definitions WHERE project_id = $1 AND hash = $2', [env.projectId, 'fffffffffffffff6']);
    expect(defs.rows).toEqual([{ summary: summaryV1 }]);
  });
});
