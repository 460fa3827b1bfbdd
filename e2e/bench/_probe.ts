import { startReplayBench } from './replay-setup.ts';
const bench = await startReplayBench({ build: false });
try {
  const page = await bench.context.newPage();
  for (const kind of ['small', 'small', 'small', 'large', 'large'] as const) {
    const t0 = Date.now();
    await page.goto(bench.url(kind), { waitUntil: 'commit' });
    await page.locator('[data-testid=step][data-current=true]').waitFor();
    const sel = Date.now() - t0;
    const info = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      const res = performance.getEntriesByType('resource').map((r) => { const x = r as PerformanceResourceTiming; return `${x.initiatorType} ${x.name.split('/').slice(-1)[0]!.slice(0, 40)} start=${x.startTime.toFixed(0)} end=${x.responseEnd.toFixed(0)} ${(x.encodedBodySize / 1024).toFixed(0)}KiB`; });
      return { respEnd: nav.responseEnd.toFixed(0), domInteractive: nav.domInteractive.toFixed(0), dcl: nav.domContentLoadedEventEnd.toFixed(0), load: nav.loadEventEnd.toFixed(0), now: performance.now().toFixed(0), res };
    });
    console.log(kind, 'selected row at', sel, JSON.stringify(info, null, 1));
  }
} finally { await bench.stop(); }
