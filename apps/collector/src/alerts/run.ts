/**
 * The alerts' timer in a collector process (main.ts): every interval, one tick (evaluate.ts) on
 * its own small pool; ticks never overlap. Every collector runs it; the advisory lock makes one
 * of them do the work each time.
 */
import pg from 'pg';
import { runAlertTick } from './evaluate.ts';

export interface AlertsOptions {
  databaseUrl: string;
  intervalMs: number;
  webUrl: string | null;
  warn: (msg: string, err: Error) => void;
}

export function startAlerts(opts: AlertsOptions): { stop: () => Promise<void> } {
  // 2 connections: the tick's own (which holds the lock), and one spare for a stop while it runs.
  const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 2 });
  pool.on('error', () => {});
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = runAlertTick(pool, { now: new Date(), webUrl: opts.webUrl })
        .then((r) => {
          for (const e of r.errors) opts.warn(`alert rule ${e.ruleId} not evaluated; the next run retries`, new Error(e.message));
        })
        .catch((err) => opts.warn('alert evaluation failed; the next run retries', err as Error))
        .finally(() => {
          running = null;
          schedule();
        });
    }, opts.intervalMs);
    timer.unref();
  };
  schedule();
  return {
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      await pool.end().catch(() => {});
    },
  };
}
