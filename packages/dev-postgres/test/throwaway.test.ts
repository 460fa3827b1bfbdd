/** Throwaway cluster folders left by killed processes are swept; live or young ones are not. */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { sweepThrowaways } from '../src/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

const root = await fs.mkdtemp(path.join(os.tmpdir(), 'gt-sweep-'));
afterAll(() => fs.rm(root, { recursive: true, force: true }));

// The sweep's clock in the first test: a fixed date, with every folder's times set from it, so
// the test answers the same on any day.
const NOW = Date.parse('2031-03-15T12:00:00Z');

async function folder(name: string, pid: number | null, ageMs = 0, owner?: number): Promise<string> {
  const base = path.join(root, name);
  const data = path.join(base, 'data');
  await fs.mkdir(data, { recursive: true });
  const t = new Date(NOW - ageMs);
  if (owner !== undefined) await fs.writeFile(path.join(base, 'owner.pid'), String(owner));
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
    // With an owner file: the owner's life decides, whatever the age.
    const owned = await folder('guardtrace-pg-owned', dead, hour, process.pid);
    const ownerGone = await folder('guardtrace-pg-owner-gone', null, 0, dead);
    // Owner gone and postmaster.pid naming a live process that is not a postgres of this
    // folder (a recycled pid, here this very test): never signalled, kept.
    const recycled = await folder('guardtrace-pg-recycled', process.pid, hour, dead);

    const removed = await sweepThrowaways(root, NOW);

    expect(removed.sort()).toEqual([abandoned, killed, ownerGone].sort());
    for (const kept of [running, initialising, between, starting, foreign, owned, recycled]) {
      await expect(fs.stat(kept)).resolves.toBeTruthy();
    }
    await expect(fs.stat(killed)).rejects.toThrow();
  });

  it("judges idle folders by the filesystem's clock, not the process' (which a test or a host may skew)", async () => {
    // The date matrix runs this file under a faked process clock, a year or more away from the
    // kernel's, which stamps mtimes: ages read against the process clock would be that far off.
    const own = await fs.mkdtemp(path.join(os.tmpdir(), 'gt-sweep-clock-'));
    try {
      const probe = path.join(own, 'probe');
      await fs.writeFile(probe, '');
      const fsNow = (await fs.stat(probe)).mtimeMs;
      const fresh = path.join(own, 'guardtrace-pg-fresh');
      await fs.mkdir(path.join(fresh, 'data'), { recursive: true });
      const idle = path.join(own, 'guardtrace-pg-idle');
      await fs.mkdir(path.join(idle, 'data'), { recursive: true });
      const hourAgo = new Date(fsNow - 60 * 60_000);
      await fs.utimes(path.join(idle, 'data'), hourAgo, hourAgo);
      await fs.utimes(idle, hourAgo, hourAgo);

      expect(await sweepThrowaways(own)).toEqual([idle]);
      await expect(fs.stat(fresh)).resolves.toBeTruthy();
    } finally {
      await fs.rm(own, { recursive: true, force: true });
    }
  });

  it('stops the postmaster that a killed process left running, then removes its folder', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'fixtures/hold-throwaway.ts')], {
      cwd: path.resolve(here, '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // Its line with the URL (anything else it prints first is skipped).
    let out = '';
    for await (const chunk of child.stdout) {
      out += String(chunk);
      if (/^\{"url".*\}$/m.test(out)) break;
    }
    const { url } = JSON.parse(/^\{"url".*\}$/m.exec(out)?.[0] ?? '{}') as { url: string };
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const dataDir = (await client.query<{ d: string }>('SELECT current_setting($1) AS d', ['data_directory'])).rows[0]?.d as string;
    await client.end();
    const postmaster = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);

    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(running(postmaster)).toBe(true); // orphaned, still serving

    const removed = await sweepThrowaways();

    expect(removed).toContain(path.dirname(dataDir));
    expect(running(postmaster)).toBe(false);
    await expect(fs.stat(dataDir)).rejects.toThrow();
  });
});

/** Alive and not a zombie (an orphan's exit is reaped by whichever process adopted it). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}
