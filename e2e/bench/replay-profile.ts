/**
 * Where a 5,000-span replay's time goes (`pnpm --filter @guardtrace/e2e run bench:replay-profile`):
 *
 * - server: the data layer's load of the session (apps/web/bench/replay-load.ts, in its own
 *   process against the same database) and the page over HTTP: time to first byte, to the last
 *   byte, bytes of HTML and of the RSC payload inlined in it;
 * - browser, navigation: Chromium's trace of one navigation until a `j` is handled, as main-thread
 *   time per trace event (self time: parse HTML, compile and run script, style, layout, paint,
 *   GC), and the moments the document, the replay's key handler and the selected row arrived;
 * - browser, stepping: the same trace over STEPS `j` presses, per step.
 *
 * Writes bench/replay-profile.json and prints a summary; docs/benchmarks.md's replay section cites it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { ROOT } from '../../scripts/system.ts';
import { startReplayBench, timeSteps } from './replay-setup.ts';

// 3 navigations: the trace is heavy; the median of 3 is enough to read a breakdown from.
const NAVS = 3;
// 60 steps: enough per-step averages without a trace too big to parse.
const STEPS = 60;
const HTTP_RUNS = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

// Marks, in the page from its first script: when the replay's keydown handler was attached
// (hydration and its effects done) and when a selected row first appeared.
const MARKS = `(() => {
  const marks = (window.__replayMarks = {});
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, ...rest) {
    if (this === window && type === 'keydown' && marks.keyHandler === undefined) marks.keyHandler = performance.now();
    return add.call(this, type, ...rest);
  };
  new MutationObserver((_, mo) => {
    if (document.querySelector('[data-testid=step][data-current=true]')) {
      marks.selectedRow = performance.now();
      mo.disconnect();
    }
  }).observe(document, { subtree: true, childList: true, attributes: true });
})()`;

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}

/** Self time (ms) per event name on the renderer's main thread, and the thread's busy time. */
function mainThreadSelfTimes(trace: Buffer): { busy: number; byName: Record<string, number> } {
  const events = (JSON.parse(trace.toString('utf8')) as { traceEvents: TraceEvent[] }).traceEvents;
  // Several renderers may have a main thread (the page's before and after navigation): take the busiest.
  const threads = events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  if (!threads.length) throw new Error('trace: no CrRendererMain thread (was the page traced?)');
  let best = { busy: 0, byName: {} as Record<string, number> };
  for (const t of threads) {
    const xs = events
      .filter((e) => e.ph === 'X' && e.pid === t.pid && e.tid === t.tid && e.dur !== undefined)
      .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
    const byName: Record<string, number> = {};
    const stack: { end: number; name: string }[] = [];
    let busy = 0;
    for (const e of xs) {
      const end = e.ts + (e.dur ?? 0);
      while (stack.length && (stack.at(-1)?.end ?? 0) <= e.ts) stack.pop();
      const parent = stack.at(-1);
      if (parent) byName[parent.name] = (byName[parent.name] ?? 0) - (e.dur ?? 0) / 1000;
      else busy += (e.dur ?? 0) / 1000;
      byName[e.name] = (byName[e.name] ?? 0) + (e.dur ?? 0) / 1000;
      stack.push({ end, name: e.name });
    }
    if (busy > best.busy) best = { busy, byName };
  }
  return best;
}

const top = (byName: Record<string, number>, n: number, per = 1) =>
  Object.entries(byName)
    .filter(([, ms]) => ms / per >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, ms]) => `${name} ${(ms / per).toFixed(1)}`);

async function firstKeyHandled(page: Page, url: string): Promise<number> {
  const t0 = Date.now();
  await page.goto(url, { waitUntil: 'commit' });
  for (;;) {
    await page.keyboard.press('j').catch(() => undefined);
    const step = await page
      .locator('[data-testid=step][data-current=true]')
      .getAttribute('data-step', { timeout: 50 })
      .catch(() => null);
    if (step !== null && Number(step) > 2) return Date.now() - t0;
    if (Date.now() - t0 > 60_000) throw new Error(`${url}: no key handled within 60 s`);
  }
}

const bench = await startReplayBench({ build: process.argv.includes('--build') });
try {
  const { system, context, url } = bench;
  const sessionId = decodeURIComponent(new URL(url('large')).pathname.split('/').at(-1) ?? '');

  // Server: the data layer alone, in its own process against the same database.
  const load = spawnSync(
    'pnpm',
    ['--filter', '@guardtrace/web', 'exec', 'tsx', '--conditions=react-server', 'bench/replay-load.ts', system.databaseUrl, system.projectId, sessionId],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (load.status !== 0) throw new Error(`replay-load.ts failed (exit ${load.status}): ${load.stderr}`);
  const dataLayer = JSON.parse(load.stdout.trim().split('\n').at(-1) ?? '{}');

  // Server: the page over HTTP, as the browser gets it.
  const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const http = { ttfb: [] as number[], total: [] as number[], htmlBytes: 0, flightBytes: 0, rscTotal: [] as number[], rscBytes: 0 };
  for (let i = 0; i < HTTP_RUNS; i++) {
    const t = performance.now();
    const res = await fetch(url('large'), { headers: { cookie } });
    const reader = res.body?.getReader();
    let first = 0;
    const chunks: Uint8Array[] = [];
    for (;;) {
      const r = await reader?.read();
      if (!r || r.done) break;
      if (!first) first = performance.now() - t;
      chunks.push(r.value);
    }
    http.ttfb.push(first);
    http.total.push(performance.now() - t);
    const html = Buffer.concat(chunks).toString('utf8');
    http.htmlBytes = Buffer.byteLength(html);
    http.flightBytes = [...html.matchAll(/<script>self\.__next_f\.push\((.*?)\)<\/script>/gs)].reduce((n, m) => n + Buffer.byteLength(m[1] ?? ''), 0);
    const r2 = performance.now();
    const rsc = await fetch(url('large'), { headers: { cookie, RSC: '1' } });
    http.rscBytes = Buffer.byteLength(await rsc.text());
    http.rscTotal.push(performance.now() - r2);
  }

  // Browser: navigation until the first handled key, traced.
  const page = await context.newPage();
  await page.addInitScript(MARKS);
  const navs: Record<string, unknown>[] = [];
  for (let i = 0; i < NAVS; i++) {
    await page.goto('about:blank');
    await bench.browser.startTracing(page, { categories: ['devtools.timeline', 'v8.execute', 'disabled-by-default-devtools.timeline'] });
    const interactive = await firstKeyHandled(page, url('large'));
    const trace = await bench.browser.stopTracing();
    const marks = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      const m = (window as unknown as { __replayMarks: Record<string, number> }).__replayMarks;
      const mem = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
      return {
        responseStart: nav.responseStart,
        responseEnd: nav.responseEnd,
        domInteractive: nav.domInteractive,
        domContentLoaded: nav.domContentLoadedEventEnd,
        load: nav.loadEventEnd,
        keyHandler: m.keyHandler ?? null,
        selectedRow: m.selectedRow ?? null,
        // The steps' JSON (GET /sessions/{id}/replay): when it was asked for and when it had arrived.
        data: performance
          .getEntriesByType('resource')
          .filter((r) => new URL(r.name).pathname.endsWith('/replay'))
          .map((r) => {
            const t = r as PerformanceResourceTiming;
            return { start: t.startTime, responseStart: t.responseStart, responseEnd: t.responseEnd, kiB: t.encodedBodySize / 1024, initiator: t.initiatorType };
          }),
        domNodes: document.getElementsByTagName('*').length,
        heapMiB: mem ? mem.usedJSHeapSize / 2 ** 20 : null,
      };
    });
    const main = mainThreadSelfTimes(trace);
    navs.push({ interactive, ...marks, mainThreadBusy: main.busy, top: top(main.byName, 14) });
    console.log(`navigation ${i + 1}: first key handled at ${interactive} ms`, marks);
  }

  // Browser: stepping, traced.
  await page.goto(url('large'));
  await page.locator('[data-testid=step][data-current=true]').waitFor();
  await bench.browser.startTracing(page, { categories: ['devtools.timeline', 'v8.execute', 'disabled-by-default-devtools.timeline'] });
  const stepTimes = await timeSteps(page, STEPS);
  const stepTrace = mainThreadSelfTimes(await bench.browser.stopTracing());

  const result = {
    date: new Date().toISOString(),
    spans: bench.spans,
    dataLayer,
    http: {
      ttfbMs: median(http.ttfb),
      lastByteMs: median(http.total),
      htmlKiB: http.htmlBytes / 1024,
      inlinedRscKiB: http.flightBytes / 1024,
      rscRequestMs: median(http.rscTotal),
      rscRequestKiB: http.rscBytes / 1024,
    },
    navigation: navs,
    steps: {
      selectionMedianMs: median(stepTimes.selection),
      detailMedianMs: median(stepTimes.detail),
      mainThreadBusyPerStepMs: stepTrace.busy / STEPS,
      topPerStepMs: top(stepTrace.byName, 14, STEPS),
    },
  };
  console.log(JSON.stringify(result, null, 2));
  fs.writeFileSync(path.join(import.meta.dirname, 'replay-profile.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log('wrote bench/replay-profile.json');
} finally {
  await bench.stop();
}
