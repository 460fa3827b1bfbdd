/**
 * Starts the whole Guardtrace system: database (DATABASE_URL or embedded), migrations,
 * default project and key, the first owner account, collector, web app, and optionally the
 * demo agent. Used by
 * `pnpm start` (fixed ports) and by the end-to-end tests (free ports, throwaway database).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createApiKey,
  createPrisma,
  createProject,
  createSignInLink,
  ensureOwner,
  type PrismaClient,
  revokeApiKey,
  signInLinkPath,
} from '@guardtrace/db';
import { createTestDatabase, type Database, ensureDatabase, startAuthSecret } from '@guardtrace/db/dev';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The collector's production build (apps/collector/scripts/build.mjs). */
const COLLECTOR_MAIN = path.join(ROOT, 'apps/collector/dist/main.js');
/** The web app's production launcher beside Next's standalone server (apps/web/scripts/serve.ts). */
export const WEB_SERVE = path.join(ROOT, 'apps/web/.next/standalone/apps/web/serve.mjs');

export interface SystemOptions {
  /** Use this database instead of DATABASE_URL / the embedded default. */
  databaseUrl?: string;
  /** Start a throwaway database (tests). */
  throwaway?: boolean;
  dataDir?: string;
  collectorPort: number;
  webPort: number;
  host?: string;
  /** Run the demo agent: always, never, or only when the project has no sessions yet. */
  demo: 'always' | 'never' | 'auto';
  /** Build the collector and the web app first (turbo caches them). */
  build?: boolean;
  log?: (line: string) => void;
  /** Where the children's output goes (default: this process' stdout, prefixed). */
  childOutput?: (name: string, line: string) => void;
}

export interface RunningSystem {
  databaseUrl: string;
  projectId: string;
  /** Set only when this start created the default key (shown once). */
  createdApiKey?: string;
  /** The first owner's email (made on a fresh install: owner@localhost). */
  ownerEmail: string;
  /** A one-time link that signs the owner in (expires in 30 minutes). */
  signInUrl: string;
  /** Another such link, each time it is called (tests sign in more than once). */
  newSignInUrl(): Promise<string>;
  collectorUrl: string;
  webUrl: string;
  demoSessions: number;
  stop(): Promise<void>;
}

/** A child process and the last lines it wrote (told when it exits before it is ready). */
interface Child {
  process: ChildProcess;
  lastLines: string[];
}

function startChild(
  name: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; output: (name: string, line: string) => void },
): Child {
  const child = spawn(process.execPath, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lastLines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    let buf = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      buf += chunk;
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const l of lines) {
        opts.output(name, l);
        lastLines.push(l);
        if (lastLines.length > 20) lastLines.shift();
      }
    });
  }
  return { process: child, lastLines };
}

/** A child that could not listen: its port was taken (by another program, or between a check and its bind). */
export class PortInUseError extends Error {
  constructor(
    readonly which: 'collector' | 'web',
    readonly port: number,
    readonly host: string,
  ) {
    super(`port ${port} on ${host} is in use, so the ${which === 'web' ? 'web app' : 'collector'} cannot listen on it`);
  }
}

/** Throws PortInUseError when host:port cannot be bound now (checked before anything starts). */
export async function assertPortFree(which: 'collector' | 'web', port: number, host: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? new PortInUseError(which, port, host) : err));
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

async function waitFor(url: string, child: Child, which: 'collector' | 'web', timeoutMs: number): Promise<void> {
  const name = which === 'web' ? 'web app' : 'collector';
  const deadline = Date.now() + timeoutMs;
  const { port, hostname } = new URL(url);
  while (Date.now() < deadline) {
    // Read from the process itself: it may have exited while the other child was waited for.
    const { exitCode, signalCode } = child.process;
    if (exitCode !== null || signalCode !== null) {
      if (child.lastLines.some((l) => l.includes('EADDRINUSE'))) throw new PortInUseError(which, Number(port), hostname);
      const said = child.lastLines.filter((l) => l.trim()).slice(-5).join('\n  ');
      throw new Error(`${name} exited with ${exitCode !== null ? `code ${exitCode}` : signalCode} before it was ready (${url})${said ? `; its last lines:\n  ${said}` : ''}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name} was not ready at ${url} within ${timeoutMs / 1000} s`);
}

async function stopChild({ process: child }: Child): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await done;
  clearTimeout(timer);
}

async function defaultProject(prisma: PrismaClient): Promise<{ id: string; createdKey?: string }> {
  const existing = await prisma.project.findFirst({ orderBy: { createdAt: 'asc' } });
  if (existing) return { id: existing.id };
  const project = await createProject(prisma, 'Default project');
  const key = await createApiKey(prisma, project.id, 'default');
  return { id: project.id, createdKey: key.key };
}

/** Runs the SDK's demo agent against the collector with a short-lived key, revoked afterwards. */
async function runDemoAgent(prisma: PrismaClient, projectId: string, collectorUrl: string): Promise<number> {
  const key = await createApiKey(prisma, projectId, `demo-agent ${new Date().toISOString()}`);
  try {
    const { runDemo } = await import('@guardtrace/sdk/examples/demo-agent');
    const result = await runDemo({ endpoint: collectorUrl, apiKey: key.key, serviceName: 'guardtrace-demo' });
    return result.sessions;
  } finally {
    await revokeApiKey(prisma, projectId, key.id);
  }
}

export async function startSystem(opts: SystemOptions): Promise<RunningSystem> {
  const log = opts.log ?? ((l: string) => console.log(`[guardtrace] ${l}`));
  const output = opts.childOutput ?? ((name: string, line: string) => console.log(`[${name}] ${line}`));
  const host = opts.host ?? '127.0.0.1';
  const children: Child[] = [];
  const killAll = () => {
    for (const { process: c } of children) if (c.exitCode === null) c.kill('SIGTERM');
  };
  process.on('exit', killAll);

  let db: Database | { url: string; close(): Promise<void> };
  /** npm start's database (embedded or DATABASE_URL), not a throwaway one. */
  let kept: Database | undefined;
  if (opts.throwaway) db = await createTestDatabase();
  else db = kept = await ensureDatabase({ databaseUrl: opts.databaseUrl, dataDir: opts.dataDir, log });
  const prisma = createPrisma(db.url, { max: 2 });

  const stop = async () => {
    process.off('exit', killAll);
    await Promise.all(children.map(stopChild));
    await prisma.$disconnect().catch(() => {});
    await db.close();
  };

  try {
    const project = await defaultProject(prisma);
    if (opts.build) {
      log('building the collector and the web app (cached after the first time)...');
      const status = await new Promise<number>((resolve) => {
        const b = spawn(path.join(ROOT, 'node_modules/.bin/turbo'), ['run', 'build', '--filter=@guardtrace/collector', '--filter=@guardtrace/web', '--output-logs=errors-only'], {
          cwd: ROOT,
          stdio: 'inherit',
          env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', TURBO_TELEMETRY_DISABLED: '1' },
        });
        b.on('exit', (code) => resolve(code ?? 1));
      });
      if (status !== 0) throw new Error(`build failed (exit ${status})`);
    }
    for (const built of [COLLECTOR_MAIN, WEB_SERVE]) {
      if (!fs.existsSync(built)) throw new Error(`${built} is missing: run \`pnpm turbo run build\` first`);
    }
    // The secret that signs session cookies: GUARDTRACE_AUTH_SECRET, else the one kept in the data
    // folder (made by the first start), so a restart signs nobody out; a throwaway database's
    // system (tests) makes one for the run.
    const explicitSecret = process.env.GUARDTRACE_AUTH_SECRET || undefined;
    const authSecret = kept ? (await startAuthSecret(kept, explicitSecret)).secret : (explicitSecret ?? randomBytes(32).toString('base64url'));
    const baseEnv = { ...process.env, DATABASE_URL: db.url, NEXT_TELEMETRY_DISABLED: '1', GUARDTRACE_AUTH_SECRET: authSecret };
    const collectorUrl = `http://${host}:${opts.collectorPort}`;
    const webUrl = `http://${host}:${opts.webPort}`;
    // The built collector, as in production (its `start` script): plain Node, no tsx. A bigger
    // young generation: at ingest rates most of what a request allocates lives until its
    // transaction commits, and 16 MiB semi-spaces copy it over and over (docs/collector.md).
    const collector = startChild('collector', ['--max-semi-space-size=64', COLLECTOR_MAIN], {
      cwd: path.join(ROOT, 'apps/collector'),
      // Where browsers reach the web (unless set): alert webhooks link to its explorer and replay.
      env: { GUARDTRACE_BASE_URL: webUrl, ...baseEnv, PORT: String(opts.collectorPort), HOST: host },
      output,
    });
    children.push(collector);
    // The standalone server, as in production (the web app's `start` script), with the same
    // young generation as the collector: the replay of a 6,600-span session allocates tens of
    // megabytes that live until the answer is sent, and 16 MiB semi-spaces copied them in
    // scavenges (steps JSON p50 ~320 → ~240 ms, apps/web/bench/notes.md "Replay data route").
    const web = startChild('web', ['--max-semi-space-size=64', WEB_SERVE], {
      cwd: path.join(ROOT, 'apps/web'),
      // The explorer's empty state tells agents this collector (unless a public URL was given).
      env: { GUARDTRACE_PUBLIC_COLLECTOR_URL: collectorUrl, ...baseEnv, PORT: String(opts.webPort), GUARDTRACE_WEB_HOST: host },
      output,
    });
    children.push(web);
    await waitFor(`${collectorUrl}/readyz`, collector, 'collector', 60_000);
    await waitFor(`${webUrl}/sign-in`, web, 'web', 120_000);

    let demoSessions = 0;
    const sessionCount = await prisma.session.count({ where: { projectId: project.id } });
    if (opts.demo === 'always' || (opts.demo === 'auto' && sessionCount === 0)) {
      log('running the demo agent...');
      demoSessions = await runDemoAgent(prisma, project.id, collectorUrl);
    }
    const owner = await ensureOwner(prisma, process.env.GUARDTRACE_OWNER_EMAIL || undefined);
    const newSignInUrl = async () => `${webUrl}${signInLinkPath((await createSignInLink(prisma, owner.id)).token)}`;
    return {
      databaseUrl: db.url,
      projectId: project.id,
      createdApiKey: project.createdKey,
      ownerEmail: owner.email,
      signInUrl: await newSignInUrl(),
      newSignInUrl,
      collectorUrl,
      webUrl,
      demoSessions,
      stop,
    };
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
}

/** Write a child's output to a log file (tests keep the console quiet). */
export function fileOutput(file: string): (name: string, line: string) => void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const stream = fs.createWriteStream(file, { flags: 'a' });
  return (name, line) => stream.write(`[${name}] ${line}\n`);
}
