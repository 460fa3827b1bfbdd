import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import { listAudit } from '@guardtrace/db';
import { type AlertRuleInput, alertRuleProblem, alertSummary } from '@guardtrace/db/alerts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleInput } from '../src/app/settings/alerts/rule-input.ts';
import { createAlertRule, deleteAlertRule, listAlertDeliveries, listAlertRules, sendTestAlert, setAlertMuted } from '../src/server/queries/alerts.ts';
import { setupTestDatabase } from './db.ts';
import { seedProject } from './factories.ts';

const db = setupTestDatabase();
const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
let status = 200;
let server: http.Server;
let hook = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  hook = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks/T0/B0/secret-path`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const input = (over: Partial<AlertRuleInput> = {}): AlertRuleInput => ({
  name: 'search timeouts',
  kind: 'failure_count',
  failureClass: 'transient',
  toolName: 'search',
  windowMinutes: 5,
  comparison: 'gte',
  threshold: 3,
  webhookUrl: hook,
  format: 'generic',
  ...over,
});
const actor = { id: 'u1', email: 'owner@example.test' };

/** `n` failed attempts of the search tool of class `cls` in session `session`, 10 s into `minute`. */
async function failedAttempts(prisma: ReturnType<typeof db.prisma>, projectId: string, session: string, minute: string, cls: string, n: number) {
  const traceId = randomBytes(16).toString('hex');
  await prisma.attempt.createMany({
    data: Array.from({ length: n }, (_, i) => ({
      projectId,
      traceId,
      spanId: randomBytes(8).toString('hex'),
      sessionId: session,
      number: i + 1,
      startedAt: new Date(new Date(minute).getTime() + 10_000 + i),
      durationMs: 1,
      toolName: 'search',
      failureClass: cls,
      outcome: 'failed',
    })),
  });
}
const NOW = new Date('2026-11-30T12:00:00Z');

describe('alert rules', () => {
  it('refuses a failure class no attempt can have (the explorer would not know it either), naming the ones it can', () => {
    expect(alertRuleProblem(input())).toBeNull();
    expect(alertRuleProblem(input({ failureClass: null }))).toBeNull();
    expect(alertRuleProblem(input({ failureClass: 'Transient' }))).toMatch(/^Failure class: one of [a-z_, ]*\btransient\b.* not “Transient”$/);
  });

  it('reads the form as its fields say: decimal numbers only, a threshold a window can reach, a URL a delivery can send to', () => {
    const form = (over: Record<string, string>) => {
      const parsed = ruleInput.parse({ project: '00000000-0000-4000-8000-000000000000', name: 'r', kind: 'failure_count', failureClass: '', toolName: '', windowMinutes: '5', comparison: 'gte', threshold: '3', webhookUrl: hook, format: 'generic', ...over });
      const { project: _, ...rest } = parsed;
      return alertRuleProblem(rest as AlertRuleInput);
    };
    expect(form({})).toBeNull();
    expect(form({ threshold: '0.25' })).toBeNull();
    expect(form({ threshold: '1e3' })).toBeNull();
    expect(form({ threshold: '0x10' })).toBe('Threshold: a decimal number, 0 or more (such as 3 or 0.25)');
    expect(form({ threshold: '1e308' })).toBe('Threshold: at most 1,000,000,000,000');
    expect(form({ windowMinutes: '0x10' })).toMatch(/^Window: a whole number of minutes/);
    expect(form({ webhookUrl: 'https://bot:s3cret@hooks.example.test/alerts' })).toMatch(/^Webhook URL: without a user name or password/);
    expect(form({ webhookUrl: 'https://token@hooks.example.test/alerts' })).toMatch(/^Webhook URL: without a user name or password/);
  });

  it('keeps a tool name as typed (the collector stores it as spans send it), takes any stored name, and refuses a threshold every window or none meets', () => {
    const parse = (over: Record<string, string>) =>
      ruleInput.parse({ project: '00000000-0000-4000-8000-000000000000', name: 'r', kind: 'failure_count', failureClass: '', toolName: '', windowMinutes: '5', comparison: 'gte', threshold: '3', webhookUrl: hook, format: 'generic', ...over });
    const problem = (over: Record<string, string>) => {
      const { project: _, ...rest } = parse(over);
      return alertRuleProblem(rest as AlertRuleInput);
    };
    // A tool sent as "  padded tool  " is stored so: a rule trimmed to "padded tool" never fired.
    expect(parse({ toolName: '  padded tool  ' }).toolName).toBe('  padded tool  ');
    expect(parse({ toolName: '   ' }).toolName).toBeNull();
    // A tool name longer than an index holds is stored shortened to 256 bytes: a rule can name it.
    const stored = `${'T'.repeat(150)}${'€'.repeat(19)}…[SHORTENED:600 bytes sha256:42fdc149326b09f3]`;
    expect(Buffer.byteLength(stored)).toBeLessThanOrEqual(256);
    expect(problem({ toolName: stored })).toBeNull();
    expect(problem({ toolName: 'x'.repeat(257) })).toBe('Tool: at most 256 characters');
    expect(problem({ threshold: '0' })).toMatch(/^Threshold: “≥ 0” holds in every window/);
    expect(problem({ threshold: '0', comparison: 'lt' })).toMatch(/^Threshold: “< 0” holds in no window/);
    expect(problem({ threshold: '0', comparison: 'gt' })).toBeNull();
    expect(problem({ threshold: '0', comparison: 'lte' })).toBeNull();
    expect(problem({ threshold: '0', kind: 'new_failing_tool' })).toBeNull();
  });

  it("states a small repair cost with its significant digits (four decimals read $0.00003 as 0.0000)", () => {
    const facts = (value: number, threshold: number) => ({
      eventId: 'e', type: 'firing' as const, at: NOW, projectId: 'p', subject: null, windowStart: NOW, worstSessionId: null, webUrl: null, value,
      rule: { id: 'r', name: 'tiny', kind: 'repair_dollars' as const, failureClass: null, toolName: null, windowMinutes: 5, comparison: 'gt' as const, threshold },
    });
    expect(alertSummary(facts(0.00003, 0.00001))).toBe('FIRING: tiny — Repair cost: 0.00003 USD > 0.00001 USD over 5 min');
    expect(alertSummary(facts(0.01925, 0.01))).toBe('FIRING: tiny — Repair cost: 0.01925 USD > 0.01 USD over 5 min');
    expect(alertSummary(facts(12.345, 10))).toBe('FIRING: tiny — Repair cost: 12.35 USD > 10 USD over 5 min');
    // a tool stored with spaces around it reads quoted, as on the settings page (chat clients fold the spaces)
    const padded = { ...facts(2, 1), rule: { ...facts(2, 1).rule, toolName: '  padded tool  ' } };
    expect(alertSummary(padded)).toBe('FIRING: tiny — Repair cost (tool "  padded tool  "): 2 USD > 1 USD over 5 min');
  });

  it('creates a rule whose secret is returned once and never listed, audited without the webhook path', async () => {
    const prisma = db.prisma();
    const p = await seedProject(prisma);
    const made = await createAlertRule(prisma, p.id, input(), actor);
    expect(made?.secret).toMatch(/^whsec_[\w-]{43}$/);
    const rules = await listAlertRules(prisma, p.id);
    expect(rules).toEqual([expect.objectContaining({ name: 'search timeouts', kind: 'failure_count', state: 'ok', muted: false, lastFiredAt: null })]);
    expect(JSON.stringify(rules)).not.toContain(made?.secret);
    const audit = await listAudit(prisma, p.id);
    expect(audit[0]).toMatchObject({ action: 'alert.created', target: 'search timeouts', actorEmail: actor.email });
    expect(JSON.stringify(audit[0]?.details)).not.toContain('secret-path');
    expect(await createAlertRule(prisma, '00000000-0000-4000-8000-000000000000', input())).toBeNull();
  });

  it('mutes, unmutes and deletes a rule of its own project only, each audited', async () => {
    const prisma = db.prisma();
    const mine = await seedProject(prisma);
    const theirs = await seedProject(prisma);
    const made = await createAlertRule(prisma, theirs.id, input({ name: 'theirs' }));
    const id = made?.id as string;
    expect(await setAlertMuted(prisma, mine.id, id, true)).toBe(false);
    expect(await deleteAlertRule(prisma, mine.id, id)).toBe(false);
    expect((await listAlertRules(prisma, theirs.id))[0]?.muted).toBe(false);
    expect(await setAlertMuted(prisma, theirs.id, id, true, actor)).toBe(true);
    expect((await listAlertRules(prisma, theirs.id))[0]?.muted).toBe(true);
    expect(await setAlertMuted(prisma, theirs.id, id, false, actor)).toBe(true);
    expect(await deleteAlertRule(prisma, theirs.id, id, actor)).toBe(true);
    expect(await listAlertRules(prisma, theirs.id)).toEqual([]);
    expect((await listAudit(prisma, theirs.id)).map((e) => e.action).slice(0, 4)).toEqual(['alert.deleted', 'alert.unmuted', 'alert.muted', 'alert.created']);
  });

  it("writes a Slack body's names as Slack shows text: `<!channel>` in a rule's name pings no one", async () => {
    const prisma = db.prisma();
    const p = await seedProject(prisma);
    const made = await createAlertRule(prisma, p.id, input({ format: 'slack', name: 'pay <!channel> & refunds', toolName: 'a<b>' }), actor);
    const before = got.length;
    await sendTestAlert(prisma, p.id, made?.id as string, 'https://gt.example.com', NOW, actor);
    const text = JSON.parse(got[before]?.body as string).text as string;
    expect(text.split('\n')[0]).toBe('TEST: pay &lt;!channel&gt; &amp; refunds — Failed attempts (class transient, tool a&lt;b&gt;): 0 &lt; 3 over 5 min');
    // The links stay links.
    expect(text).toMatch(/\n<https:\/\/gt\.example\.com\/sessions\?project=[^|]+\|Open in the explorer>$/);
  });

  it('sends a signed test now and logs its answer, delivered or not', async () => {
    const prisma = db.prisma();
    const p = await seedProject(prisma);
    const made = await createAlertRule(prisma, p.id, input({ format: 'slack' }), actor);
    const id = made?.id as string;
    const before = got.length;
    expect(await sendTestAlert(prisma, p.id, id, 'https://gt.example.com', NOW, actor)).toEqual({ ok: true, status: 200, error: null, deliveries: 1, subjects: [] });
    const req = got[before];
    const ts = String(NOW.getTime() / 1000);
    expect(req?.headers['x-guardtrace-event']).toBe('test');
    expect(req?.headers['x-guardtrace-timestamp']).toBe(ts);
    expect(req?.headers['x-guardtrace-signature']).toBe(`sha256=${createHmac('sha256', made?.secret as string).update(`${ts}.${req?.body}`).digest('hex')}`);
    expect(JSON.parse(req?.body as string).text).toContain(`<https://gt.example.com/sessions?project=${p.id}&q=class:transient%20tool:search%20failed:%3E%3D2026-11-30T11:55Z%20failed:%3C%3D2026-11-30T12:00Z|Open in the explorer>`);
    status = 503;
    expect(await sendTestAlert(prisma, p.id, id, 'https://gt.example.com', NOW, actor)).toEqual({ ok: false, status: 503, error: 'HTTP 503', deliveries: 1, subjects: [] });
    status = 200;
    const log = await listAlertDeliveries(prisma, p.id);
    // Both sent at NOW: compared in status order.
    expect(log.map((d) => [d.eventKind, d.status, d.attempts, d.lastStatusCode]).sort()).toEqual([
      ['test', 'delivered', 1, 200],
      ['test', 'failed', 1, 503],
    ]);
    expect((await listAudit(prisma, p.id)).filter((e) => e.action === 'alert.tested')).toHaveLength(2);
    // Another project's rule: not found, nothing sent.
    const other = await seedProject(prisma);
    expect(await sendTestAlert(prisma, other.id, id, 'https://gt.example.com', NOW)).toBeNull();
  });

  it("reports what the collector's evaluation at that moment would: the window's whole minutes back from now, its value and worst session", async () => {
    const prisma = db.prisma();
    const p = await seedProject(prisma);
    const made = await createAlertRule(prisma, p.id, input(), actor);
    // The rollup as the collector writes it (failed transient search attempts per minute), and the
    // attempts it counts (the example session is the one with the most of them in the window).
    const row = async (minute: string, failed: number, worst: string) => {
      await prisma.alertMinute.create({
        data: { projectId: p.id, minute: new Date(minute), toolName: 'search', failureClass: 'transient', model: '', attempts: failed, weightedAttempts: failed, failedAttempts: failed },
      });
      await failedAttempts(prisma, p.id, worst, minute, 'transient', failed);
    };
    // 5 minutes back from 12:00:30 is 11:55:30: the evaluation's 5-minute window is the whole minutes 11:55 to 12:00.
    await row('2026-11-30T11:54:00Z', 4, 'sess_before');
    await row('2026-11-30T11:55:00Z', 1, 'sess_a');
    await row('2026-11-30T12:00:00Z', 2, 'sess_b');
    const now = new Date('2026-11-30T12:00:30Z');
    const before = got.length;
    expect(await sendTestAlert(prisma, p.id, made?.id as string, 'https://gt.example.com', now, actor)).toEqual({ ok: true, status: 200, error: null, deliveries: 1, subjects: [] });
    const body = JSON.parse(got[before]?.body as string);
    expect(body).toMatchObject({
      type: 'alert.test',
      value: 3,
      window: { start: '2026-11-30T11:55:00.000Z', end: '2026-11-30T12:00:30.000Z', minutes: 5 },
      summary: 'TEST: search timeouts — Failed attempts (class transient, tool search): 3 ≥ 3 over 5 min',
      links: {
        explorer: `https://gt.example.com/sessions?project=${p.id}&q=class:transient%20tool:search%20failed:%3E%3D2026-11-30T11:55Z%20failed:%3C%3D2026-11-30T12:00Z`,
        worstSession: `https://gt.example.com/sessions/sess_b?project=${p.id}`,
      },
    });
    // The settings page's log shows the same figure.
    expect((await prisma.alertEvent.findMany({ where: { projectId: p.id } })).map((e) => [e.kind, e.value])).toEqual([['test', 3]]);
  });

  it('tests a new failure class rule as the evaluation fires it: one delivery per new class, each with its figures', async () => {
    const prisma = db.prisma();
    const p = await seedProject(prisma);
    const made = await createAlertRule(prisma, p.id, input({ name: 'new classes', kind: 'new_failure_class', failureClass: null, toolName: null, threshold: 0 }), actor);
    const row = async (minute: string, cls: string, failed: number, worst: string) => {
      await prisma.alertMinute.create({
        data: { projectId: p.id, minute: new Date(minute), toolName: 'search', failureClass: cls, model: '', attempts: failed, weightedAttempts: failed, failedAttempts: failed },
      });
      await failedAttempts(prisma, p.id, worst, minute, cls, failed);
    };
    // transient failed earlier the same day (seen before); timeout and not_found fail for the first time in the window.
    await row('2026-11-30T10:00:00Z', 'transient', 1, 'sess_old');
    await row('2026-11-30T11:58:00Z', 'transient', 2, 'sess_t');
    await row('2026-11-30T11:57:00Z', 'timeout', 3, 'sess_timeout');
    await row('2026-11-30T11:59:00Z', 'not_found', 1, 'sess_nf');
    const now = new Date('2026-11-30T12:00:30Z');
    const before = got.length;
    const res = await sendTestAlert(prisma, p.id, made?.id as string, 'https://gt.example.com', now, actor);
    const bodies = got.slice(before).map((g) => JSON.parse(g.body));
    expect(bodies.map((b) => [b.subject, b.value, b.links.worstSession, b.summary]).sort()).toEqual([
      ['not_found', 1, `https://gt.example.com/sessions/sess_nf?project=${p.id}`, 'TEST: new classes — New failure class: not_found (1 failed attempt) over 5 min'],
      ['timeout', 3, `https://gt.example.com/sessions/sess_timeout?project=${p.id}`, 'TEST: new classes — New failure class: timeout (3 failed attempts) over 5 min'],
    ]);
    for (const b of bodies) expect(b.type).toBe('alert.test');
    expect({ ...res, subjects: [...(res?.subjects ?? [])].sort() }).toEqual({ ok: true, status: 200, error: null, deliveries: 2, subjects: ['not_found', 'timeout'] });
    // The settings page's log: one test event per class, under its subject.
    const events = await prisma.alertEvent.findMany({ where: { projectId: p.id } });
    expect(events.map((e) => [e.kind, e.subject, e.value]).sort()).toEqual([
      ['test', 'not_found', 1],
      ['test', 'timeout', 3],
    ]);
    expect((await listAudit(prisma, p.id)).filter((e) => e.action === 'alert.tested').map((e) => e.details)).toEqual([{ ok: true, status: 200, error: null, deliveries: 2 }]);
  });
});
