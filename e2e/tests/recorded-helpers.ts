/**
 * Posting a payload recorded from a real library (e2e/fixtures/recorded/) to the system's
 * collector as a fresh session: every trace id is new, and a session id carried in an attribute
 * gets the run's tag; times stay as recorded. And the checks the recorded-instrumentation specs
 * share: the replay, the session list and its filters, analytics.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect, type Page } from '@playwright/test';

interface AnyValue {
  stringValue?: string;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface Span {
  traceId: string;
  spanId: string;
  startTimeUnixNano: string | number;
  attributes?: KeyValue[];
}
interface Payload {
  resourceSpans: { resource?: { attributes?: KeyValue[] }; scopeSpans: { spans: Span[] }[] }[];
}

/** Attributes a session id is read from (the collector's SESSION_ID_KEYS). */
const SESSION_KEYS = new Set([
  'gen_ai.conversation.id',
  'session.id',
  'langfuse.session.id',
  'ai.telemetry.metadata.sessionId',
  'traceloop.association.properties.session_id',
  'traceloop.association.properties.sessionId',
]);

export interface Posted {
  /** The session the collector files the spans under: the tagged session attribute, else the (one) new trace id. */
  sessionId: string;
}

const load = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/recorded/${name}.otlp.json`, import.meta.url), 'utf8')) as Payload;

/** The UTC day (YYYY-MM-DD) the recording's first span started: where analytics counts it. */
export function recordingDay(name: string): string {
  let first: bigint | null = null;
  for (const rs of load(name).resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) if (first === null || BigInt(s.startTimeUnixNano) < first) first = BigInt(s.startTimeUnixNano);
  return new Date(Number((first as bigint) / 1_000_000n)).toISOString().slice(0, 10);
}

/** Posts `name`.otlp.json as OTLP JSON with the test project's key, under fresh ids. */
export async function postRecording(name: string): Promise<Posted> {
  const payload = load(name);
  const tag = randomBytes(4).toString('hex');
  const traces = new Map<string, string>();
  let session: string | null = null;
  for (const rs of payload.resourceSpans) {
    for (const ss of rs.scopeSpans) {
      for (const s of ss.spans) {
        const id = traces.get(s.traceId) ?? randomBytes(16).toString('hex');
        traces.set(s.traceId, id);
        s.traceId = id;
        for (const a of s.attributes ?? []) {
          if (SESSION_KEYS.has(a.key) && a.value.stringValue !== undefined) {
            a.value.stringValue = `${a.value.stringValue}-${tag}`;
            session = a.value.stringValue;
          }
        }
      }
    }
  }
  const res = await fetch(`${process.env.GUARDTRACE_COLLECTOR_URL}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.GUARDTRACE_API_KEY}` },
    body: JSON.stringify(payload),
  });
  expect(res.status, await res.text()).toBe(200);
  if (session === null) {
    expect(traces.size, `${name}: no session attribute, so one trace is one session`).toBe(1);
    session = [...traces.values()][0] as string;
  }
  return { sessionId: session };
}

const project = () => process.env.GUARDTRACE_PROJECT_ID ?? '';

/** How a recording's spans and its log records reach the collector. */
export type ExportOrder = 'spans first' | 'logs first' | 'interleaved';

/**
 * Posts a recording's spans (`<file>.otlp.json`) and its log records (`<file>.logs.otlp.json`,
 * the GenAI events of OTel's GenAI instrumentations) under fresh trace ids and a tagged
 * `gen_ai.conversation.id`, as OTLP JSON with the test project's key: each file whole, spans
 * or logs first; or `interleaved`, every export the library made as its own request, log and
 * span exports alternating. `file` is relative to e2e/fixtures. `beforeLogs` (spans first only)
 * runs between the two posts. Returns the session id.
 */
export async function postSpansAndLogs(file: string, order: ExportOrder, opts: { beforeLogs?: (sessionId: string) => Promise<void> } = {}): Promise<string> {
  const read = (suffix: string) => JSON.parse(readFileSync(new URL(`../fixtures/${file}${suffix}`, import.meta.url), 'utf8')) as Record<string, unknown>;
  const tag = randomBytes(4).toString('hex');
  const traces = new Map<string, string>();
  let session = '';
  const retag = (o: unknown): void => {
    if (Array.isArray(o)) for (const x of o) retag(x);
    else if (o && typeof o === 'object') {
      const r = o as Record<string, unknown>;
      if (typeof r.traceId === 'string') r.traceId = traces.get(r.traceId) ?? (traces.set(r.traceId, randomBytes(16).toString('hex')).get(r.traceId) as string);
      if (r.key === 'gen_ai.conversation.id') {
        const v = r.value as AnyValue;
        session = v.stringValue = `${v.stringValue}-${tag}`;
      }
      for (const v of Object.values(r)) retag(v);
    }
  };
  const spans = read('.otlp.json');
  const logs = read('.logs.otlp.json');
  retag(spans);
  retag(logs);
  const post = async (signal: 'traces' | 'logs', body: unknown) => {
    const res = await fetch(`${process.env.GUARDTRACE_COLLECTOR_URL}/v1/${signal}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.GUARDTRACE_API_KEY}` },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    // Every record of these recordings is a GenAI event with its span context: nothing rejected.
    expect(JSON.parse(text), `${signal}: ${text}`).toEqual({});
  };
  if (order === 'interleaved') {
    const spanExports = (spans.resourceSpans as unknown[]).map((r) => ({ resourceSpans: [r] }));
    const logExports = (logs.resourceLogs as unknown[]).map((r) => ({ resourceLogs: [r] }));
    for (let i = 0; i < Math.max(spanExports.length, logExports.length); i++) {
      if (logExports[i]) await post('logs', logExports[i]);
      if (spanExports[i]) await post('traces', spanExports[i]);
    }
  } else if (order === 'logs first') {
    await post('logs', logs);
    await post('traces', spans);
  } else {
    await post('traces', spans);
    await opts.beforeLogs?.(session);
    await post('logs', logs);
  }
  expect(session, `${file}: a gen_ai.conversation.id attribute`).not.toBe('');
  return session;
}

/** Opens the replay once the collector has stored the session's `modelSteps` model calls. */
export async function openModelReplay(page: Page, sessionId: string, modelSteps: number): Promise<void> {
  await expect(async () => {
    await page.goto(`/sessions/${encodeURIComponent(sessionId)}?project=${project()}`);
    await expect(page.locator('[data-testid=step][data-kind=model]')).toHaveCount(modelSteps, { timeout: 5000 });
  }).toPass({ timeout: 60_000 });
}

/** The failed attempts analytics counts for `tool` × `failureClass` on `day` (0 without a row). */
export async function analyticsFailures(page: Page, day: string, tool: string, failureClass: string): Promise<number> {
  await page.goto(`/analytics?project=${project()}&from=${day}&to=${day}`, { waitUntil: 'domcontentloaded' });
  await expect(page.getByTestId('analytics-window')).toContainText(day);
  const row = page.getByTestId('tool-class-row').and(page.locator(`[data-tool="${tool}"][data-class="${failureClass}"]`));
  if ((await row.count()) === 0) return 0;
  // Columns: tool (th), class, tokens on failures, bar, failed attempts, sessions.
  return Number(((await row.locator('td').nth(3).textContent()) ?? '').replace(/\D/g, ''));
}

/** Waits until analytics counts `expected` failed attempts for the segment on `day`. */
export async function expectAnalyticsFailures(page: Page, day: string, tool: string, failureClass: string, expected: number): Promise<void> {
  await expect(async () => expect(await analyticsFailures(page, day, tool, failureClass)).toBe(expected)).toPass();
}

/** The session's row in the list under `query` (the session id is added to it). */
export function sessionRow(page: Page, sessionId: string) {
  return page.getByTestId('session-row').and(page.locator(`[data-session-id="${sessionId}"]`));
}

/** Opens the list with `query` plus the session id, and expects the session's row `count` times. */
export async function expectListed(page: Page, sessionId: string, query: string, count: 0 | 1): Promise<void> {
  await expect(async () => {
    await page.goto(`/sessions?project=${project()}&q=${encodeURIComponent(`${query} "${sessionId}"`)}`);
    await expect(page.getByTestId('query-errors')).toHaveCount(0);
    await expect(sessionRow(page, sessionId)).toHaveCount(count, { timeout: 1000 });
  }).toPass();
}

/** Opens the replay once the collector has stored the session's steps. */
export async function openRecordedReplay(page: Page, sessionId: string, toolSteps: number): Promise<void> {
  await expect(async () => {
    await page.goto(`/sessions/${encodeURIComponent(sessionId)}?project=${project()}`);
    await expect(page.locator('[data-testid=step][data-kind=tool]')).toHaveCount(toolSteps, { timeout: 5000 });
  }).toPass({ timeout: 60_000 });
}

/** Selects the first step of `kind` (optionally only a failed one, or one whose label is `label`). */
export async function selectStep(page: Page, kind: 'tool' | 'model', opts: { failed?: boolean; label?: string; nth?: number } = {}): Promise<void> {
  let steps = page.locator(`[data-testid=step][data-kind=${kind}]${opts.failed === undefined ? '' : opts.failed ? '[data-failed=true]' : ':not([data-failed=true])'}`);
  if (opts.label) steps = steps.filter({ hasText: opts.label });
  const step = steps.nth(opts.nth ?? 0);
  await step.click();
  await expect(step).toHaveAttribute('data-current', 'true');
}
