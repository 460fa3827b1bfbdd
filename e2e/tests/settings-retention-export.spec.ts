import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { createPrisma } from '@guardtrace/db';

const collector = () => process.env.GUARDTRACE_COLLECTOR_URL as string;
const apiKey = () => process.env.GUARDTRACE_API_KEY as string;

test('the retention set in Settings is stored and shown again; clearing it falls back to the default', async ({ page }) => {
  // Three saves and a reload on a machine shared with other builds: more than the default minute.
  test.setTimeout(180_000);
  await page.goto('/settings');
  const form = page.getByTestId('retention-form');
  await form.locator('#retention-days').fill('45');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByRole('status')).toHaveText(/deleted 45 days after they end/);
  // Stored: the database has it, and a fresh page load shows it.
  const prisma = createPrisma(process.env.GUARDTRACE_DATABASE_URL as string, { max: 1 });
  try {
    const read = async () =>
      (await prisma.project.findUniqueOrThrow({ where: { id: process.env.GUARDTRACE_PROJECT_ID as string } })).retentionDays;
    expect(await read()).toBe(45);
    await page.reload();
    await expect(page.getByTestId('retention-form').locator('#retention-days')).toHaveValue('45');
    // Empty: the collector's default again.
    await page.getByTestId('retention-form').locator('#retention-days').fill('');
    await page.getByTestId('retention-form').getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('retention-form').getByRole('status')).toHaveText(/default retention/);
    expect(await read()).toBeNull();
  } finally {
    await prisma.$disconnect();
  }
});

test("the replay page's export link downloads the same OTLP JSON the collector serves", async ({ page }) => {
  const sessionId = `e2e-export-${randomBytes(4).toString('hex')}`;
  const traceId = randomBytes(16).toString('hex');
  const start = BigInt(Date.UTC(2026, 10, 30, 12)) * 1_000_000n;
  const span = (name: string, offset: bigint, parent?: string) => ({
    traceId,
    spanId: randomBytes(8).toString('hex'),
    ...(parent ? { parentSpanId: parent } : {}),
    name,
    kind: 1,
    startTimeUnixNano: String(start + offset),
    endTimeUnixNano: String(start + offset + 1_000_000n),
    attributes: [{ key: 'gen_ai.conversation.id', value: { stringValue: sessionId } }],
    status: { code: 0 },
  });
  const root = span('invoke_agent e2e', 0n);
  const body = {
    resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'e2e-export' } }] }, scopeSpans: [{ scope: { name: 'e2e' }, spans: [root, span('child', 2_000_000n, root.spanId as string)] }] }],
  };
  const posted = await fetch(`${collector()}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey()}` },
    body: JSON.stringify(body),
  });
  expect(posted.status).toBe(200);

  await page.goto(`/sessions/${sessionId}?project=${process.env.GUARDTRACE_PROJECT_ID}`);
  const download = page.waitForEvent('download');
  await page.getByTestId('session-export').click();
  const file = await download;
  expect(file.suggestedFilename()).toBe(`guardtrace-session-${sessionId}.otlp.json`);
  const fromPage = JSON.parse(await readFile(await file.path(), 'utf8'));
  const fromCollector = await (await fetch(`${collector()}/v1/sessions/${sessionId}`, { headers: { authorization: `Bearer ${apiKey()}` } })).json();
  expect(fromPage).toEqual(fromCollector);
  expect(fromPage.resourceSpans[0].scopeSpans[0].spans.map((s: { name: string }) => s.name)).toEqual(['invoke_agent e2e', 'child']);
});
