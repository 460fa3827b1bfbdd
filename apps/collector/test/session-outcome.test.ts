/**
 * A session's outcome when its spans come from several processes, each ending its own part with a
 * verdict (`guardtrace.session.outcome` on its part's `invoke_agent` root): the agent, and a tool
 * service it calls while its own part is open. Two real SDKs with their OTLP exporters, one real
 * collector over HTTP, a real Postgres. The agent's part wraps the service's (it starts first and
 * ends last): its verdict is the session's, whichever part started later or arrived first.
 */
import { readFile } from 'node:fs/promises';
import { Guardtrace } from '@guardtrace/sdk';
import { setupGuardtrace } from '@guardtrace/sdk/setup';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Env, hex, one, setupApp, setupDatabase } from './helpers.ts';

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

/** One process's SDK: its own exporter and service name, no sampling (every span is sent). */
function processOf(service: string) {
  const otel = setupGuardtrace({ endpoint, apiKey: env.key, serviceName: service, register: false, flushOnExit: false, shutdownTimeoutMillis: 30_000 });
  // autoRepair off: a refused call stays refused, for the model (here: no one) to correct.
  const gt = new Guardtrace({ tracer: otel.tracer, autoRepair: false });
  gt.tool({ name: `${service}_charge`, description: 'charge a card', schema: z.object({ amount: z.number() }), flags: { idempotent: true }, execute: (a) => a.amount });
  gt.tool({ name: `${service}_lookup`, description: 'look a record up', schema: z.object({ id: z.string() }), flags: { readOnly: true }, execute: (a) => a.id });
  return { otel, gt };
}

interface Row {
  outcome: string | null;
  failed_attempt_count: number;
  services: string[];
}

const stored = (id: string) =>
  one<Row>(
    env.sql,
    `SELECT s.outcome, s.failed_attempt_count,
       (SELECT array_agg(DISTINCT sp.service_name ORDER BY sp.service_name) FROM spans sp WHERE sp.project_id = s.project_id AND sp.session_id = s.id) AS services
     FROM sessions s WHERE s.project_id = $1 AND s.id = $2`,
    [env.projectId, id],
  );

const recomputed = async (id: string) => {
  await env.sql.query('SELECT guardtrace_refresh_sessions(ARRAY[$1::uuid], ARRAY[$2::text])', [env.projectId, id]);
  return stored(id);
};

describe('the outcome of a session that spans processes', () => {
  it('is the verdict of the part that ended last (the agent’s, around a clean tool service’s), not of the one that started last', async () => {
    const id = `multi_${hex(6)}`;
    const agent = processOf('agent');
    const service = processOf('tool-service');
    // The agent's part opens first; the tool service serves it a clean lookup and ends its part.
    const a = agent.gt.session({ id, agentName: 'agent' });
    await new Promise((r) => setTimeout(r, 5));
    const b = service.gt.session({ id, agentName: 'tool-service' });
    await b.callTool('tool-service_lookup', { id: 'r1' });
    expect(await b.end()).toBe('success');
    await service.otel.shutdown();
    // Then the agent's own call is refused (no correction follows), and its part ends failed.
    await a.callTool('agent_charge', { amount: 'ten' });
    const verdict = await a.end();
    expect(verdict).toBe('failed');
    await agent.otel.shutdown();

    const row = await stored(id);
    expect(row.services).toEqual(['agent', 'tool-service']);
    expect(row.failed_attempt_count).toBe(1);
    expect(row.outcome).toBe(verdict);
    // The same rule whatever the order the parts came in: a recomputation from every stored row agrees.
    expect((await recomputed(id)).outcome).toBe(verdict);

    // A session stored under the old rule (the part that started last decided: 'success') is
    // put right by the migration that brought this rule.
    await env.sql.query(`UPDATE sessions SET outcome = 'success' WHERE project_id = $1 AND id = $2`, [env.projectId, id]);
    const migration = await readFile(new URL('../../../prisma/migrations/20261207060200_session_outcome_last_ended/migration.sql', import.meta.url), 'utf8');
    await env.sql.query(migration.slice(migration.indexOf('-- Sessions stored before')));
    expect((await stored(id)).outcome).toBe(verdict);
  }, 60_000);
});
