/**
 * Throwaway clusters (tests, benchmarks): each in a fresh `$TMPDIR/guardtrace-pg-*` folder,
 * deleted on stop. A process killed before its stop() leaves the folder behind, and often its
 * postmaster still running as an orphan: the next throwaway start sweeps both away.
 */
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type RunningPostgres, startEmbeddedPostgres } from './embedded.ts';
import { type ClusterTemplate, copyTemplateCluster, filesystemNow } from './template.ts';

const THROWAWAY_PREFIX = 'guardtrace-pg-';
/** The pid of the process that started the folder's cluster. */
const OWNER_FILE = 'owner.pid';
// A folder without a known owner and without a running server is left alone this long: it
// may be a cluster being initialised (folders made before owner files existed).
const THROWAWAY_GRACE_MS = 10 * 60_000;
// Fast shutdown takes well under a second on an idle throwaway; 10 s leaves room for a busy one.
const STOP_WAIT_MS = 10_000;

/**
 * Remove throwaway cluster folders that a killed process left behind (a test or benchmark that
 * got SIGKILL never runs its stop()). Returns the folders removed.
 *
 * - Its owner (the process that started it) is alive: kept.
 * - Its owner is dead: nothing uses the cluster any more. A postmaster still running in it is
 *   an orphan: it is stopped (fast shutdown) when /proc shows it is that folder's postmaster,
 *   and the folder is removed.
 * - No owner file: removed when no live postmaster holds it and it has not changed for ten
 *   minutes (initdb runs several backends one after the other: between them none is live).
 */
export async function sweepThrowaways(root = os.tmpdir(), now?: number): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = await fs.readdir(root);
  } catch {
    return removed;
  }
  // Folder ages are read from mtimes, which the filesystem stamps with the kernel's clock: read
  // "now" from that same clock (a file written here now), not the process' (which may be skewed).
  const fsNow = now ?? (await filesystemNow(root));
  for (const name of names) {
    if (!name.startsWith(THROWAWAY_PREFIX)) continue;
    const base = path.join(root, name);
    const data = path.join(base, 'data');
    const pidFile = path.join(data, 'postmaster.pid');
    try {
      const owner = Number((await fs.readFile(path.join(base, OWNER_FILE), 'utf8').catch(() => '')).trim());
      const ownerKnown = Number.isInteger(owner) && owner > 0;
      if (ownerKnown && isAlive(owner)) continue;
      // A single-user backend (initdb's) writes its pid negated.
      const pidText = await fs.readFile(pidFile, 'utf8').catch(() => null);
      const pid = pidText === null ? 0 : Number(pidText.split('\n')[0]);
      if (isAlive(Math.abs(pid))) {
        if (!ownerKnown || pid < 0 || !isPostmasterOf(pid, data)) continue;
        if (!(await stopOrphan(pid))) continue;
      } else if (!ownerKnown) {
        let changed = 0;
        for (const p of [base, data, pidFile]) {
          const st = await fs.stat(p).catch(() => null);
          if (st) changed = Math.max(changed, st.mtimeMs);
        }
        if (fsNow - changed < THROWAWAY_GRACE_MS) continue;
      }
      await fs.rm(base, { recursive: true, force: true });
      removed.push(base);
    } catch {
      // Gone already, or not ours to remove: leave it.
    }
  }
  return removed;
}

/**
 * A throwaway cluster in a fresh temporary folder, deleted on stop (and by a later sweep if
 * killed). With `template`, it starts from a copy of a cluster prepared once per template key
 * (template.ts), instead of running initdb (and the template's preparation) every time.
 */
export async function startThrowawayPostgres(opts: { template?: ClusterTemplate } = {}): Promise<RunningPostgres> {
  const base = await throwawayFolder();
  const dataDir = path.join(base, 'data');
  const copied = opts.template ? await copyTemplateCluster(opts.template, dataDir) : false;
  const server = await startEmbeddedPostgres({ dataDir, persistent: false });
  // Where no copy could be made, the new cluster gets what the template would have had.
  if (opts.template && !copied) await opts.template.prepare(server.url);
  return {
    ...server,
    stop: async () => {
      await server.stop();
      await fs.rm(base, { recursive: true, force: true });
    },
  };
}

/**
 * A fresh throwaway folder (after sweeping those killed processes left): the cluster goes in its
 * `data` subfolder, and the folder records this process as its owner, so a later sweep removes it
 * (stopping an orphaned postmaster first) once this process is gone.
 */
export async function throwawayFolder(): Promise<string> {
  await sweepThrowaways();
  const base = await fs.mkdtemp(path.join(os.tmpdir(), THROWAWAY_PREFIX));
  await fs.writeFile(path.join(base, OWNER_FILE), String(process.pid));
  await fs.chmod(base, 0o755);
  return base;
}

/** A live process (a zombie, exited but not reaped, is not). */
function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: alive, owned by another user (the postgres OS user when we run as root).
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S ...", the state after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (macOS): kill(0) is all there is
  }
}

/**
 * Whether `pid` is a postgres server started on `dataDir` (a recycled pid is some other
 * process: it must never be signalled). Only where /proc tells; elsewhere orphans stay.
 */
function isPostmasterOf(pid: number, dataDir: string): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const d = argv.indexOf('-D');
    return path.basename(argv[0] ?? '') === 'postgres' && d > 0 && argv[d + 1] === dataDir;
  } catch {
    return false;
  }
}

/** Fast shutdown (SIGINT), then immediate (SIGQUIT) if it lingers; true once it has exited. */
async function stopOrphan(pid: number): Promise<boolean> {
  for (const signal of ['SIGINT', 'SIGQUIT'] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return !isAlive(pid);
    }
    for (let waited = 0; waited < STOP_WAIT_MS; waited += 100) {
      if (!isAlive(pid)) return true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return !isAlive(pid);
}
