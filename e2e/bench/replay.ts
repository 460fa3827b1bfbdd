/**
 * The replay in Chromium on a 5,000-span session, beside a 9-step session in the same run:
 *
 * - interactive: from `page.goto` until a `j` key press is handled (the selection moves), i.e.
 *   the server load, the page's transfer, hydration and the first step. Keys pressed before the
 *   page handles them are lost, as they are for a user. Median of RUNS fresh navigations, the
 *   large session both opened after it changed (its row moved as a new batch moves it: the
 *   steps are rebuilt) and reopened unchanged (the browser's copy is revalidated: a 304).
 * - step: from dispatching a `j` keydown in the page until the frame after the new selection is
 *   in the DOM (a MutationObserver, then requestAnimationFrame), and until the frame after the
 *   detail pane shows the new step (it renders just after the selection), over STEPS steps.
 *
 * The sessions come from a real SDK agent through the collector (e2e/replay-agent.ts) into a
 * throwaway database, and Chromium is signed in as the owner (replay-setup.ts). Writes
 * bench/replay-results.json, merged into docs/benchmarks.md by `pnpm bench`. Where the time goes:
 * replay-profile.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import type { Page } from '@playwright/test';
import { LARGE_CYCLES, SMALL_CYCLES, STEPS_PER_CYCLE, startReplayBench, timeSteps } from './replay-setup.ts';

// 5 navigations a session: a median on a noisy shared 2-core machine in well under a minute.
const RUNS = 5;
// 200 steps: enough for a p95 that is not one outlier.
const STEPS = 200;
const INTERACTIVE_TARGET_MS = 1000;
const STEP_TARGET_MS = 50;

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? Number.NaN;

async function timeInteractive(page: Page, url: string): Promise<number> {
  const t0 = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  for (;;) {
    await page.keyboard.press('j').catch(() => undefined);
    const step = await page
      .locator('[data-testid=step][data-current=true]')
      .getAttribute('data-step', { timeout: 50 })
      .catch(() => null);
    // Opened on step 2 (the first failure): a handled `j` selects step 3.
    if (step !== null && Number(step) > 2) return performance.now() - t0;
    if (performance.now() - t0 > 60_000) throw new Error(`${url}: no key handled within 60 s`);
  }
}

// The machine is shared: its 1-minute load average at the start and end is part of the result.
const loadAtStart = os.loadavg()[0] ?? Number.NaN;
const bench = await startReplayBench({ build: true });
try {
  const { url, spans } = bench;
  const page = await bench.context.newPage();

  // One warm-up round first, as web-scale's warm-up requests: the server's first builds run
  // before the JIT has compiled them (1.5-1.9 s for the large session in a cold run against
  // ~0.9-1.2 s after). Printed, not counted: a production server is warm.
  const warm: number[] = [];
  for (const [kind, touch] of [['small', true], ['large', true], ['large', false]] as const) {
    if (touch) await bench.touch(kind);
    warm.push(await timeInteractive(page, url(kind)));
  }
  console.log(`warm-up (not counted): small ${warm[0]?.toFixed(0)} ms, large ${warm[1]?.toFixed(0)} ms, large reopened ${warm[2]?.toFixed(0)} ms`);

  const interactive: Record<'small' | 'large' | 'reopened', number[]> = { small: [], large: [], reopened: [] };
  for (let i = 0; i < RUNS; i++) {
    await bench.touch('small');
    interactive.small.push(await timeInteractive(page, url('small')));
    await bench.touch('large');
    interactive.large.push(await timeInteractive(page, url('large')));
    interactive.reopened.push(await timeInteractive(page, url('large')));
    console.log(
      `run ${i + 1}: small ${interactive.small.at(-1)?.toFixed(0)} ms, large ${interactive.large.at(-1)?.toFixed(0)} ms, large reopened ${interactive.reopened.at(-1)?.toFixed(0)} ms`,
    );
  }
  await page.goto(url('large'));
  await page.locator('[data-testid=step][data-current=true]').waitFor();
  const steps = await timeSteps(page, STEPS);
  await page.goto(url('small'));
  await page.locator('[data-testid=step][data-current=true]').waitFor();
  const smallSteps = await timeSteps(page, SMALL_CYCLES * STEPS_PER_CYCLE - 2);

  const med = { small: quantile(interactive.small, 0.5), large: quantile(interactive.large, 0.5), reopened: quantile(interactive.reopened, 0.5) };
  const p95 = { selection: quantile(steps.selection, 0.95), detail: quantile(steps.detail, 0.95) };
  const spread = (xs: number[]) => `${quantile(xs, 0.5).toFixed(1)} / ${quantile(xs, 0.95).toFixed(1)} / ${Math.max(...xs).toFixed(1)} ms`;
  const rows = [
    {
      benchmark: `replay, ${spans} spans (${(LARGE_CYCLES * STEPS_PER_CYCLE).toLocaleString('en-US')} steps)`,
      metric: `opened after it changed (steps rebuilt): navigation to first key handled, median of ${RUNS} (min / max)`,
      value: `${med.large.toFixed(0)} ms (${Math.min(...interactive.large).toFixed(0)} / ${Math.max(...interactive.large).toFixed(0)})`,
      target: `<= ${INTERACTIVE_TARGET_MS} ms`,
      pass: med.large <= INTERACTIVE_TARGET_MS,
    },
    {
      benchmark: `replay, ${spans} spans (${(LARGE_CYCLES * STEPS_PER_CYCLE).toLocaleString('en-US')} steps)`,
      metric: `reopened unchanged (steps revalidated, 304): navigation to first key handled, median of ${RUNS} (min / max)`,
      value: `${med.reopened.toFixed(0)} ms (${Math.min(...interactive.reopened).toFixed(0)} / ${Math.max(...interactive.reopened).toFixed(0)})`,
      target: `<= ${INTERACTIVE_TARGET_MS} ms`,
      pass: med.reopened <= INTERACTIVE_TARGET_MS,
    },
    {
      benchmark: 'replay, 9-step session (same run)',
      metric: `opened after it changed: navigation to first key handled, median of ${RUNS}; large / small ratio`,
      value: `${med.small.toFixed(0)} ms; ratio ${(med.large / med.small).toFixed(2)}×`,
      target: '(reported)',
      pass: true,
    },
    {
      benchmark: `replay, ${spans} spans`,
      metric: `one step (j) to the frame with the selection moved, median / p95 / max of ${STEPS}`,
      value: spread(steps.selection),
      target: `p95 <= ${STEP_TARGET_MS} ms`,
      pass: p95.selection <= STEP_TARGET_MS,
    },
    {
      benchmark: `replay, ${spans} spans`,
      metric: `one step (j) to the frame with the step's detail shown, median / p95 / max of ${STEPS}`,
      value: spread(steps.detail),
      target: `p95 <= ${STEP_TARGET_MS} ms`,
      pass: p95.detail <= STEP_TARGET_MS,
    },
    {
      benchmark: 'replay, 9-step session (same run)',
      metric: 'one step (j) to the detail shown, median; large / small ratio',
      value: `${quantile(smallSteps.detail, 0.5).toFixed(1)} ms; ratio ${(quantile(steps.detail, 0.5) / quantile(smallSteps.detail, 0.5)).toFixed(2)}×`,
      target: '(reported)',
      pass: true,
    },
  ];
  console.table(rows);
  fs.writeFileSync(
    new URL('./replay-results.json', import.meta.url),
    `${JSON.stringify(
      {
        method:
          'Chromium (Playwright, headless) against the production build with a throwaway embedded Postgres; sessions sent by a real SDK agent through the collector (e2e/replay-agent.ts). Interactive: from page.goto until a pressed `j` moves the selection (server load + transfer + hydration), median of fresh navigations after one uncounted warm-up round (printed in the log), the small session, the large one after its row moved (as a new batch moves it: steps rebuilt) and the large one reopened unchanged (steps revalidated: 304) in turn in one run. Step: a `j` keydown dispatched in the page until the frame after the new selection is in the DOM, and until the frame after the detail pane shows the new step (it renders just after the selection, a deferred value); the next key once the detail shows.',
        date: new Date().toISOString(),
        machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}; 1-minute load average ${loadAtStart.toFixed(1)} at the start, ${(os.loadavg()[0] ?? Number.NaN).toFixed(1)} at the end`,
        rows,
      },
      null,
      2,
    )}\n`,
  );
  console.log('wrote bench/replay-results.json');
} finally {
  await bench.stop();
}
