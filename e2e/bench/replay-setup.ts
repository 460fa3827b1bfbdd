/**
 * The replay benchmarks' system: the production build with a throwaway database, a 5,000-span
 * session and a 9-step one sent by a real SDK agent through the collector, and Chromium signed
 * in as the owner (the way `npm start`'s one-time link does it). Shared by replay.ts (timings)
 * and replay-profile.ts (where the time goes).
 */
import fs from 'node:fs';
import { freePort } from '@guardtrace/db/dev';
import { type Browser, type BrowserContext, chromium } from '@playwright/test';
import { type RunningSystem, startSystem } from '../../scripts/system.ts';
import { runReplayAgent } from '../replay-agent.ts';

// 720 cycles of 7 spans and the root: 5,041 spans (2,160 steps); 3 cycles: 9 steps.
export const LARGE_CYCLES = 720;
export const SMALL_CYCLES = 3;
const systemChromium = '/usr/bin/chromium';

export interface ReplayBench {
  system: RunningSystem;
  browser: Browser;
  /** Signed in as the project's owner. */
  context: BrowserContext;
  url: (kind: 'large' | 'small') => string;
  /** The large session's span count, as its header shows it (e.g. "5,041"). */
  spans: string;
  stop: () => Promise<void>;
}

export async function startReplayBench(opts: { build: boolean }): Promise<ReplayBench> {
  const system = await startSystem({
    throwaway: true,
    collectorPort: await freePort(),
    webPort: await freePort(),
    demo: 'never',
    build: opts.build,
    log: () => undefined,
    childOutput: () => undefined,
  });
  let browser: Browser | null = null;
  try {
    browser = await chromium.launch({ executablePath: fs.existsSync(systemChromium) ? systemChromium : undefined, args: ['--no-sandbox', '--disable-gpu'] });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const signIn = await context.request.get(system.signInUrl, { maxRedirects: 0 });
    if (signIn.status() !== 302) throw new Error(`sign-in link ${system.signInUrl}: HTTP ${signIn.status()}, expected a 302 to /sessions`);
    const sessions = { large: `bench-large-${Date.now()}`, small: `bench-small-${Date.now()}` };
    const agent = { endpoint: system.collectorUrl, apiKey: system.createdApiKey ?? '' };
    await runReplayAgent({ ...agent, sessionId: sessions.small, cycles: SMALL_CYCLES, unlimited: true });
    await runReplayAgent({ ...agent, sessionId: sessions.large, cycles: LARGE_CYCLES, unlimited: true });
    const url = (kind: 'large' | 'small') => `${system.webUrl}/sessions/${sessions[kind]}`;
    // Wait until the collector has stored the whole large session.
    const page = await context.newPage();
    const started = Date.now();
    for (;;) {
      await page.goto(url('large'));
      const text = await page.getByTestId('replay-position').textContent({ timeout: 30_000 }).catch(() => '');
      if (text?.endsWith(`of ${(LARGE_CYCLES * 3).toLocaleString('en-US')}`)) break;
      if (Date.now() - started > 300_000) throw new Error(`${url('large')}: the whole session was not stored within 5 minutes (last seen: "${text}")`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const spans = (await page.getByTestId('session-spans').textContent()) ?? '?';
    await page.close();
    const b = browser;
    return {
      system,
      browser: b,
      context,
      url,
      spans,
      stop: async () => {
        await b.close();
        await system.stop();
      },
    };
  } catch (err) {
    await browser?.close();
    await system.stop();
    throw err;
  }
}
