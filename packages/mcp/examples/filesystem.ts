/**
 * The MCP guard proxy in front of the official filesystem server, driven by a scripted agent
 * with the official MCP client: `pnpm --filter @guardtrace/mcp run example` (or
 * `pnpm example:mcp` at the root). With GUARDTRACE_ENDPOINT and GUARDTRACE_API_KEY set (the
 * ones `npm start` prints), the session shows up in the web app.
 *
 * The proxy is started exactly as an MCP client's config would start it:
 *   guardtrace-mcp --config guardtrace-mcp.json -- mcp-server-filesystem <folder>
 */
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const fsServer = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist/index.js');

// a folder the server may read, with the workspace the config's roots narrow it to
const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'gt-mcp-example-')));
mkdirSync(path.join(dir, 'workspace/src'), { recursive: true });
writeFileSync(path.join(dir, 'workspace/src/Button.tsx'), 'export const Button = () => null;\n');
writeFileSync(path.join(dir, 'credentials.txt'), 'not for the agent\n');
cpSync(path.join(here, 'guardtrace-mcp.json'), path.join(dir, 'guardtrace-mcp.json'));

const transport = new StdioClientTransport({
  command: process.execPath,
  args: ['--import', 'tsx', path.join(here, '../src/bin.ts'), '--config', path.join(dir, 'guardtrace-mcp.json'), '--', process.execPath, fsServer, dir],
  env: process.env as Record<string, string>,
  stderr: 'inherit',
});
const client = new Client({ name: 'example-agent', version: '1.0.0' });
await client.connect(transport);

const ws = (p: string) => path.join(dir, 'workspace', p);
const show = (label: string, r: unknown) => {
  const res = r as CallToolResult;
  const text = res.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
  const how = res.isError ? `rejected (${String(res._meta?.['guardtrace/failureClass'])}, ${String(res._meta?.['guardtrace/decision'])})` : 'ok';
  console.log(`\n## ${label}: ${how}\n${text}`);
};

try {
  const { tools } = await client.listTools();
  console.log(`tools: ${tools.map((t) => t.name).join(', ')}`);
  show('read a file', await client.callTool({ name: 'read_text_file', arguments: { path: ws('src/Button.tsx') } }));
  show('wrong argument type', await client.callTool({ name: 'read_text_file', arguments: { path: ws('src/Button.tsx'), head: '5' } }));
  show('hallucinated tool, one close match', await client.callTool({ name: 'read_file_contents', arguments: { path: ws('src/Button.tsx') } }));
  show('hallucinated tool, no close match', await client.callTool({ name: 'summarize_repo', arguments: { path: ws('src') } }));
  show('outside the roots', await client.callTool({ name: 'read_text_file', arguments: { path: path.join(dir, 'credentials.txt') } }));
  show('precondition', await client.callTool({ name: 'write_file', arguments: { path: ws('.env'), content: 'KEY=1' } }));
  show('missing file', await client.callTool({ name: 'read_text_file', arguments: { path: ws('src/Buton.tsx') } }));
  const move = { source: ws('src/Button.tsx'), destination: ws('src/Button2.tsx') };
  show('destructive move', await client.callTool({ name: 'move_file', arguments: move }));
  show('the same move again (answered from the idempotency store)', await client.callTool({ name: 'move_file', arguments: move }));
} finally {
  await client.close();
  rmSync(dir, { recursive: true, force: true });
}
