/**
 * The explorer link of an alert firing lists the sessions the alert counted: its query, taken
 * from the webhook a real receiver got, run through the explorer's own filter (packages/db
 * session-filter, as the web's list runs it). Sessions sent over real HTTP at fixed times.
 */
import { sql } from '@guardtrace/db';
import { sessionFilter } from '@guardtrace/db/session-filter';
import { parseSessionQuery } from '@guardtrace/db/session-query';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAlertTick } from '../src/alerts/evaluate.ts';
import { at, createRule, failingSession, type Receiver, T0, useAlertFixture, WEB } from './alerts-support.ts';
import { type Env, hex, jsonSpan } from './helpers.ts';

const SECRET = 'whsec_test_secret';
const fixture = useAlertFixture(SECRET);
const { send, newProjectKey } = fixture;
let env: Env;
let receiver: Receiver;
beforeAll(() => {
  env = fixture.env;
  receiver = fixture.receiver;
});

/** Runs the evaluator at `now`; the rule's firing: its value, its link's query and the sessions that query lists. */
async function fire(ruleId: string, projectId: string, now: Date): Promise<{ value: unknown; query: string; sessions: string[]; worst: string | null }> {
  const before = receiver.got.length;
  await runAlertTick(env.sql, { now, webUrl: WEB });
  const fired = receiver.got.slice(before).find((g) => (g.json.rule as { id: string }).id === ruleId);
  expect(fired, 'the rule fired').toBeDefined();
  const json = (fired as (typeof receiver.got)[number]).json;
  expect(json.type).toBe('alert.firing');
  const query = new URL((json.links as { explorer: string }).explorer).searchParams.get('q') ?? '';
  const parsed = parseSessionQuery(query);
  expect(parsed.errors).toEqual([]);
  const where = sessionFilter(sql).whereClause(projectId, parsed.filters, []);
  const listed = sql`SELECT s.id FROM sessions s ${where} ORDER BY s.id`;
  const { rows } = await env.sql.query<{ id: string }>(listed.text, listed.values);
  const worst = (json.links as { worstSession: string | null }).worstSession;
  return { value: json.value, query, sessions: rows.map((r) => r.id), worst: worst === null ? null : decodeURIComponent(new URL(worst).pathname.split('/').pop() as string) };
}

describe('the explorer link of a firing', () => {
  it('lists the sessions the alert counted: those that failed in its window, not every one since midnight', async () => {
    const p = await newProjectKey();
    const ruleId = await createRule(env.sql, { projectId: p.projectId, kind: 'failure_count', failureClass: 'transient', toolName: 'fetch', threshold: 2, url: receiver.url, secret: SECRET });
    // The same failure in the morning, hours before the 5-minute window, and two in the window.
    const morning = failingSession({ startMs: T0 - 3 * 60 * 60_000, tool: 'fetch', failures: [{ cls: 'transient' }] });
    const a = failingSession({ startMs: T0 + 50 * 60_000, tool: 'fetch', failures: [{ cls: 'transient' }] });
    const b = failingSession({ startMs: T0 + 51 * 60_000, tool: 'fetch', failures: [{ cls: 'transient' }] });
    for (const s of [morning, a, b]) await send(s.spans, p.key);
    const link = await fire(ruleId, p.projectId, at(52));
    expect(link.value).toBe(2);
    expect(link.sessions).toEqual([a.sessionId, b.sessionId].sort());
  });

  it("an escalations alert lists every session it counted: escalated to a human, failed to reconcile or aborted, whatever the session's status", async () => {
    const p = await newProjectKey();
    const ruleId = await createRule(env.sql, { projectId: p.projectId, kind: 'escalations', threshold: 1, url: receiver.url, secret: SECRET });
    const human = failingSession({ startMs: T0 + 60 * 60_000, tool: 'pay', failures: [{ cls: 'uncertain_side_effect', decision: 'escalate_human' }], endsFailed: true });
    const reconcile = failingSession({ startMs: T0 + 60 * 60_000 + 5_000, tool: 'pay', failures: [{ cls: 'uncertain_side_effect', decision: 'fail_reconcile' }], endsFailed: true });
    const aborted = failingSession({ startMs: T0 + 61 * 60_000, tool: 'search', failures: [{ cls: 'transient', decision: 'abort' }], endsFailed: true });
    // A failure in the window the policy answered with feedback: not an escalation.
    const rejected = failingSession({ startMs: T0 + 61 * 60_000 + 5_000, tool: 'search', failures: [{ cls: 'transient' }] });
    for (const s of [human, reconcile, aborted, rejected]) await send(s.spans, p.key);
    const link = await fire(ruleId, p.projectId, at(62));
    expect(link.value).toBe(3);
    expect(link.sessions).toEqual([human.sessionId, reconcile.sessionId, aborted.sessionId].sort());
  });
});

describe('budget or retry exhaustion', () => {
  it("links to the sessions whose attempts ran out of a budget, not to every failure of the tool", async () => {
    const p = await newProjectKey();
    const ruleId = await createRule(env.sql, { projectId: p.projectId, kind: 'exhausted', toolName: 'fetch', threshold: 1, url: receiver.url, secret: SECRET });
    // An outage handed back after its attempts ran out, a call ended by the session's retries, and a
    // failure of the same tool that spent no budget.
    const handedBack = failingSession({ startMs: T0 + 60 * 60_000, tool: 'fetch', failures: [{ cls: 'transient', decision: 'replan', exhausted: 'attempts_per_call' }] });
    const ended = failingSession({ startMs: T0 + 60 * 60_000 + 5_000, tool: 'fetch', failures: [{ cls: 'transient', decision: 'escalate_human', exhausted: 'session_retries' }], endsFailed: true });
    const plain = failingSession({ startMs: T0 + 61 * 60_000, tool: 'fetch', failures: [{ cls: 'transient', decision: 'retry_backoff' }] });
    for (const s of [handedBack, ended, plain]) await send(s.spans, p.key);
    const link = await fire(ruleId, p.projectId, at(62));
    expect(link.value).toBe(2);
    expect(link.query).toContain('budget:any');
    expect(link.sessions).toEqual([handedBack.sessionId, ended.sessionId].sort());
  });
});

describe('rejections not fixed next', () => {
  it('links to the sessions whose rejections became unfixed in the window (their correction failed in it), not to the failures of the window', async () => {
    const p = await newProjectKey();
    const ruleId = await createRule(env.sql, { projectId: p.projectId, kind: 'rejections_unfixed', failureClass: 'invalid_arguments', threshold: 1, url: receiver.url, secret: SECRET });
    // Rejected at 12:50, before the window (12:58 to 13:02); its correction, ten minutes later, failed
    // too: counted at 13:00, when it became known as not fixed.
    const lateCorrection = failingSession({
      startMs: T0 + 50 * 60_000,
      gapMs: 10 * 60_000,
      tool: 'search',
      failures: [{ cls: 'invalid_arguments' }, { cls: 'transient', decision: 'abort' }],
      endsFailed: true,
    });
    // Rejected at 13:00 and fixed by the next attempt: not counted.
    const fixed = failingSession({ startMs: T0 + 60 * 60_000, tool: 'search', failures: [{ cls: 'invalid_arguments' }] });
    // Rejected at 12:59, its correction failed at 13:01: counted.
    const inWindow = failingSession({
      startMs: T0 + 59 * 60_000,
      gapMs: 2 * 60_000,
      tool: 'search',
      failures: [{ cls: 'invalid_arguments' }, { cls: 'invalid_arguments', decision: 'abort' }],
      endsFailed: true,
    });
    for (const s of [lateCorrection, fixed, inWindow]) await send(s.spans, p.key);
    const link = await fire(ruleId, p.projectId, at(62));
    expect(link.value).toBe(2);
    expect(link.query).toBe('class:invalid_arguments unfixed:>=2026-11-30T12:57Z unfixed:<=2026-11-30T13:02Z');
    expect(link.sessions).toEqual([lateCorrection.sessionId, inWindow.sessionId].sort());
  });
});

describe('repair tokens and repair cost', () => {
  it("link to the sessions whose model turns repaired a failure of the class in the window, not to every failure of the class", async () => {
    const p = await newProjectKey();
    await env.sql.query(
      `INSERT INTO model_prices (project_id, model, input_per_mtok, output_per_mtok, cached_input_per_mtok) VALUES ($1, 'gpt-4.1-mini', 2, 10, 1)`,
      [p.projectId],
    );
    const model = 'gpt-4.1-mini';
    // Failed at 12:55, before the window (12:58 to 13:02); the model's repair turn came at 12:59: counted.
    const lateRepair = failingSession({
      startMs: T0 + 55 * 60_000,
      gapMs: 5 * 60_000,
      tool: 'search',
      failures: [{ cls: 'transient', repair: { model, input: 1000, output: 100, afterMs: 4 * 60_000 } }],
    });
    // Failed at 13:00 with no repair turn: no repair tokens.
    const unrepaired = failingSession({ startMs: T0 + 60 * 60_000, tool: 'search', failures: [{ cls: 'transient' }] });
    // Failed and repaired at 13:00: counted.
    const repaired = failingSession({ startMs: T0 + 60 * 60_000 + 5_000, tool: 'search', failures: [{ cls: 'transient', repair: { model, input: 500, output: 50 } }] });
    // A repair turn in the window of another class's failure.
    const otherClass = failingSession({ startMs: T0 + 61 * 60_000, tool: 'search', failures: [{ cls: 'invalid_arguments', repair: { model, input: 7000, output: 700 } }] });
    // A turn that names the class it repairs and no attempt (guardtrace.repair.failure_class), in the window: counted.
    const classOnly = failingSession({ startMs: T0 + 61 * 60_000 + 5_000, tool: 'search', failures: [] });
    classOnly.spans.push(
      jsonSpan({
        traceId: (classOnly.spans[0] as { traceId: string }).traceId,
        name: `chat ${model}`,
        startMs: T0 + 61 * 60_000 + 6_000,
        attrs: {
          'gen_ai.conversation.id': classOnly.sessionId,
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': model,
          'gen_ai.usage.input_tokens': 200,
          'gen_ai.usage.output_tokens': 20,
          'guardtrace.repair.failure_class': 'transient',
        },
      }),
    );
    for (const s of [lateRepair, unrepaired, repaired, otherClass, classOnly]) await send(s.spans, p.key);
    const counted = [lateRepair.sessionId, repaired.sessionId, classOnly.sessionId].sort();
    const tokensRule = await createRule(env.sql, { projectId: p.projectId, kind: 'repair_tokens', failureClass: 'transient', threshold: 1, url: receiver.url, secret: SECRET });
    const tokens = await fire(tokensRule, p.projectId, at(62));
    expect(tokens.value).toBe(1100 + 550 + 220);
    expect(tokens.query).toBe('class:transient repaired:>=2026-11-30T12:57Z repaired:<=2026-11-30T13:02Z');
    expect(tokens.sessions).toEqual(counted);
    const dollarsRule = await createRule(env.sql, { projectId: p.projectId, kind: 'repair_dollars', failureClass: 'transient', threshold: 0.001, url: receiver.url, secret: SECRET });
    const dollars = await fire(dollarsRule, p.projectId, at(62));
    // 1,700 × $2/M + 170 × $10/M.
    expect(dollars.value).toBeCloseTo(0.0051, 9);
    expect(dollars.sessions).toEqual(counted);
  });
});

describe('repair tokens of a tool', () => {
  it("count the repair turns of the tool's failures, whose attempt spans name no tool of their own (their tool call does), and link to their sessions", async () => {
    const p = await newProjectKey();
    const model = 'gpt-4.1-mini';
    // failingSession's attempt spans carry no gen_ai.tool.name: the tool is their tool call's, as analytics and the explorer read it.
    const search = failingSession({ startMs: T0 + 60 * 60_000, tool: 'search', failures: [{ cls: 'transient', repair: { model, input: 300, output: 30 } }] });
    const fetchRepair = failingSession({ startMs: T0 + 60 * 60_000 + 5_000, tool: 'fetch', failures: [{ cls: 'transient', repair: { model, input: 9000, output: 900 } }] });
    for (const s of [search, fetchRepair]) await send(s.spans, p.key);
    const ruleId = await createRule(env.sql, { projectId: p.projectId, kind: 'repair_tokens', toolName: 'search', threshold: 1, url: receiver.url, secret: SECRET });
    const link = await fire(ruleId, p.projectId, at(62));
    expect(link.value).toBe(330);
    expect(link.query).toBe('tool:search repaired:>=2026-11-30T12:57Z repaired:<=2026-11-30T13:02Z');
    expect(link.sessions).toEqual([search.sessionId]);
  });
});

describe("the worst session: one the explorer link lists, with the most of what the rule counted", () => {
  it('a repair cost rule: a session whose repairs add up to the same dollars in another order ties, and the latest wins', async () => {
    const p = await newProjectKey();
    await env.sql.query(
      `INSERT INTO model_prices (project_id, model, input_per_mtok, output_per_mtok, cached_input_per_mtok) VALUES ($1, 'model-x', 7, 7, 7), ($1, 'model-y', 1, 1, 1)`,
      [p.projectId],
    );
    // A: $0.70 + $0.10 (0.7999999999999999 in floating point), its last turn at 12:30:05.110; B: $0.80, at 12:30:05.010.
    const a = failingSession({
      startMs: T0 + 30 * 60_000,
      tool: 'search',
      gapMs: 5_000,
      failures: [
        { cls: 'transient', repair: { model: 'model-x', input: 90_000, output: 10_000 } },
        { cls: 'transient', repair: { model: 'model-y', input: 90_000, output: 10_000 } },
      ],
    });
    const b = failingSession({ startMs: T0 + 30 * 60_000, tool: 'search', failures: [{ cls: 'transient', repair: { model: 'model-y', input: 720_000, output: 80_000, afterMs: 5_000 } }] });
    await send([...a.spans, ...b.spans], p.key);
    const ruleId = await createRule(env.sql, { projectId: p.projectId, kind: 'repair_dollars', comparison: 'gt', threshold: 0, url: receiver.url, secret: SECRET });
    const link = await fire(ruleId, p.projectId, at(31));
    expect(link.value).toBe(1.6);
    expect(link.sessions.sort()).toEqual([a.sessionId, b.sessionId].sort());
    expect(link.worst).toBe(a.sessionId);
  });

  it('an exhaustion rule: an attempt that names a spent budget counts and is listed whatever its outcome', async () => {
    const p = await newProjectKey();
    const traceId = hex(16);
    const call = hex(8);
    const c = { 'gen_ai.conversation.id': `sess_${hex(4)}` };
    await send(
      [
        jsonSpan({ traceId, spanId: call, name: 'execute_tool fetch', startMs: T0 + 40 * 60_000, durMs: 1_000, attrs: { ...c, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'fetch', 'guardtrace.outcome': 'success' } }),
        jsonSpan({
          traceId,
          parentSpanId: call,
          name: 'guardtrace.attempt',
          startMs: T0 + 40 * 60_000 + 10,
          attrs: { ...c, 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 1, 'guardtrace.outcome': 'success', 'guardtrace.budget.exhausted': 'session_retries' },
        }),
      ],
      p.key,
    );
    const ruleId = await createRule(env.sql, { projectId: p.projectId, kind: 'exhausted', comparison: 'gt', threshold: 0, url: receiver.url, secret: SECRET });
    const link = await fire(ruleId, p.projectId, at(41));
    expect(link.value).toBe(1);
    expect(link.sessions).toEqual([c['gen_ai.conversation.id']]);
    expect(link.worst).toBe(c['gen_ai.conversation.id']);
  });

  it('a session held at weight 0 (dropped by every process, kept until its decision wait ends) is counted but never the example', async () => {
    const p = await newProjectKey();
    const traceId = hex(16);
    const root = hex(8);
    const held = `sess_${hex(4)}`;
    const c = { 'gen_ai.conversation.id': held };
    await send(
      [
        jsonSpan({ traceId, spanId: root, name: 'invoke_agent a', startMs: T0 + 50 * 60_000, durMs: 5_000, attrs: { ...c, 'gen_ai.operation.name': 'invoke_agent', 'guardtrace.sampling.weight': 0 } }),
        jsonSpan({
          traceId,
          parentSpanId: root,
          name: 'chat gpt-4.1-mini',
          startMs: T0 + 50 * 60_000 + 100,
          attrs: { ...c, 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4.1-mini', 'gen_ai.usage.input_tokens': 500, 'gen_ai.usage.output_tokens': 50, 'guardtrace.repair.failure_class': 'transient' },
        }),
      ],
      p.key,
    );
    expect((await env.sql.query('SELECT sampling_weight FROM sessions WHERE project_id = $1 AND id = $2', [p.projectId, held])).rows).toEqual([{ sampling_weight: 0 }]);
    const ruleId = await createRule(env.sql, { projectId: p.projectId, kind: 'repair_tokens', comparison: 'gt', threshold: 0, url: receiver.url, secret: SECRET });
    const link = await fire(ruleId, p.projectId, at(51));
    expect(link.value).toBe(550);
    expect(link.sessions).toEqual([]);
    expect(link.worst).toBeNull();
  });

  it('a firing held back by muting and sent on unmute carries its own moment: its window, value and worst session', async () => {
    const p = await newProjectKey();
    const a = failingSession({ startMs: T0 + 120 * 60_000, tool: 'search', failures: [{ cls: 'transient' }, { cls: 'transient' }, { cls: 'transient' }] });
    await send(a.spans, p.key);
    const ruleId = await createRule(env.sql, { projectId: p.projectId, kind: 'failure_count', comparison: 'gt', threshold: 0, url: receiver.url, secret: SECRET, muted: true });
    await runAlertTick(env.sql, { now: at(122), webUrl: WEB });
    // Twenty minutes later another session fails (the rule still fires), and the rule is unmuted.
    const b = failingSession({ startMs: T0 + 140 * 60_000, tool: 'search', failures: [{ cls: 'transient' }, { cls: 'transient' }] });
    await send(b.spans, p.key);
    await env.sql.query('UPDATE alert_rules SET muted = false WHERE id = $1', [ruleId]);
    const link = await fire(ruleId, p.projectId, at(141));
    expect(link.query).toMatch(/failed:>=\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z failed:<=\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$/);
    expect(link.sessions).toEqual([a.sessionId]);
    expect(link.value).toBe(3);
    expect(link.worst).toBe(a.sessionId);
  });
  it('a new failing tool whose name is longer than an index holds links to an explorer query that runs and lists its session', async () => {
    const p = await newProjectKey();
    // Stored shortened (key-text.ts): 150 T's and as many euro signs are 600 bytes sent.
    const tool = `${'T'.repeat(150)}${'€'.repeat(150)}`;
    const a = failingSession({ startMs: T0 + 160 * 60_000, tool, failures: [{ cls: 'transient' }] });
    await send(a.spans, p.key);
    const ruleId = await createRule(env.sql, { projectId: p.projectId, kind: 'new_failing_tool', url: receiver.url, secret: SECRET, windowMinutes: 10 });
    const link = await fire(ruleId, p.projectId, at(161));
    expect(link.query).toContain('…[SHORTENED:600 bytes sha256:');
    expect(link.sessions).toEqual([a.sessionId]);
    expect(link.worst).toBe(a.sessionId);
  });
});
