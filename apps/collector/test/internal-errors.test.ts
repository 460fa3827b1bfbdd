/**
 * A database error the collector does not expect (here a trigger that fails every derived row
 * with a message naming internals) answers 500 with a generic google.rpc.Status, in the
 * request's encoding, over real HTTP: no database text reaches the client, nothing of the
 * request is stored, and the same request is stored once the database accepts it again.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeStatusProtobuf } from './otlp-reference.ts';
import { type Env, jsonRequest, one, protobufRequest, sdkSession, setupApp, setupDatabase } from './helpers.ts';

const INTERNAL = 'relation tool_calls_internal_detail violates constraint xyz_secret';
let env: Env;
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  env = await setupDatabase();
  app = await setupApp(env, { rateLimitPerSecond: 0 });
  base = await app.listen({ port: 0, host: '127.0.0.1' });
  await env.sql.query(`
    CREATE FUNCTION refuse_tool_calls() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION '${INTERNAL}' USING DETAIL = 'Key (project_id)=(internal) is not present in table "spans".'; END $$`);
  await env.sql.query('CREATE TRIGGER refuse_tool_calls BEFORE INSERT ON tool_calls FOR EACH ROW EXECUTE FUNCTION refuse_tool_calls()');
});
afterAll(async () => {
  await app?.close();
  await env?.close();
});

const stored = async (traceId: string) => (await one<{ n: number }>(env.sql, 'SELECT count(*)::int AS n FROM spans WHERE trace_id = $1', [traceId])).n;

describe('an unexpected database error', () => {
  it('answers 500 with a generic status and no database text, stores nothing, and the retry is stored once the database accepts it', async () => {
    const json = sdkSession();
    const proto = sdkSession();
    const post = (body: string | Buffer, type: string) =>
      fetch(`${base}/v1/traces`, { method: 'POST', headers: { 'content-type': type, authorization: `Bearer ${env.key}` }, body });
    const a = await post(JSON.stringify(jsonRequest(json.spans)), 'application/json');
    const aBody = await a.text();
    expect(a.status).toBe(500);
    expect(JSON.parse(aBody)).toEqual({ code: 13, message: 'internal error: the spans could not be stored', details: [] });
    const b = await post(protobufRequest(jsonRequest(proto.spans)), 'application/x-protobuf');
    expect(b.status).toBe(500);
    const bBody = Buffer.from(await b.arrayBuffer());
    expect(decodeStatusProtobuf(bBody)).toMatchObject({ code: 13, message: 'internal error: the spans could not be stored' });
    for (const text of [aBody, bBody.toString('latin1')]) expect(text).not.toMatch(/tool_calls|internal_detail|xyz_secret|project_id|violates|Key \(/);
    expect(await stored(json.traceId)).toBe(0);

    await env.sql.query('DROP TRIGGER refuse_tool_calls ON tool_calls');
    const retry = await post(JSON.stringify(jsonRequest(json.spans)), 'application/json');
    expect(retry.status).toBe(200);
    expect(await stored(json.traceId)).toBe(json.spans.length);
  });
});
