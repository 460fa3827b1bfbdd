/**
 * Alerts and muting, as a receiver sees them: each alert it was told of until its end, and no
 * other (firings held back while muted and sent on unmuting as the same event, a delivered
 * firing's resolution sent muted or not, a resolution still being retried cancelled when the
 * alert fires again). Sessions sent over real HTTP at fixed times, a real receiver; the
 * evaluation's "now" is passed in.
 */
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

describe('muting: a receiver hears of each alert it was told of until its end, and of no other', () => {
  const mute = (ruleId: string, muted: boolean) => env.sql.query('UPDATE alert_rules SET muted = $2 WHERE id = $1', [ruleId, muted]);
  const spike = async (key: string, minute: number) =>
    send(failingSession({ startMs: T0 + minute * 60_000, tool: 'pay', failures: [{ cls: 'uncertain_side_effect', decision: 'escalate_human' }], endsFailed: true }).spans, key);
  const setup = async () => {
    const p = await newProjectKey();
    const ruleId = await createRule(env.sql, { projectId: p.projectId, kind: 'escalations', threshold: 1, url: receiver.url, secret: SECRET });
    const before = receiver.got.length;
    const got = () =>
      receiver.got
        .slice(before)
        .filter((g) => (g.json.rule as { id: string }).id === ruleId)
        .map((g) => `${g.json.type} ${g.status}`);
    return { p, ruleId, got };
  };

  it('sends the resolution of a delivered firing when the alert ends while the rule is muted', async () => {
    const { p, ruleId, got } = await setup();
    await spike(p.key, 100);
    await runAlertTick(env.sql, { now: at(101), webUrl: WEB });
    expect(got()).toEqual(['alert.firing 200']);
    await mute(ruleId, true);
    await runAlertTick(env.sql, { now: at(110), webUrl: WEB });
    // Ended while muted: the receiver, which has the alert open, is told.
    expect(got()).toEqual(['alert.firing 200', 'alert.resolved 200']);
    await mute(ruleId, false);
    await runAlertTick(env.sql, { now: at(111), webUrl: WEB });
    expect(got()).toEqual(['alert.firing 200', 'alert.resolved 200']);
  });

  it('sends a firing held back by muting when the rule is unmuted while it still fires, then its resolution', async () => {
    const { p, ruleId, got } = await setup();
    await mute(ruleId, true);
    await spike(p.key, 120);
    await runAlertTick(env.sql, { now: at(121), webUrl: WEB });
    expect(got()).toEqual([]);
    await mute(ruleId, false);
    await runAlertTick(env.sql, { now: at(122), webUrl: WEB });
    expect(got()).toEqual(['alert.firing 200']);
    await runAlertTick(env.sql, { now: at(123), webUrl: WEB });
    await runAlertTick(env.sql, { now: at(130), webUrl: WEB });
    expect(got()).toEqual(['alert.firing 200', 'alert.resolved 200']);
    // Stored: the firing (sent on unmuting, as the same event) and the resolution.
    expect((await eventsOf(env.sql, ruleId)).map((e) => e.kind)).toEqual(['firing', 'resolved']);
  });

  it('sends no resolution of a firing the receiver never got: fired while muted, or muted while it was being retried', async () => {
    // Fired while muted, ended while muted, then unmuted.
    const one = await setup();
    await mute(one.ruleId, true);
    await spike(one.p.key, 140);
    await runAlertTick(env.sql, { now: at(141), webUrl: WEB });
    await runAlertTick(env.sql, { now: at(150), webUrl: WEB });
    await mute(one.ruleId, false);
    await runAlertTick(env.sql, { now: at(151), webUrl: WEB });
    expect(one.got()).toEqual([]);
    // The firing's first attempt failed; muted while it waited for its retry; unmuted after the end.
    const two = await setup();
    receiver.failNext(1);
    await spike(two.p.key, 160);
    await runAlertTick(env.sql, { now: at(161), webUrl: WEB });
    expect(two.got()).toEqual(['alert.firing 500']);
    await mute(two.ruleId, true);
    await runAlertTick(env.sql, { now: at(162), webUrl: WEB });
    await runAlertTick(env.sql, { now: at(170), webUrl: WEB });
    await mute(two.ruleId, false);
    await runAlertTick(env.sql, { now: at(171), webUrl: WEB });
    await runAlertTick(env.sql, { now: at(200), webUrl: WEB });
    expect(two.got()).toEqual(['alert.firing 500']);
  });

  it('sends again a firing that muting cancelled while it was being retried, when unmuted while it still fires: the same delivery', async () => {
    const { p, ruleId, got } = await setup();
    const before = receiver.got.length;
    receiver.failNext(1);
    await spike(p.key, 220);
    await runAlertTick(env.sql, { now: at(221), webUrl: WEB });
    await mute(ruleId, true);
    await runAlertTick(env.sql, { now: at(222), webUrl: WEB });
    await mute(ruleId, false);
    await runAlertTick(env.sql, { now: at(223), webUrl: WEB });
    await runAlertTick(env.sql, { now: at(230), webUrl: WEB });
    expect(got()).toEqual(['alert.firing 500', 'alert.firing 200', 'alert.resolved 200']);
    // The receiver can tell the second from a new alert: the same delivery id and body.
    const [first, second] = receiver.got.slice(before).filter((g) => g.json.type === 'alert.firing');
    expect(second?.headers['x-guardtrace-delivery']).toBe(first?.headers['x-guardtrace-delivery']);
    expect(second?.body).toBe(first?.body);
  });

  it('does not send a resolution still being retried once the alert fires again', async () => {
    const { p, ruleId, got } = await setup();
    await spike(p.key, 240);
    await runAlertTick(env.sql, { now: at(241), webUrl: WEB });
    // The spike leaves the window: resolved; the receiver fails that delivery (retried 30 s later).
    receiver.failNext(1);
    await runAlertTick(env.sql, { now: at(247), webUrl: WEB });
    // A new failure: firing again before the retry is due.
    await spike(p.key, 247);
    await runAlertTick(env.sql, { now: new Date(at(247).getTime() + 20_000), webUrl: WEB });
    await runAlertTick(env.sql, { now: new Date(at(247).getTime() + 40_000), webUrl: WEB });
    // Not "resolved" last while it fires.
    expect(got()).toEqual(['alert.firing 200', 'alert.resolved 500', 'alert.firing 200']);
    expect((await env.sql.query<{ state: string }>('SELECT state FROM alert_states WHERE rule_id = $1', [ruleId])).rows[0]?.state).toBe('firing');
    await runAlertTick(env.sql, { now: at(260), webUrl: WEB });
    expect(got()).toEqual(['alert.firing 200', 'alert.resolved 500', 'alert.firing 200', 'alert.resolved 200']);
  });
});
