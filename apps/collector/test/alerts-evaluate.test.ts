/**
 * Alerts evaluated on the per-minute rollup the collector keeps per batch: sessions sent over
 * real HTTP at fixed times, each rule kind measured, and the rollup following what later batches
 * learn. A rule firing into a real receiver (signed) and resolving, new failure classes and tools,
 * and one evaluator at a time: alerts-firing.test.ts. The sessions a firing's explorer link lists:
 * alerts-links.test.ts. The evaluation's "now" is passed in: nothing here depends on the day the
 * test runs.
 */

import { measure, type RuleRow } from '@guardtrace/db/alerts';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAlertTick } from '../src/alerts/evaluate.ts';
import { at, createRule, failingSession, type Receiver, T0, useAlertFixture, WEB } from './alerts-support.ts';
import { type Env, hex, jsonSpan } from './helpers.ts';

const SECRET = 'whsec_test_secret';
const fixture = useAlertFixture(SECRET);
const { send, newProjectKey, rule, measured } = fixture;
let env: Env;
let receiver: Receiver;
beforeAll(() => {
  env = fixture.env;
  receiver = fixture.receiver;
});


describe('each rule kind measures the rollup', () => {
  let projectId: string;
  let worst: string;
  let s2: ReturnType<typeof failingSession>;
  beforeAll(async () => {
    const p = await newProjectKey();
    projectId = p.projectId;
    // search: transient fails, its correction fails too (a rejection not fixed next), then transient
    // again, fixed; a repair turn of 1,000 + 100 tokens answers the first.
    const s1 = failingSession({
      startMs: T0,
      tool: 'search',
      failures: [{ cls: 'transient', repair: { model: 'gpt-4.1-mini', input: 1000, output: 100 } }, { cls: 'transient' }],
    });
    worst = s1.sessionId;
    // pay: one failure, escalated to a human with its budget exhausted; the call ends failed.
    s2 = failingSession({
      startMs: T0 + 5_000,
      tool: 'pay',
      failures: [{ cls: 'uncertain_side_effect', decision: 'escalate_human', exhausted: 'attempts' }],
      endsFailed: true,
    });
    // A clean search session kept by sampling at 25%: its one attempt stands for 4.
    const clean = failingSession({ startMs: T0 + 8_000, tool: 'search', failures: [] });
    const cleanTrace = (clean.spans[0] as { traceId: string }).traceId;
    clean.spans.push(
      jsonSpan({ traceId: cleanTrace, name: 'guardtrace.sampling', startMs: T0 + 8_000, attrs: { 'gen_ai.conversation.id': clean.sessionId, 'guardtrace.sampling.weight': 4 } }),
    );
    // Outside every window below: an hour earlier.
    const old = failingSession({ startMs: T0 - 3_600_000, tool: 'search', failures: [{ cls: 'transient' }, { cls: 'transient' }] });
    // Sent in two requests, and the first once more (a client's retry): nothing counts twice.
    await send(s1.spans, p.key);
    await send([...s2.spans, ...old.spans, ...clean.spans], p.key);
    await send(s1.spans, p.key);
    // The project's own price: $2 and $10 per million input and output tokens.
    await env.sql.query(
      `INSERT INTO model_prices (project_id, model, input_per_mtok, output_per_mtok, cached_input_per_mtok) VALUES ($1, 'gpt-4.1-mini', 2, 10, 1)`,
      [projectId],
    );
  });

  const value = (kind: string, over: Partial<RuleRow> = {}) => measured(rule(projectId, kind, over), at(2));

  it('counts failed attempts of a class, and of a class of a tool', async () => {
    expect((await value('failure_count')).value).toBe(3);
    expect((await value('failure_count', { failure_class: 'transient' })).value).toBe(2);
    expect((await value('failure_count', { failure_class: 'transient', tool_name: 'pay' })).value).toBe(0);
    // The session with the most failures of the key is the alert's example.
    expect((await value('failure_count', { failure_class: 'transient' })).worst).toBe(worst);
  });

  it("rates a class's failures among the attempts, in percent, counting the attempts sampling dropped", async () => {
    // 2 transient failures among 8 attempts: search 3, pay 1, and the clean session's 1 that stands for 4.
    expect((await value('failure_rate', { failure_class: 'transient' })).value).toBe(25);
    expect((await value('failure_rate', { failure_class: 'transient', tool_name: 'search' })).value).toBeCloseTo(28.571, 2);
  });

  it('counts escalations, exhaustion and rejections not fixed next', async () => {
    expect((await value('escalations')).value).toBe(1);
    // The example is a session that escalated (or ran out of budget), not the one that failed most.
    expect((await value('escalations')).worst).toBe(s2.sessionId);
    expect((await value('exhausted')).worst).toBe(s2.sessionId);
    expect((await value('rejections_unfixed')).worst).toBe(worst);
    expect((await value('escalations', { tool_name: 'search' })).value).toBe(0);
    expect((await value('exhausted', { tool_name: 'pay' })).value).toBe(1);
    // The first transient rejection's correction failed; the second's succeeded.
    expect((await value('rejections_unfixed')).value).toBe(1);
    expect((await value('rejections_unfixed', { failure_class: 'transient', tool_name: 'search' })).value).toBe(1);
  });

  it('sums repair tokens and prices them at the project price', async () => {
    expect((await value('repair_tokens', { failure_class: 'transient' })).value).toBe(1100);
    expect((await value('repair_tokens', { failure_class: 'uncertain_side_effect' })).value).toBe(0);
    // 1,000 × $2/M + 100 × $10/M.
    expect((await value('repair_dollars', { failure_class: 'transient' })).value).toBeCloseTo(0.003, 9);
    // Their example is the session whose repair turns spent the tokens.
    expect((await value('repair_tokens', { failure_class: 'transient' })).worst).toBe(worst);
    expect((await value('repair_dollars', { failure_class: 'transient' })).worst).toBe(worst);
  });

  it('prices repair turns one by one when one reports cached input beside its input', async () => {
    const p = await newProjectKey();
    await env.sql.query(
      `INSERT INTO model_prices (project_id, model, input_per_mtok, output_per_mtok, cached_input_per_mtok) VALUES ($1, 'model-c', 10, 0, 1)`,
      [p.projectId],
    );
    // One turn: 100 input, 1,000 cached beside it (stored as 1,100 input of which 1,000 cached):
    // $0.001 + $0.001. Another: 5,000 input, none cached: $0.05. Summed first, the surplus cached
    // tokens offset the other turn's input ($0.041); before the cache tokens counted in the input, $0.051.
    const s = failingSession({
      startMs: T0 + 40 * 60_000,
      tool: 'search',
      failures: [
        { cls: 'transient', repair: { model: 'model-c', input: 100, output: 0, cached: 1000 } },
        { cls: 'transient', repair: { model: 'model-c', input: 5000, output: 0 } },
      ],
    });
    await send(s.spans, p.key);
    expect((await measured(rule(p.projectId, 'repair_dollars', { threshold: 1 }), at(41))).value).toBeCloseTo(0.052, 9);
  });

  it('fires a repair-cost rule at exactly its threshold, and links to the session that spent the most dollars', async () => {
    const p = await newProjectKey();
    await env.sql.query(
      `INSERT INTO model_prices (project_id, model, input_per_mtok, output_per_mtok, cached_input_per_mtok) VALUES ($1, 'model-a', 7, 7, 7), ($1, 'model-b', 1, 1, 1)`,
      [p.projectId],
    );
    // $0.70 (100,000 tokens of model-a) and $0.10 (100,000 of model-b): $0.80, which sums to 0.7999999999999999 in floating point.
    const a = failingSession({ startMs: T0 + 30 * 60_000, tool: 'search', failures: [{ cls: 'transient', repair: { model: 'model-a', input: 90_000, output: 10_000 } }] });
    const b = failingSession({ startMs: T0 + 30 * 60_000 + 5_000, tool: 'search', failures: [{ cls: 'transient', repair: { model: 'model-b', input: 90_000, output: 10_000 } }] });
    await send([...a.spans, ...b.spans], p.key);
    expect(await measured(rule(p.projectId, 'repair_dollars', { threshold: 0.8 }), at(31))).toEqual({ value: 0.8, worst: a.sessionId });
    // A third spends the most tokens (160,000 of the cheap model: $0.16): the example of a token
    // rule, not of a dollar rule, whose example stays the one that spent the most dollars ($0.70).
    const c = failingSession({ startMs: T0 + 30 * 60_000 + 9_000, tool: 'search', failures: [{ cls: 'transient', repair: { model: 'model-b', input: 150_000, output: 10_000 } }] });
    await send(c.spans, p.key);
    const ruleId = await createRule(env.sql, { projectId: p.projectId, kind: 'repair_dollars', threshold: 0.96, url: receiver.url, secret: SECRET });
    const before = receiver.got.length;
    await runAlertTick(env.sql, { now: at(31), webUrl: WEB });
    const fired = receiver.got.slice(before).find((g) => (g.json.rule as { id: string }).id === ruleId);
    expect(fired?.json).toMatchObject({ type: 'alert.firing', value: 0.96 });
    expect((fired?.json.links as { worstSession: string } | undefined)?.worstSession).toBe(`${WEB}/sessions/${a.sessionId}?project=${p.projectId}`);
    expect((await measured(rule(p.projectId, 'repair_tokens'), at(31))).worst).toBe(c.sessionId);
  });

  it('sees only its window', async () => {
    const rows = async <T>(text: string, values: unknown[]) => (await env.sql.query(text, values)).rows as T[];
    // 7 minutes after the old session's minute, a 5-minute window has nothing of it.
    const m = await measure(rows, rule(projectId, 'failure_count'), at(-53));
    expect(m.get('')?.value).toBe(0);
    const wide = await measure(rows, rule(projectId, 'failure_count', { window_minutes: 120 }), at(2));
    expect(wide.get('')?.value).toBe(5);
  });

  it('keeps the seconds after one evaluation in the next one’s window, however short', async () => {
    const rows = async <T>(text: string, values: unknown[]) => (await env.sql.query(text, values)).rows as T[];
    // The old session failed in its first minute; a 1-minute rule evaluated 1 min 38 s after
    // that minute began (the evaluation before it, a minute earlier, may have run before the
    // failures) still counts them: its window reaches a whole minute back from its time.
    const m = await measure(rows, rule(projectId, 'failure_count', { window_minutes: 1 }), new Date(T0 - 3_600_000 + 98_000));
    expect(m.get('')?.value).toBe(2);
    // Two minutes on, they are out.
    const later = await measure(rows, rule(projectId, 'failure_count', { window_minutes: 1 }), new Date(T0 - 3_600_000 + 218_000));
    expect(later.get('')?.value).toBe(0);
  });
});

describe('the rollup follows what later batches learn', () => {
  const rows = async <T>(text: string, values: unknown[]) => (await env.sql.query(text, values)).rows as T[];
  const attempt = (traceId: string, conv: Record<string, string>, parent: string, startMs: number, attrs: Record<string, string | number>) =>
    jsonSpan({ traceId, parentSpanId: parent, name: 'guardtrace.attempt', startMs, attrs: { ...conv, 'gen_ai.operation.name': 'guardtrace.attempt', ...attrs } });
  const call = (traceId: string, conv: Record<string, string>, spanId: string, parent: string, startMs: number, tool: string, outcome: string) =>
    jsonSpan({ traceId, spanId, parentSpanId: parent, name: `execute_tool ${tool}`, startMs, durMs: 500, attrs: { ...conv, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool, 'guardtrace.outcome': outcome } });

  it('a rejection whose correction a later batch links as fixed is no longer counted unfixed', async () => {
    const p = await newProjectKey();
    const start = T0 + 70 * 60_000;
    const traceId = hex(16);
    const conv = { 'gen_ai.conversation.id': `sess_${hex(6)}` };
    const root = hex(8);
    const first = hex(8);
    const rejection = hex(8);
    // Batch 1: the rejection, the model's repair turn, and a later call whose attempt failed (aborted):
    // the first call after the repair turn so far, so the rejection is linked unfixed.
    await send(
      [
        call(traceId, conv, first, root, start + 100, 'search', 'failed'),
        jsonSpan({
          traceId,
          spanId: rejection,
          parentSpanId: first,
          name: 'guardtrace.attempt',
          startMs: start + 110,
          attrs: { ...conv, 'gen_ai.operation.name': 'guardtrace.attempt', 'guardtrace.attempt': 1, 'guardtrace.outcome': 'failed', 'guardtrace.failure.class': 'invalid_arguments', 'guardtrace.decision': 'reject_with_feedback', 'guardtrace.feedback': 'q is required' },
        }),
        jsonSpan({
          traceId,
          parentSpanId: root,
          name: 'chat gpt-4.1-mini',
          startMs: start + 1_000,
          attrs: { ...conv, 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4.1-mini', 'guardtrace.repair.attempt_span_id': rejection },
        }),
        ...(() => {
          const later = hex(8);
          return [
            call(traceId, conv, later, root, start + 3_000, 'search', 'failed'),
            attempt(traceId, conv, later, start + 3_010, { 'guardtrace.attempt': 1, 'guardtrace.outcome': 'failed', 'guardtrace.failure.class': 'transient', 'guardtrace.decision': 'abort' }),
          ];
        })(),
      ],
      p.key,
    );
    const r = rule(p.projectId, 'rejections_unfixed');
    expect((await measure(rows, r, at(72))).get('')?.value).toBe(1);
    // Batch 2: the call the model made right after its repair turn, which succeeded: the rejection's
    // correction, fixed (the replay and analytics say so too).
    const corrected = hex(8);
    await send(
      [
        call(traceId, conv, corrected, root, start + 2_000, 'search', 'success'),
        attempt(traceId, conv, corrected, start + 2_010, { 'guardtrace.attempt': 1, 'guardtrace.outcome': 'success' }),
      ],
      p.key,
    );
    const { rows: linked } = await env.sql.query('SELECT fixed FROM attempts WHERE project_id = $1 AND span_id = $2', [p.projectId, rejection]);
    expect(linked).toEqual([{ fixed: true }]);
    expect((await measure(rows, r, at(72))).get('')?.value).toBe(0);
  });

  it("a long session's attempts sent before its root count by the sampling weight the root brings", async () => {
    const p = await newProjectKey();
    const start = T0 + 80 * 60_000;
    // A clean session kept at 1 in 4: its three attempts arrive first, its root (with the weight) a batch later.
    const traceId = hex(16);
    const conv = { 'gen_ai.conversation.id': `sess_${hex(6)}` };
    const root = hex(8);
    await send(
      [1, 2, 3].flatMap((n) => {
        const c = hex(8);
        return [
          call(traceId, conv, c, root, start + n * 100, 'search', 'success'),
          attempt(traceId, conv, c, start + n * 100 + 10, { 'guardtrace.attempt': 1, 'guardtrace.outcome': 'success' }),
        ];
      }),
      p.key,
    );
    // The other session: one transient failure, then a success (weight 1, kept whole).
    const failing = failingSession({ startMs: start + 5_000, tool: 'search', failures: [{ cls: 'transient' }], endsFailed: false });
    await send(failing.spans, p.key);
    await send(
      [
        jsonSpan({
          traceId,
          spanId: root,
          name: 'invoke_agent a',
          startMs: start,
          durMs: 30_000,
          attrs: { ...conv, 'gen_ai.operation.name': 'invoke_agent', 'guardtrace.session.outcome': 'success', 'guardtrace.sampling.weight': 4 },
        }),
      ],
      p.key,
    );
    const { rows: weights } = await env.sql.query<{ w: number }>('SELECT sampling_weight AS w FROM sessions WHERE project_id = $1 ORDER BY 1', [p.projectId]);
    expect(weights.map((w) => w.w)).toEqual([1, 4]);
    // 1 transient failure among 2 + 3 × 4 attempts (the clean session's three stand for 12), as analytics counts them.
    const rate = (await measure(rows, rule(p.projectId, 'failure_rate', { failure_class: 'transient' }), at(82))).get('')?.value;
    expect(rate).toBeCloseTo(100 / 14, 6);
    // The rate's attempts, in a tick's webhook body too.
    const ruleId = await createRule(env.sql, { projectId: p.projectId, kind: 'failure_rate', failureClass: 'transient', comparison: 'gte', threshold: 5, url: receiver.url, secret: SECRET });
    const before = receiver.got.length;
    await runAlertTick(env.sql, { now: at(82), webUrl: WEB });
    const fired = receiver.got.slice(before).find((g) => (g.json.rule as { id: string }).id === ruleId);
    expect(fired?.json.value).toBeCloseTo(100 / 14, 6);
    await env.sql.query('DELETE FROM alert_rules WHERE id = $1', [ruleId]);
  });
});
