/** The processes of a throwaway Postgres cluster, to freeze (SIGSTOP) and thaw (SIGCONT) it. */
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';

/** The postmaster of the test's own cluster (from its pid file) and all its children. */
export async function clusterPids(sql: pg.Pool): Promise<number[]> {
  const dir = (await sql.query<{ d: string }>('SELECT current_setting($1) AS d', ['data_directory'])).rows[0]?.d as string;
  const postmaster = Number(fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        // Field 4 of /proc/<pid>/stat is the parent pid (after "pid (comm) state").
        const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

/** Sends `sig` to each of `pids` that still runs. */
export const signalAll = (pids: number[], sig: NodeJS.Signals) => {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {}
  }
};
