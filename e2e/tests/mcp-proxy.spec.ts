/**
 * An MCP client's session, seen in the web app: the official MCP client talks to
 * guardtrace-mcp (its package bin) in front of @modelcontextprotocol/server-filesystem, the
 * proxy exports to the running collector, and the session page shows the rejected call with
 * the field named in its feedback and the correction as attempt 2.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect, test } from '@playwright/test';
import { goToStep } from './replay-helpers.ts';

const require = createRequire(import.meta.url);

/** A package's bin file, as its package.json names it. */
function binOf(pkg: string, name: string): string {
  const manifestFile = require.resolve(`${pkg}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { bin: Record<string, string> };
  return path.join(path.dirname(manifestFile), manifest.bin[name] as string);
}

test('an MCP client behind guardtrace-mcp: the rejected call, its feedback and the correction are in the replay', async ({ page }) => {
  // Two child processes, the collector and the replay on a shared 2-core machine: 60 s is too tight.
  test.setTimeout(120_000);
  const tag = randomBytes(4).toString('hex');
  const agentName = `e2e-mcp-${tag}`;
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'gt-e2e-mcp-')));
  writeFileSync(path.join(dir, 'notes.txt'), 'one\ntwo\nthree\n');
  const transport = new StdioClientTransport({
    command: process.execPath,
    // The workspace's bin is TypeScript (published: dist/bin.js), so it runs through tsx here.
    args: ['--import', 'tsx', binOf('@guardtrace/mcp', 'guardtrace-mcp'), '--', process.execPath, binOf('@modelcontextprotocol/server-filesystem', 'mcp-server-filesystem'), dir],
    env: {
      ...(process.env as Record<string, string>),
      GUARDTRACE_ENDPOINT: process.env.GUARDTRACE_COLLECTOR_URL as string,
      GUARDTRACE_API_KEY: process.env.GUARDTRACE_API_KEY as string,
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
  });
  // The agent name of the session is the MCP client's name from `initialize`.
  const client = new Client({ name: agentName, version: '1.0.0' });
  try {
    await client.connect(transport);
    const file = path.join(dir, 'notes.txt');
    // `head` must be a number: the proxy rejects the call before the server sees it.
    const wrong = await client.callTool({ name: 'read_text_file', arguments: { path: file, head: 'two' } });
    expect(wrong.isError).toBe(true);
    const fixed = await client.callTool({ name: 'read_text_file', arguments: { path: file, head: 2 } });
    expect(fixed.isError).toBeFalsy();
    expect(JSON.stringify(fixed.content)).toContain('two');
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }

  // The proxy flushed its spans as it exited; the collector has the session.
  await expect(async () => {
    await page.goto(`/sessions?q=${agentName}`);
    await expect(page.getByTestId('session-row').filter({ hasText: agentName }), `the proxy said:\n${stderr}`).toHaveCount(1, { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await page.getByTestId('session-row').filter({ hasText: agentName }).getByRole('link').first().click();

  await goToStep(page, 'read_text_file');
  const call = page.getByTestId('tool-call').filter({ hasText: 'read_text_file' }).first();
  await expect(call).toBeVisible();
  const attempts = call.getByTestId('attempt');
  await expect(attempts).toHaveCount(2);
  await expect(attempts.first()).toContainText(/invalid[ _]arguments/);
  await expect(attempts.first().getByTestId('feedback')).toContainText('head');
  await expect(attempts.nth(1)).toContainText('proceed');
});
