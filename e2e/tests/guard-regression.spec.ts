/**
 * Issue 27's "done when", the whole guard regression loop as a team runs it:
 * 1. an agent with the real SDK records sessions through the real collector under tools v1
 *    (`read_file` with an optional `lines` field, a files guard allowing `src` and `docs`);
 * 2. a dataset is saved from an explorer query in the browser;
 * 3. a throwaway project outside the workspace installs the PACKED semconv and SDK tarballs, writes
 *    tools v2 (`lines` renamed `maxLines`, `docs` no longer allowed) and runs
 *    `npx guardtrace-replay --dataset … --upload --fail-on newly-rejected --json …`: it exits 1,
 *    and exactly the calls that used `lines` or `docs/` are newly rejected, each with the feedback
 *    the v2 tools give the model for those arguments;
 * 4. the uploaded run's page lists each of them, linked to its step: the link opens the replay
 *    with that call selected.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Guardtrace } from '@guardtrace/sdk';
import type { ReplayRunReport } from '@guardtrace/sdk/replay';
import { expect, type Page, test } from '@playwright/test';
import { buildAndPack, npmEnv, PACKAGES, ROOT, runAsync } from '../../tools/package-check/src/pack.ts';
import { TOOLS_V1, TOOLS_V2, registerTools, toolsModule } from '../guard-regression-tools.ts';
import { newProjectWithKey } from '../projects.ts';
import { selected } from './replay-helpers.ts';
import { agentTelemetry } from '../agent-telemetry.ts';

const collector = () => process.env.GUARDTRACE_COLLECTOR_URL as string;
const tag = randomBytes(4).toString('hex');
const agentName = `regression-${tag}`;

/** The recorded calls, per session: under v1 all pass but the one outside both folders. */
const SESSIONS: { id: string; calls: Record<string, unknown>[] }[] = [
  { id: `gr-${tag}-1`, calls: [{ path: 'src/app.ts' }, { path: 'docs/guide.md' }] },
  { id: `gr-${tag}-2`, calls: [{ path: 'src/util.ts', lines: 20 }, { path: 'src/main.ts' }] },
  { id: `gr-${tag}-3`, calls: [{ path: 'docs/api.md', lines: 5 }, { path: 'lib/vendor.js' }, { path: 'src/index.ts' }] },
];
/** What v2 changes for each: the calls that used the old field or the removed folder. */
const usesOldFieldOrFolder = (a: Record<string, unknown>) => 'lines' in a || String(a.path).startsWith('docs/');

async function record(apiKey: string): Promise<void> {
  const otel = agentTelemetry('guard-regression-e2e', { apiKey });
  const gt = new Guardtrace({ tracer: otel.tracer, autoRepair: false });
  registerTools(gt, TOOLS_V1, path.join(tmpdir(), 'gr-recorded-workspace'));
  for (const s of SESSIONS) {
    const session = gt.session({ id: s.id, agentName });
    for (const args of s.calls) {
      const r = await session.callTool('read_file', args);
      // v1 lets every call through but the one outside both folders
      expect(r.ok, JSON.stringify(args)).toBe(!String(args.path).startsWith('lib/'));
    }
    await session.end();
  }
  await otel.shutdown();
}

/** The feedback the v2 tools give the model for `args` now (a real call, no telemetry). */
async function feedbackNow(args: Record<string, unknown>): Promise<string | null> {
  const gt = new Guardtrace({ autoRepair: false });
  registerTools(gt, TOOLS_V2, path.join(tmpdir(), 'gr-replay-workspace'));
  const r = await gt.session({ agentName: 'feedback-now' }).callTool('read_file', args);
  return r.ok ? null : r.feedback;
}

async function saveDatasetFromExplorer(page: Page, project: string, query: string, name: string): Promise<string> {
  const rows = page.getByTestId('session-row');
  await expect(async () => {
    await page.goto(`/sessions?project=${project}&q=${encodeURIComponent(query)}`);
    await expect(rows).toHaveCount(SESSIONS.length, { timeout: 2000 });
  }).toPass({ timeout: 60_000 });
  const save = page.getByTestId('save-dataset-query');
  await save.locator('summary').click();
  await save.getByLabel('Dataset name').fill(name);
  await save.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(/\/datasets\/[0-9a-f-]{36}\?project=/);
  return (/\/datasets\/([0-9a-f-]{36})/.exec(page.url()) as RegExpExecArray)[1] as string;
}

test.describe.configure({ mode: 'serial', timeout: 900_000 });

let work: string;
test.afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('a guard change replayed over a dataset from the explorer: exactly the calls it breaks are newly rejected, uploaded and linked to their steps', async ({ page }) => {
  const { project, apiKey } = await newProjectWithKey(page, 'Guard regression');
  await record(apiKey);
  const calls = SESSIONS.flatMap((s) => s.calls.map((args) => ({ session: s.id, args })));

  // 2. The dataset, from an explorer query, in the browser.
  const datasetId = await saveDatasetFromExplorer(page, project, `agent:${agentName} tool:read_file`, `reads ${tag}`);
  await expect(page.getByTestId('dataset-status')).toHaveText(`${calls.length} calls`);

  // 3. A project outside the workspace with the packed packages and tools v2.
  work = mkdtempSync(path.join(tmpdir(), 'gt-regression-'));
  expect(path.relative(ROOT, work).startsWith('..')).toBe(true);
  const semconv = buildAndPack(PACKAGES.semconv, work);
  const sdk = buildAndPack(PACKAGES.sdk, work);
  const proj = path.join(work, 'my-agent');
  mkdirSync(path.join(proj, 'workspace'), { recursive: true });
  const sdkManifest = JSON.parse(readFileSync(path.join(PACKAGES.sdk, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const catalog = readFileSync(path.join(ROOT, 'pnpm-workspace.yaml'), 'utf8');
  const pinned = (name: string) => (new RegExp(`^\\s+'?${name.replace('/', '\\/')}'?: (\\S+)$`, 'm').exec(catalog) as RegExpExecArray)[1] as string;
  writeFileSync(
    path.join(proj, 'package.json'),
    JSON.stringify(
      {
        name: 'my-agent',
        private: true,
        type: 'module',
        dependencies: {
          '@guardtrace/semconv': `file:${semconv}`,
          '@guardtrace/sdk': `file:${sdk}`,
          '@opentelemetry/api': pinned('@opentelemetry/api'),
          tinyglobby: sdkManifest.devDependencies.tinyglobby,
          zod: pinned('zod'),
        },
      },
      null,
      2,
    ),
  );
  const install = await runAsync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: proj, env: npmEnv(), timeoutMs: 600_000 });
  expect(install.status, install.output).toBe(0);
  writeFileSync(path.join(proj, 'agent-tools.mjs'), toolsModule(TOOLS_V2));

  // The same dataset from the command line: `dataset create` with the explorer's query holds the
  // same calls as the one saved in the browser (the collector answers 202 and the bin follows the
  // count until it is ready).
  const created = await runAsync(
    'npx',
    ['--no-install', 'guardtrace-replay', 'dataset', 'create', '--name', `cli reads ${tag}`, '--query', `agent:${agentName} tool:read_file`, '--endpoint', collector(), '--key', apiKey],
    { cwd: proj, env: npmEnv(), timeoutMs: 180_000 },
  );
  expect(created.status, created.output).toBe(0);
  const cliId = /^([0-9a-f-]{36})$/m.exec(created.output)?.[1];
  expect(cliId, created.output).toBeTruthy();
  const itemIds = async (id: string) => {
    const res = await fetch(`${collector()}/v1/datasets/${id}`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(res.status).toBe(200);
    return (await res.text()).trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id);
  };
  expect(await itemIds(cliId as string)).toEqual(await itemIds(datasetId));

  const replay = await runAsync(
    'npx',
    ['--no-install', 'guardtrace-replay', '--tools', './agent-tools.mjs', '--dataset', datasetId, '--endpoint', collector(), '--key', apiKey,
      '--web-url', process.env.GUARDTRACE_WEB_URL as string, '--upload', '--label', `drop docs ${tag}`, '--fail-on', 'newly-rejected', '--json', 'report.json'],
    { cwd: proj, env: npmEnv(), timeoutMs: 180_000 },
  );
  // 1: a --fail-on change occurred (2 would be a usage or input error)
  expect(replay.status, replay.output).toBe(1);
  const report = JSON.parse(readFileSync(path.join(proj, 'report.json'), 'utf8')) as ReplayRunReport;
  expect(report.datasetId).toBe(datasetId);
  expect(report.summary.calls).toBe(calls.length);

  const expected = calls.filter((c) => usesOldFieldOrFolder(c.args));
  expect(expected).toHaveLength(3);
  const newlyRejected = report.results.filter((r) => r.change === 'newly_rejected');
  expect(newlyRejected.map((r) => ({ session: r.sessionId, args: r.arguments })).sort(bySession)).toEqual(expected.sort(bySession));
  expect(report.summary.newly_rejected).toBe(expected.length);
  for (const r of newlyRejected) {
    // the feedback the model would now see: what the v2 tools answer for these arguments
    const now = await feedbackNow(r.arguments as Record<string, unknown>);
    expect(now).not.toBeNull();
    expect(r.now?.feedback).toBe(now);
    expect(r.recorded.allowed).toBe(true);
    expect(r.now?.allowed).toBe(false);
    // recorded under v1's fingerprint, and what changed in the definition since
    expect(r.definition.recordedHash).toMatch(/^[0-9a-f]{16}$/);
    expect(r.definition.currentHash).not.toBe(r.definition.recordedHash);
    expect(r.definition.changes.some((c) => c.includes('"lines"') && c.includes('"maxLines"'))).toBe(true);
    expect(r.definition.changes.some((c) => c.includes('folders') && c.includes('["src","docs"]'))).toBe(true);
  }
  // The call outside both folders was rejected then and is now, told of other folders.
  const vendor = report.results.find((r) => (r.arguments as { path?: string }).path === 'lib/vendor.js');
  expect(vendor?.change).toBe('feedback_changed');
  expect(report.summary.unchanged).toBe(calls.length - expected.length - 1);

  // The runner says where the uploaded run is.
  const uploaded = /uploaded run ([0-9a-f-]{36}): (\S+)/.exec(replay.output);
  expect(uploaded, replay.output).not.toBeNull();
  const [, runId, runUrl] = uploaded as RegExpExecArray;
  expect(runUrl).toBe(`${process.env.GUARDTRACE_WEB_URL}/datasets/${datasetId}/runs/${runId}?project=${project}`);

  // 4. The uploaded run, in the web app: on its dataset's page, then its own.
  await page.goto(`/datasets/${datasetId}?project=${project}`);
  const runRow = page.locator(`[data-testid=dataset-run][data-run-id="${runId}"]`);
  await expect(runRow).toContainText(`drop docs ${tag}`);
  await expect(runRow.locator('[data-change=newly_rejected]')).toHaveText('3');
  await expect(runRow.locator('[data-change=feedback_changed]')).toHaveText('1');
  await expect(runRow.locator('[data-change=newly_allowed]')).toHaveText('0');
  await page.goto(runUrl as string);
  const group = page.locator('[data-testid=run-group][data-change=newly_rejected]');
  const rows = group.getByTestId('run-result');
  await expect(rows).toHaveCount(3);
  for (const r of newlyRejected) {
    const row = rows.and(page.locator(`[data-item-id="${r.itemId}"]`));
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId('recorded').getByTestId('decision-line')).toContainText('let through');
    await expect(row.getByTestId('now').getByTestId('feedback')).toHaveText(r.now?.feedback as string);
    await expect(row.getByTestId('step-link')).toHaveAttribute('href', r.stepPath);
    await expect(row.getByTestId('definition-changes').locator('li')).toHaveText(r.definition.changes);
  }
  await expect(page.locator('[data-testid=run-group][data-change=feedback_changed]').getByTestId('run-result')).toHaveCount(1);

  // Each link opens the replay at its call.
  for (const r of newlyRejected) {
    await page.goto(runUrl as string);
    await rows.and(page.locator(`[data-item-id="${r.itemId}"]`)).getByTestId('step-link').click();
    await expect(page).toHaveURL(new RegExp(`/sessions/${r.sessionId}\\?`));
    await expect(selected(page)).toHaveAttribute('data-kind', 'tool');
    // the selected step is that call: its detail shows these arguments
    await expect(page.getByTestId('tool-call')).toHaveCount(1);
    await expect(page.getByTestId('tool-call').getByTestId('attempt').first()).toContainText(JSON.stringify(r.arguments, null, 2));
  }
});

function bySession(a: { session: string; args: unknown }, b: { session: string; args: unknown }): number {
  const ka = `${a.session} ${JSON.stringify(a.args)}`;
  const kb = `${b.session} ${JSON.stringify(b.args)}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
