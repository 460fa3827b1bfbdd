/**
 * An alert's example session (its webhook's `links.worstSession`): the session that holds the most
 * of what the rule counted over its window, counted from the stored attempts and repair turns when
 * an event is sent. Sessions sent over real HTTP at fixed times. That it is always one the explorer
 * link lists, in the edge cases: alerts-links.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runAlertTick } from '../src/alerts/evaluate.ts';
import { at, createRule, failingSession, type Receiver, T0, useAlertFixture, WEB } from './alerts-support.ts';
import type { Env } from './helpers.ts';

const SECRET = 'whsec_test_secret';
const fixture = useAlertFixture(SECRET);
const { send, newProjectKey, rule, measured } = fixture;
let env: Env;
let receiver: Receiver;
beforeAll(() => {
  env = fixture.env;
  receiver = fixture.receiver;
});

describe("an alert's example session: the one with the most of what the rule counts", () => {
  it('adds up failures over minutes and repair tokens over models (one batch)', async () => {
    const p = await newProjectKey();
    // A: 4 failures 20 s apart across a minute's end (2 and 2); B: 3 in another minute.
    const a = failingSession({ startMs: T0 + 30 * 60_000 + 20_000, gapMs: 20_000, tool: 'search', failures: [{}, {}, {}, {}] });
    const b = failingSession({ startMs: T0 + 33 * 60_000 + 1_000, tool: 'search', failures: [{}, {}, {}] });
    // C: repair turns of 60,000 tokens on each of two models; D: 100,000 on one, two minutes later.
    const c = failingSession({
      startMs: T0 + 32 * 60_000,
      tool: 'fetch',
      failures: [{ repair: { model: 'model-a', input: 50_000, output: 10_000 } }, { repair: { model: 'model-b', input: 50_000, output: 10_000 } }],
    });
    const d = failingSession({ startMs: T0 + 34 * 60_000 + 9_000, tool: 'fetch', failures: [{ repair: { model: 'model-a', input: 90_000, output: 10_000 } }] });
    await send([...a.spans, ...b.spans, ...c.spans, ...d.spans], p.key);
    const worst = async (kind: string, tool: string) => (await measured(rule(p.projectId, kind, { tool_name: tool }), at(35))).worst;
    expect(await worst('failure_count', 'search')).toBe(a.sessionId);
    expect(await worst('repair_tokens', 'fetch')).toBe(c.sessionId);
  });

  it("names one for repair turns moved under their attempt's tool: a turn sent before its attempt, an attempt before its tool call", async () => {
    const p = await newProjectKey();
    const isCall = (sp: Record<string, unknown>) => String(sp.name).startsWith('execute_tool');
    const isRepair = (sp: Record<string, unknown>) => String(sp.name).startsWith('chat');
    // The attempt spans name no tool of their own: their tool call, sent in a later batch, does.
    const late = failingSession({ startMs: T0 + 40 * 60_000, tool: 'lookup', failures: [{ repair: { model: 'model-a', input: 5_000, output: 100 } }] });
    await send(late.spans.filter((sp) => !isCall(sp)), p.key);
    await send(late.spans.filter(isCall), p.key);
    // The repair turn first, then its attempt and the rest.
    const early = failingSession({ startMs: T0 + 40 * 60_000 + 5_000, tool: 'geocode', failures: [{ repair: { model: 'model-a', input: 4_000, output: 100 } }] });
    await send(early.spans.filter(isRepair), p.key);
    await send(early.spans.filter((sp) => !isRepair(sp)), p.key);
    const m = (tool: string) => measured(rule(p.projectId, 'repair_tokens', { tool_name: tool }), at(42));
    expect(await m('lookup')).toEqual({ value: 5_100, worst: late.sessionId });
    expect(await m('geocode')).toEqual({ value: 4_100, worst: early.sessionId });
  });

  it('is the session with the most over the window, though second in every minute and batch it shares (not the top of one rollup row)', async () => {
    const p = await newProjectKey();
    // A: 2 failures in minute 50 and 2 in minute 51 (4); B: 3 in minute 50; C: 3 in minute 51.
    // Per minute B and C lead; over the window A does.
    const a1 = failingSession({ startMs: T0 + 50 * 60_000 + 1_000, tool: 'crawl', sessionId: `sess_a_${p.projectId.slice(0, 6)}`, failures: [{}, {}] });
    const a2 = failingSession({ startMs: T0 + 51 * 60_000 + 1_000, tool: 'crawl', sessionId: `sess_a_${p.projectId.slice(0, 6)}`, failures: [{}, {}] });
    const b = failingSession({ startMs: T0 + 50 * 60_000 + 2_000, tool: 'crawl', failures: [{}, {}, {}] });
    const c = failingSession({ startMs: T0 + 51 * 60_000 + 2_000, tool: 'crawl', failures: [{}, {}, {}] });
    await send([...a1.spans, ...b.spans], p.key);
    await send([...a2.spans, ...c.spans], p.key);
    // D: 5 failures in minute 52, each sent in a batch of its own; E: 4 in one batch (its largest
    // count in one batch is 4 against D's 1).
    const d = failingSession({ startMs: T0 + 52 * 60_000 + 1_000, tool: 'index', failures: [{}, {}, {}, {}, {}] });
    const attempts = d.spans.filter((sp) => String(sp.name) === 'guardtrace.attempt');
    await send(d.spans.filter((sp) => String(sp.name) !== 'guardtrace.attempt'), p.key);
    for (const sp of attempts) await send([sp], p.key);
    const e = failingSession({ startMs: T0 + 52 * 60_000 + 2_000, tool: 'index', failures: [{}, {}, {}, {}] });
    await send(e.spans, p.key);
    expect(await measured(rule(p.projectId, 'failure_count', { tool_name: 'crawl' }), at(53))).toEqual({ value: 10, worst: a1.sessionId });
    expect(await measured(rule(p.projectId, 'failure_count', { tool_name: 'index' }), at(53))).toEqual({ value: 9, worst: d.sessionId });
    // A run of the evaluation links the firing to it.
    const ruleId = await createRule(env.sql, { projectId: p.projectId, kind: 'failure_count', threshold: 10, url: receiver.url, secret: SECRET, toolName: 'crawl' });
    const before = receiver.got.length;
    await runAlertTick(env.sql, { now: at(53), webUrl: WEB });
    const fired = receiver.got.slice(before).find((g) => (g.json.rule as { id: string }).id === ruleId);
    expect((fired?.json.links as { worstSession: string } | undefined)?.worstSession).toBe(`${WEB}/sessions/${a1.sessionId}?project=${p.projectId}`);
    await env.sql.query('DELETE FROM alert_rules WHERE project_id = $1', [p.projectId]);
  });
});
