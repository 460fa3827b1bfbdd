import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { expect, type Locator, type Page } from '@playwright/test';

/** A real OTel SDK exporting each span as it ends to the system's collector over OTLP/HTTP (protobuf). */
export function exportingProvider(service: string): BasicTracerProvider {
  return new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [
      new SimpleSpanProcessor(
        new OTLPTraceExporter({
          url: `${process.env.GUARDTRACE_COLLECTOR_URL}/v1/traces`,
          headers: { authorization: `Bearer ${process.env.GUARDTRACE_API_KEY}` },
        }),
      ),
    ],
  });
}

/**
 * Opens `/sessions/{id}` once the collector has stored all `steps` of it and, with `ended`, the
 * session's end (a Guardtrace agent's root span, which carries the outcome, ends last).
 */
export async function openReplay(page: Page, id: string, steps: number, opts: { ended?: boolean } = {}): Promise<void> {
  await expect(async () => {
    await page.goto(`/sessions/${encodeURIComponent(id)}`);
    // The steps arrive after the page (GET /sessions/{id}/replay): a 5,000-span session's take
    // seconds on a busy machine. Wait for them, then for the whole session to have been stored.
    await expect(position(page)).toBeVisible({ timeout: 60_000 });
    await expect(position(page)).toContainText(`of ${steps.toLocaleString('en-US')}`, { timeout: 5000 });
    if (opts.ended) await expect(page.getByTestId('session-header').getByTestId('outcome')).toBeVisible({ timeout: 5000 });
  }).toPass({ timeout: 120_000 });
}

export const position = (page: Page): Locator => page.getByTestId('replay-position');
export const selected = (page: Page): Locator => page.locator('[data-testid=step][data-current=true]');

/** Selects the first step of `kind` whose text holds `text`, through the step search (Enter: next match). */
export async function goToStep(page: Page, text: string, kind: 'tool' | 'model' | 'guard' | 'span' = 'tool'): Promise<void> {
  const search = page.getByTestId('step-search');
  await search.fill(text);
  await expect(page.getByTestId('match-count')).not.toHaveText(/^0 matches$|^$/);
  const matches = Number((await page.getByTestId('match-count').textContent())?.replace(/\D/g, ''));
  for (let i = 0; i < matches; i++) {
    await search.press('Enter');
    const current = selected(page);
    if ((await current.getAttribute('data-kind')) === kind && ((await current.textContent()) ?? '') !== '') break;
  }
  await expect(selected(page)).toHaveAttribute('data-kind', kind);
  await search.press('Escape');
}
