/**
 * Alerts evaluated on the per-minute rollup the collector keeps per batch (alerts-evaluate.test.ts
 * measures each rule kind): a rule firing into a real receiver (signed) and resolving, new failure
 * classes and tools, a run whose rule fails, and one evaluator at a time. Sessions sent over real
 * HTTP at fixed times; the evaluation's "now" is passed in: nothing here depends on the day the
 * test runs.
 */
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAlertTick } from '../src/alerts/evaluate.ts';
import { at, createRule, eventsOf, failingSession, type Receiver, T0, useAlertFixture, WEB } from './alerts-support.ts';
import type { Env } from './helpers.ts';

const SECRET = 'whsec_test_secret';
const fixture = useAlertFixture(SECRET);
const { send, newProjectKey } = fixture;
let env: Env;
let receiver: Receiver;
beforeAll(() => {
  env = fixture.env;
  receiver = fixture.receiver;
});

describe('a rule fires into a real receiver and resolves', () => {
  it('sends a signed firing with its links when a failure spike crosses it, and a resolution when it ends', async () => {
    const p = await newProjectKey();
    const ruleId = await createRule(env.sql, {
      projectId: p.projectId,
      kind: 'failure_count',
      failureClass: 'transient',
      toolName: 'search',
      threshold: 3,
      url: receiver.url,
      secret: SECRET,
    });
    const before = receiver.got.length;
    const a = failingSession({ startMs: T0 + 20 * 60_000, tool: 'search', failures: [{ cls: 'transient' }, { cls: 'transient' }] });
    await send(a.spans, p.key);
    // 2 of 3: below the threshold.
    await runAlertTick(env.sql, { now: at(21), webUrl: WEB });
    expect(await eventsOf(env.sql, ruleId)).toEqual([]);
    const b = failingSession({ startMs: T0 + 21 * 60_000, tool: 'search', failures: [{ cls: 'transient' }, { cls: 'transient' }, { cls: 'transient' }] });
    await send(b.spans, p.key);
    await runAlertTick(env.sql, { now: at(22), webUrl: WEB });
    // Still firing a minute later: nothing new.
    await runAlertTick(env.sql, { now: at(23), webUrl: WEB });
    const mine = () => receiver.got.slice(before).filter((g) => (g.json.rule as { id: string }).id === ruleId);
    expect(mine()).toHaveLength(1);
    const fired = mine()[0] as (typeof receiver.got)[number];
    expect(fired.verified).toBe(true);
    expect(fired.headers['x-guardtrace-event']).toBe('firing');
    expect(fired.headers['x-guardtrace-timestamp']).toBe(String(at(22).getTime() / 1000));
    expect(fired.json).toMatchObject({ type: 'alert.firing', value: 5, projectId: p.projectId });
    const links = fired.json.links as { explorer: string; worstSession: string };
    const explorer = new URL(links.explorer);
    expect(`${explorer.origin}${explorer.pathname}`).toBe(`${WEB}/sessions`);
    expect(explorer.searchParams.get('project')).toBe(p.projectId);
    // The explorer's query language (apps/web/src/lib/session-query.ts).
    // Its failures from the window's first minute (12:18) to its last (12:22), as the alert counts them.
    expect(explorer.searchParams.get('q')).toBe('class:transient tool:search failed:>=2026-11-30T12:17Z failed:<=2026-11-30T12:22Z');
    expect(links.worstSession).toBe(`${WEB}/sessions/${b.sessionId}?project=${p.projectId}`);
    expect(fired.json.summary).toBe('FIRING: rule failure_count — Failed attempts (class transient, tool search): 5 ≥ 3 over 5 min');
    // The spike ends: 5 minutes after its last minute the window is empty.
    await runAlertTick(env.sql, { now: at(27), webUrl: WEB });
    expect(mine()).toHaveLength(2);
    const resolved = mine()[1] as (typeof receiver.got)[number];
    expect(resolved.verified).toBe(true);
    expect(resolved.json).toMatchObject({ type: 'alert.resolved', value: 0 });
    // What holds now, not the rule's comparison: 0 is below the threshold.
    expect(String(resolved.json.summary)).toMatch(/: 0 < \d+ over \d+ min$/);
    expect((await eventsOf(env.sql, ruleId)).map((e) => [e.kind, e.value, e.at.toISOString()])).toEqual([
      ['firing', 5, at(22).toISOString()],
      ['resolved', 0, at(27).toISOString()],
    ]);
    await env.sql.query('DELETE FROM alert_rules WHERE id = $1', [ruleId]);
  });

  it('a muted rule records its firing without sending it; a Slack rule sends text with links', async () => {
    const p = await newProjectKey();
    const muted = await createRule(env.sql, { projectId: p.projectId, kind: 'escalations', threshold: 1, url: receiver.url, secret: SECRET, muted: true });
    const slack = await createRule(env.sql, { projectId: p.projectId, kind: 'escalations', threshold: 1, url: receiver.url, secret: SECRET, format: 'slack' });
    const s = failingSession({ startMs: T0 + 40 * 60_000, tool: 'pay', failures: [{ cls: 'uncertain_side_effect', decision: 'escalate_human' }], endsFailed: true });
    await send(s.spans, p.key);
    const before = receiver.got.length;
    await runAlertTick(env.sql, { now: at(41), webUrl: WEB });
    expect((await eventsOf(env.sql, muted)).map((e) => e.kind)).toEqual(['firing']);
    expect((await eventsOf(env.sql, slack)).map((e) => e.kind)).toEqual(['firing']);
    const sent = receiver.got.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.verified).toBe(true);
    expect(sent[0]?.json).toEqual({
      text:
        'FIRING: rule escalations — Escalations: 1 ≥ 1 over 5 min\n' +
        `<${WEB}/sessions?project=${p.projectId}&q=decision:escalate_human%2Cfail_reconcile%2Cabort%20failed:%3E%3D2026-11-30T12:36Z%20failed:%3C%3D2026-11-30T12:41Z|Open in the explorer>` +
        ` · <${WEB}/sessions/${s.sessionId}?project=${p.projectId}|Worst session's replay>`,
    });
    await env.sql.query('DELETE FROM alert_rules WHERE project_id = $1', [p.projectId]);
  });
});

describe('new failure class / new tool failing', () => {
  it('fires for a class and a tool never seen failing before, and resolves once the window has passed', async () => {
    const p = await newProjectKey();
    // The day before: search failed transient.
    await send(failingSession({ startMs: T0 - 86_400_000, tool: 'search', failures: [{ cls: 'transient' }] }).spans, p.key);
    // Now: search fails transient again (not new), and invalid_arguments (new); fetch fails transient (a new failing tool).
    await send(failingSession({ startMs: T0 + 60 * 60_000, tool: 'search', failures: [{ cls: 'transient' }, { cls: 'invalid_arguments' }] }).spans, p.key);
    await send(failingSession({ startMs: T0 + 60 * 60_000, tool: 'fetch', failures: [{ cls: 'transient' }] }).spans, p.key);
    const cls = await createRule(env.sql, { projectId: p.projectId, kind: 'new_failure_class', url: receiver.url, secret: SECRET, windowMinutes: 10 });
    const tool = await createRule(env.sql, { projectId: p.projectId, kind: 'new_failing_tool', url: receiver.url, secret: SECRET, windowMinutes: 10 });
    const before = receiver.got.length;
    await runAlertTick(env.sql, { now: at(61), webUrl: WEB });
    expect((await eventsOf(env.sql, cls)).map((e) => [e.kind, e.subject])).toEqual([['firing', 'invalid_arguments']]);
    expect((await eventsOf(env.sql, tool)).map((e) => [e.kind, e.subject])).toEqual([['firing', 'fetch']]);
    const sent = receiver.got.slice(before).map((g) => g.json);
    expect(sent.map((j) => j.summary).sort()).toEqual([
      'FIRING: rule new_failing_tool — New tool failing: fetch (1 failed attempt) over 10 min',
      'FIRING: rule new_failure_class — New failure class: invalid_arguments (1 failed attempt) over 10 min',
    ]);
    // 10 minutes on, still within the window: nothing; once it has passed: both resolve.
    await runAlertTick(env.sql, { now: at(69), webUrl: WEB });
    await runAlertTick(env.sql, { now: at(71), webUrl: WEB });
    expect((await eventsOf(env.sql, cls)).map((e) => [e.kind, e.subject])).toEqual([
      ['firing', 'invalid_arguments'],
      ['resolved', 'invalid_arguments'],
    ]);
    expect((await eventsOf(env.sql, tool)).map((e) => e.kind)).toEqual(['firing', 'resolved']);
    await env.sql.query('DELETE FROM alert_rules WHERE project_id = $1', [p.projectId]);
  });
});

describe('a run', () => {
  it('evaluates the other rules when one fails, and says which', async () => {
    const p = await newProjectKey();
    await send(failingSession({ startMs: T0 + 100 * 60_000, tool: 'search', failures: [{ cls: 'transient' }] }).spans, p.key);
    // A row no form makes (the database has no list of kinds): its measure fails.
    const bad = await createRule(env.sql, { projectId: p.projectId, kind: 'no_such_kind', url: receiver.url, secret: SECRET });
    const good = await createRule(env.sql, { projectId: p.projectId, kind: 'failure_count', threshold: 1, url: receiver.url, secret: SECRET });
    const r = await runAlertTick(env.sql, { now: at(101), webUrl: WEB });
    expect(r.errors.map((e) => e.ruleId)).toEqual([bad]);
    expect((await eventsOf(env.sql, good)).map((e) => e.kind)).toEqual(['firing']);
  });

  it('forgets firings and their deliveries after 30 days, and the rollup after 2', async () => {
    const p = await newProjectKey();
    await send(failingSession({ startMs: T0 + 110 * 60_000, tool: 'search', failures: [{ cls: 'transient' }] }).spans, p.key);
    const ruleId = await createRule(env.sql, { projectId: p.projectId, kind: 'failure_count', threshold: 1, url: receiver.url, secret: SECRET });
    await runAlertTick(env.sql, { now: at(111), webUrl: WEB });
    const rollup = async () => Number((await env.sql.query('SELECT count(*) FROM alert_minutes WHERE project_id = $1', [p.projectId])).rows[0].count);
    expect(await rollup()).toBeGreaterThan(0);
    await runAlertTick(env.sql, { now: at(111 + 2 * 24 * 60 + 1), webUrl: WEB });
    expect(await rollup()).toBe(0);
    expect((await eventsOf(env.sql, ruleId)).map((e) => e.kind)).toEqual(['firing', 'resolved']);
    await runAlertTick(env.sql, { now: at(111 + 30 * 24 * 60 + 1), webUrl: WEB });
    expect((await eventsOf(env.sql, ruleId)).map((e) => e.kind)).toEqual(['resolved']);
    const deliveries = await env.sql.query('SELECT count(*)::int AS n FROM alert_deliveries d JOIN alert_events e ON e.id = d.event_id WHERE e.rule_id = $1', [ruleId]);
    expect(deliveries.rows[0].n).toBe(1);
  });
});

describe('one evaluator at a time', () => {
  it('skips while another collector holds the lock, and two at once store one firing', async () => {
    const p = await newProjectKey();
    await send(failingSession({ startMs: T0 + 90 * 60_000, tool: 'search', failures: [{ cls: 'transient' }] }).spans, p.key);
    const ruleId = await createRule(env.sql, { projectId: p.projectId, kind: 'failure_count', threshold: 1, url: receiver.url, secret: SECRET });
    // Another collector's evaluation in progress: its lock held on another connection.
    const other = new pg.Client({ connectionString: env.db.url });
    await other.connect();
    await other.query("SELECT pg_advisory_lock(hashtextextended('guardtrace:alerts', 0))");
    const skipped = await runAlertTick(env.sql, { now: at(91), webUrl: WEB });
    expect(skipped.ran).toBe(false);
    expect(await eventsOf(env.sql, ruleId)).toEqual([]);
    await other.end();
    // Two collectors, each with its own pool, at the same minute.
    const pools = [0, 1].map(() => new pg.Pool({ connectionString: env.db.url, max: 1 }));
    const before = receiver.got.length;
    const results = await Promise.all(pools.map((pool) => runAlertTick(pool, { now: at(91), webUrl: WEB })));
    await Promise.all(pools.map((pool) => pool.end()));
    expect(results.some((r) => r.ran)).toBe(true);
    expect((await eventsOf(env.sql, ruleId)).map((e) => e.kind)).toEqual(['firing']);
    expect(receiver.got.slice(before).filter((g) => (g.json.rule as { id: string }).id === ruleId)).toHaveLength(1);
    await env.sql.query('DELETE FROM alert_rules WHERE id = $1', [ruleId]);
  });
});
