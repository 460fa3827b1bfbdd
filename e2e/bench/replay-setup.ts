/**
 * The replay benchmarks' system: the production build with a throwaway database, a 5,000-span
 * session and a 12-step one sent by a real SDK agent through the collector, and Chromium signed
 * in as the owner (the way `npm start`'s one-time link does it). Shared by replay.ts (timings)
 * and replay-profile.ts (where the time goes).
 */
import fs from 'node:fs';
import { createPrisma } from '@guardtrace/db';
import { freePort } from '@guardtrace/db/dev';
import { type Browser, type BrowserContext, chromium, type Page } from '@playwright/test';
import { type RunningSystem, startSystem } from '../../scripts/system.ts';
import { runReplayAgent } from '../replay-agent.ts';
import { sendLargeSeededSession } from '../seeded-session.ts';

// 720 cycles of 7 spans and the root: 5,041 spans (2,880 steps); 3 cycles: 12 steps. A cycle is
// 4 steps: a model turn, the waiting call's failed attempt, the repair turn, the corrected attempt.
export const LARGE_CYCLES = 720;
export const SMALL_CYCLES = 3;
export const STEPS_PER_CYCLE = 4;
const SPANS_PER_CYCLE = 7;
const VIEWPORT = { width: 1440, height: 900 };
const systemChromium = '/usr/bin/chromium';

/** The sessions measured: the agent's 12-step and 5,041-span ones, and the seed's large one (escalations, every class). */
export type BenchSession = 'large' | 'small' | 'seeded';

export interface ReplayBench {
  system: RunningSystem;
  browser: Browser;
  /** Signed in as the project's owner. */
  context: BrowserContext;
  /** A new context signed in as the owner and nothing else cached: a colleague opening a shared link. */
  freshContext: () => Promise<BrowserContext>;
  url: (kind: BenchSession) => string;
  /** The steps JSON's URL (`GET /sessions/{id}/replay`), as the page requests it. */
  dataUrl: (kind: BenchSession) => string;
  /**
   * Moves the session's row as the collector's next batch would (its `updated_at`): the
   * browser's copy of the steps no longer matches, so the next open rebuilds them.
   */
  touch: (kind: BenchSession) => Promise<void>;
  /** The large session's span count, as its header shows it (e.g. "5,041"). */
  spans: string;
  /** The seeded session's span count and escalations, as its page shows them. */
  seeded: { spans: string; escalations: string };
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
    const context = await browser.newContext({ viewport: VIEWPORT });
    const signIn = await context.request.get(system.signInUrl, { maxRedirects: 0 });
    if (signIn.status() !== 302) throw new Error(`sign-in link ${system.signInUrl}: HTTP ${signIn.status()}, expected a 302 to /sessions`);
    const agent = { endpoint: system.collectorUrl, apiKey: system.createdApiKey ?? '' };
    const seededSession = await sendLargeSeededSession(agent.endpoint, agent.apiKey);
    const sessions: Record<BenchSession, string> = { large: `bench-large-${Date.now()}`, small: `bench-small-${Date.now()}`, seeded: seededSession.id };
    await runReplayAgent({ ...agent, sessionId: sessions.small, cycles: SMALL_CYCLES, unlimited: true });
    await runReplayAgent({ ...agent, sessionId: sessions.large, cycles: LARGE_CYCLES, unlimited: true });
    const url = (kind: BenchSession) => `${system.webUrl}/sessions/${encodeURIComponent(sessions[kind])}`;
    const dataUrl = (kind: BenchSession) => `${url(kind)}/replay?project=${system.projectId}`;
    // Wait until the collector has stored the whole large session (its root, which ends last, and every span).
    const page = await context.newPage();
    const started = Date.now();
    const wanted = (LARGE_CYCLES * SPANS_PER_CYCLE + 1).toLocaleString('en-US');
    for (;;) {
      await page.goto(url('large'));
      await page.getByTestId('replay-position').waitFor({ timeout: 30_000 }).catch(() => undefined);
      const text = await page.getByTestId('session-spans').textContent({ timeout: 1000 }).catch(() => '');
      if (text === wanted) break;
      if (Date.now() - started > 300_000) throw new Error(`${url('large')}: the whole session was not stored within 5 minutes (${text} of ${wanted} spans)`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const spans = (await page.getByTestId('session-spans').textContent()) ?? '?';
    await page.goto(url('seeded'));
    await page.getByTestId('replay-position').waitFor({ timeout: 60_000 });
    const seeded = {
      spans: (await page.getByTestId('session-spans').textContent()) ?? '?',
      escalations: ((await page.getByTestId('escalation-summary').textContent().catch(() => null)) ?? 'no escalation summary').replace(/\s+/g, ' ').trim(),
    };
    await page.close();
    const state = await context.storageState();
    const b = browser;
    const prisma = createPrisma(system.databaseUrl, { max: 1 });
    return {
      system,
      browser: b,
      context,
      freshContext: () => b.newContext({ viewport: VIEWPORT, storageState: state }),
      url,
      dataUrl,
      touch: async (kind) => {
        await prisma.$executeRaw`UPDATE sessions SET updated_at = now() WHERE id = ${sessions[kind]}`;
      },
      spans,
      seeded,
      stop: async () => {
        await prisma.$disconnect();
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

export interface StepTimes {
  /** From the `j` keydown until the frame after the list's selection moved. */
  selection: number[];
  /** From the same keydown until the frame after the detail pane shows the new step. */
  detail: number[];
}

// Runs in the page as source text: tsx's name-keeping helper (`__name`) does not exist there.
// The detail pane renders just after the selection (a deferred value), so a step is timed to
// both; the next key is pressed once the pane shows the step, as a reader stepping through would.
const STEP_SCRIPT = `async (count) => {
  const current = () => document.querySelector('[data-testid=step][data-current=true]')?.getAttribute('data-step');
  const shown = () => document.querySelector('[data-testid=step-detail] > [data-step]')?.getAttribute('data-step');
  const frame = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
  const selection = [];
  const detail = [];
  for (let i = 0; i < count; i++) {
    const before = current();
    const t = performance.now();
    let selected;
    let detailed;
    const sel = new Promise((r) => { selected = r; });
    const det = new Promise((r) => { detailed = r; });
    let moved = false;
    const mo = new MutationObserver(() => {
      const now = current();
      if (now === before) return;
      if (!moved) {
        moved = true;
        frame().then(selected);
      }
      if (shown() === now) {
        mo.disconnect();
        frame().then(detailed);
      }
    });
    mo.observe(document.body, { subtree: true, attributes: true, childList: true });
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'j', bubbles: true }));
    const [a, b] = await Promise.all([sel, det]);
    selection.push(a - t);
    detail.push(b - t);
  }
  return { selection, detail };
}`;

/** `count` steps forward with `j` in `page` (at a step of the steps view), each timed. */
export async function timeSteps(page: Page, count: number): Promise<StepTimes> {
  return page.evaluate(`(${STEP_SCRIPT})(${count})`) as Promise<StepTimes>;
}
