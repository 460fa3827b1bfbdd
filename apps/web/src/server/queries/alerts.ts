import 'server-only';
import { randomUUID } from 'node:crypto';
import { type AuditActor, type PrismaClient, recordAudit } from '@guardtrace/db';
import {
  type AlertComparison,
  type AlertFormat,
  type AlertKind,
  type AlertRuleInput,
  alertBody,
  alertFacts,
  firingSubjects,
  isNewKind,
  type Measure,
  measure,
  newWebhookSecret,
  postWebhook,
  type QueryRows,
  type RuleRow,
  worstSession,
} from '@guardtrace/db/alerts';

/** One rule of Settings > Alerts, with its state (never its secret). */
export interface AlertRuleDto extends AlertRuleInput {
  id: string;
  muted: boolean;
  /** firing when any subject fires (a new_* rule: each new class or tool is a subject). */
  state: 'ok' | 'firing';
  firingSubjects: string[];
  lastFiredAt: string | null;
  lastEvaluatedAt: string | null;
}

export interface AlertEventDto {
  id: string;
  ruleName: string;
  kind: 'firing' | 'resolved' | 'test';
  subject: string;
  at: string;
  value: number;
}

export interface AlertDeliveryDto {
  id: string;
  ruleName: string;
  eventKind: string;
  url: string;
  /** cancelled: not sent, and never will be (the rule was muted, or the alert resolved first: lastError says which). */
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export async function listAlertRules(db: PrismaClient, projectId: string): Promise<AlertRuleDto[]> {
  const rules = await db.alertRule.findMany({
    where: { projectId },
    orderBy: { createdAt: 'asc' },
    include: { states: true, events: { where: { kind: 'firing' }, orderBy: { at: 'desc' }, take: 1, select: { at: true } } },
  });
  return rules.map((r) => {
    const firing = r.states.filter((s) => s.state === 'firing').map((s) => s.subject);
    return {
      id: r.id,
      name: r.name,
      kind: r.kind as AlertKind,
      failureClass: r.failureClass,
      toolName: r.toolName,
      windowMinutes: r.windowMinutes,
      comparison: r.comparison as AlertComparison,
      threshold: r.threshold,
      webhookUrl: r.webhookUrl,
      format: r.format as AlertFormat,
      muted: r.muted,
      state: firing.length ? 'firing' : 'ok',
      firingSubjects: firing.filter(Boolean),
      lastFiredAt: iso(r.events[0]?.at ?? null),
      lastEvaluatedAt: iso(r.lastEvaluatedAt),
    };
  });
}

/** The project's latest firings, resolutions and tests, newest first. */
export async function listAlertEvents(db: PrismaClient, projectId: string, take = 20): Promise<AlertEventDto[]> {
  const rows = await db.alertEvent.findMany({ where: { projectId }, orderBy: { at: 'desc' }, take, include: { rule: { select: { name: true } } } });
  return rows.map((e) => ({ id: e.id, ruleName: e.rule.name, kind: e.kind as AlertEventDto['kind'], subject: e.subject, at: e.at.toISOString(), value: e.value }));
}

/** The delivery log: the project's latest webhook deliveries, newest first. */
export async function listAlertDeliveries(db: PrismaClient, projectId: string, take = 20): Promise<AlertDeliveryDto[]> {
  const rows = await db.alertDelivery.findMany({
    where: { projectId },
    orderBy: { createdAt: 'desc' },
    take,
    include: { event: { select: { kind: true, rule: { select: { name: true } } } } },
  });
  return rows.map((d) => ({
    id: d.id,
    ruleName: d.event.rule.name,
    eventKind: d.event.kind,
    url: d.url,
    status: d.status as AlertDeliveryDto['status'],
    attempts: d.attempts,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    lastAttemptAt: iso(d.lastAttemptAt),
    nextAttemptAt: iso(d.nextAttemptAt),
  }));
}

/** Creates a rule with a new webhook secret, returned once (the web never reads it back). */
export async function createAlertRule(
  db: PrismaClient,
  projectId: string,
  input: AlertRuleInput,
  actor: AuditActor | null = null,
): Promise<{ id: string; secret: string } | null> {
  const secret = newWebhookSecret();
  const id = randomUUID();
  return db.$transaction(async (tx) => {
    if (!(await tx.project.findUnique({ where: { id: projectId }, select: { id: true } }))) return null;
    await tx.alertRule.create({ data: { id, projectId, ...input, secret } });
    await recordAudit(tx, {
      projectId,
      actor,
      action: 'alert.created',
      target: input.name,
      details: { kind: input.kind, failureClass: input.failureClass, toolName: input.toolName, windowMinutes: input.windowMinutes, comparison: input.comparison, threshold: input.threshold, webhookUrl: new URL(input.webhookUrl).origin, format: input.format },
    });
    return { id, secret };
  });
}

export async function setAlertMuted(db: PrismaClient, projectId: string, ruleId: string, muted: boolean, actor: AuditActor | null = null): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const rule = await tx.alertRule.findFirst({ where: { id: ruleId, projectId }, select: { name: true, muted: true } });
    if (!rule) return false;
    if (rule.muted === muted) return true;
    await tx.alertRule.update({ where: { id: ruleId }, data: { muted } });
    await recordAudit(tx, { projectId, actor, action: muted ? 'alert.muted' : 'alert.unmuted', target: rule.name });
    return true;
  });
}

export async function deleteAlertRule(db: PrismaClient, projectId: string, ruleId: string, actor: AuditActor | null = null): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const rule = await tx.alertRule.findFirst({ where: { id: ruleId, projectId }, select: { name: true } });
    if (!rule) return false;
    await tx.alertRule.delete({ where: { id: ruleId } });
    await recordAudit(tx, { projectId, actor, action: 'alert.deleted', target: rule.name });
    return true;
  });
}

/** What a test send did: every delivery posted (ok when all were), the first failure's answer, else the last's. */
export interface TestAlertResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  /** Deliveries posted: a new_* rule's one per new class or tool (one when none is new), else one. */
  deliveries: number;
  /** The new classes or tools a new_* rule's test reported (in order), each in a delivery of its own. */
  subjects: string[];
}

/**
 * Sends a test of a rule now: a `test` event and its delivery in the log for each delivery, each
 * one signed POST (no retries: the result is shown at once). The links point at this web app
 * (`webUrl`). Its figures are what the collector's evaluation would send at `now` (the same
 * `measure`, subjects and payload, from @guardtrace/db/alerts, but for the type): a threshold
 * rule's value (sent whether or not it crosses); a new_* rule's every new class or tool, one
 * delivery each as the evaluation fires them, or one with no subject when none is new.
 */
export async function sendTestAlert(
  db: PrismaClient,
  projectId: string,
  ruleId: string,
  webUrl: string,
  now: Date,
  actor: AuditActor | null = null,
): Promise<TestAlertResult | null> {
  const r = await db.alertRule.findFirst({ where: { id: ruleId, projectId } });
  if (!r) return null;
  const kind = r.kind as AlertKind;
  const rule: RuleRow = {
    id: r.id,
    project_id: projectId,
    name: r.name,
    kind,
    failure_class: r.failureClass,
    tool_name: r.toolName,
    window_minutes: r.windowMinutes,
    comparison: r.comparison as AlertComparison,
    threshold: r.threshold,
    webhook_url: r.webhookUrl,
    format: r.format as AlertFormat,
    muted: r.muted,
  };
  const q: QueryRows = (text, values) => db.$queryRawUnsafe(text, ...values);
  const measures = await measure(q, rule, now);
  const none = { value: 0, worstSessionId: null };
  // A new_* rule: each subject the evaluation would fire for; a threshold rule: its one value.
  const sends: [string | null, Measure][] = isNewKind(kind)
    ? [...firingSubjects(rule, measures)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    : [['', measures.get('') ?? none]];
  if (sends.length === 0) sends.push([null, none]);
  const results: { ok: boolean; status: number | null; error: string | null }[] = [];
  for (const [subject, m] of sends) {
    const eventId = randomUUID();
    const deliveryId = randomUUID();
    // The session that holds the most of it, as a firing now would link to.
    const worst = m.value > 0 ? await worstSession(q, rule, subject, now) : null;
    const facts = alertFacts(rule, { eventId, type: 'test', at: now, webUrl }, subject, { ...m, worstSessionId: worst });
    const body = alertBody(facts, r.format as AlertFormat);
    // Not due (next_attempt_at null): the collectors' delivery runs leave it to this request.
    await db.alertEvent.create({
      data: {
        id: eventId,
        ruleId,
        projectId,
        kind: 'test',
        subject: facts.subject ?? '',
        at: now,
        value: facts.value,
        threshold: r.threshold,
        windowStart: facts.windowStart,
        details: JSON.parse(alertBody(facts, 'generic')),
      },
    });
    await db.alertDelivery.create({ data: { id: deliveryId, eventId, projectId, url: r.webhookUrl, body, status: 'pending', createdAt: now } });
    const res = await postWebhook(r.webhookUrl, r.secret, body, { event: 'test', delivery: deliveryId, nowMs: now.getTime() });
    await db.alertDelivery.update({
      where: { id: deliveryId },
      data: {
        status: res.ok ? 'delivered' : 'failed',
        attempts: 1,
        lastStatusCode: res.status,
        lastError: res.error,
        lastAttemptAt: now,
        deliveredAt: res.ok ? now : null,
      },
    });
    results.push({ ok: res.ok, status: res.status, error: res.error });
  }
  const shown = results.find((x) => !x.ok) ?? (results[results.length - 1] as (typeof results)[number]);
  const out: TestAlertResult = {
    ok: results.every((x) => x.ok),
    status: shown.status,
    error: shown.error,
    deliveries: results.length,
    subjects: sends.flatMap(([subject]) => (isNewKind(kind) && subject !== null ? [subject] : [])),
  };
  await recordAudit(db, {
    projectId,
    actor,
    action: 'alert.tested',
    target: r.name,
    details: { ok: out.ok, status: out.status, error: out.error, ...(out.deliveries > 1 ? { deliveries: out.deliveries } : {}) },
  });
  return out;
}
