/**
 * Writeback pacing for the embedded cluster.
 *
 * Postgres grows tables and indexes by writing zero-filled pages, and nothing flushes those
 * until the next checkpoint. Linux writes a file's dirty pages back once they are 30 s old
 * (vm.dirty_expire_centisecs), all of them at once: under ingest that is a few hundred MB in
 * one go, and every commit's WAL flush queues behind it (commits stalled 100-250 ms every 30 s
 * here). Flushing the files written since the last pass, every second, keeps writeback small
 * and steady instead. A file that is flushed loses nothing and changes nothing for Postgres:
 * the data was going to disk anyway, sooner or later.
 *
 * On a server you run yourself, lower vm.dirty_background_bytes instead (docs/collector.md).
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export interface WritebackPacer {
  /** Files flushed so far, and the last pass's paths (for tests and diagnostics). */
  readonly flushed: number;
  readonly lastFlushed: readonly string[];
  /** Stop after the pass in progress. */
  stop(): Promise<void>;
}

// One pass a second: the kernel's own flusher wakes every 5 s and waits 30 s; a second of
// ingest is ~10-25 MB of dirty pages here, a few milliseconds of disk time.
const INTERVAL_MS = 1_000;
// mtime moves with the kernel's clock tick, not with each write: look back a little further.
const MTIME_SLACK_MS = 1_000;

export function startWritebackPacer(dataDir: string, intervalMs = INTERVAL_MS): WritebackPacer {
  let stopped = false;
  let flushed = 0;
  let lastFlushed: string[] = [];
  let since = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const pass = async () => {
    const started = Date.now();
    const done: string[] = [];
    for (const dir of await relationDirs(dataDir)) {
      let names: string[];
      try {
        names = await fs.readdir(dir);
      } catch {
        continue; // a database dropped meanwhile
      }
      for (const name of names) {
        if (stopped) return;
        const file = path.join(dir, name);
        try {
          const st = await fs.stat(file);
          if (!st.isFile() || st.mtimeMs < since - MTIME_SLACK_MS) continue;
          const fh = await fs.open(file, 'r');
          try {
            await fh.datasync();
          } finally {
            await fh.close();
          }
          done.push(file);
        } catch {
          // Dropped or truncated away between readdir and open: nothing left to flush.
        }
      }
    }
    since = started;
    flushed += done.length;
    lastFlushed = done;
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = pass()
        .catch(() => {}) // an unreadable data folder: try again next time
        .finally(schedule);
    }, intervalMs);
    timer.unref();
  };
  schedule();

  return {
    get flushed() {
      return flushed;
    },
    get lastFlushed() {
      return lastFlushed;
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running.catch(() => {});
    },
  };
}

/** Folders holding relation files: one per database under base/, and global/. */
async function relationDirs(dataDir: string): Promise<string[]> {
  const base = path.join(dataDir, 'base');
  let dbs: string[] = [];
  try {
    dbs = await fs.readdir(base);
  } catch {
    return [];
  }
  return [...dbs.map((d) => path.join(base, d)), path.join(dataDir, 'global')];
}
