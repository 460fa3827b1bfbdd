/** Throwaway cluster folders left by killed processes are swept; live or young ones are not. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sweepThrowaways } from '../src/server.ts';

const root = await fs.mkdtemp(path.join(os.tmpdir(), 'gt-sweep-'));
afterAll(() => fs.rm(root, { recursive: true, force: true }));

async function folder(name: string, pid: number | null, ageMs = 0): Promise<string> {
  const base = path.join(root, name);
  const data = path.join(base, 'data');
  await fs.mkdir(data, { recursive: true });
  const t = new Date(Date.now() - ageMs);
  if (pid !== null) {
    await fs.writeFile(path.join(data, 'postmaster.pid'), `${pid}\n/some/data\n`);
    await fs.utimes(path.join(data, 'postmaster.pid'), t, t);
  }
  await fs.utimes(data, t, t);
  await fs.utimes(base, t, t);
  return base;
}

describe('sweepThrowaways', () => {
  it('removes folders whose postmaster is dead or that sat idle, and keeps running, young and foreign ones', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number; // exited: its pid is free
    const hour = 60 * 60_000;
    const killed = await folder('guardtrace-pg-killed', dead, hour);
    const running = await folder('guardtrace-pg-running', process.pid, hour);
    // initdb's single-user backend writes its pid negated.
    const initialising = await folder('guardtrace-pg-initdb', -process.pid, hour);
    // Between two of initdb's backends: a dead pid in a folder that just changed.
    const between = await folder('guardtrace-pg-between', dead);
    const starting = await folder('guardtrace-pg-starting', null);
    const abandoned = await folder('guardtrace-pg-abandoned', null, hour);
    const foreign = await folder('someone-else', null, hour);

    const removed = await sweepThrowaways(root);

    expect(removed.sort()).toEqual([abandoned, killed].sort());
    for (const kept of [running, initialising, between, starting, foreign]) await expect(fs.stat(kept)).resolves.toBeTruthy();
    await expect(fs.stat(killed)).rejects.toThrow();
  });
});
