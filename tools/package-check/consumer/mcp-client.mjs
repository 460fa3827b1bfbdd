// The installed `guardtrace-mcp` bin (from the tarball) in front of the installed filesystem
// server, driven by the official MCP client; spans go to the collector in the environment.
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [agentName] = process.argv.slice(2);
const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'gt-consumer-mcp-')));
writeFileSync(path.join(dir, 'a.txt'), 'from the tarball\n');
writeFileSync(path.join(dir, 'gt.json'), JSON.stringify({ session: { agentName }, roots: [dir] }));
const transport = new StdioClientTransport({
  command: path.resolve('node_modules/.bin/guardtrace-mcp'),
  args: ['--config', path.join(dir, 'gt.json'), '--', process.execPath, path.resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), dir],
  env: process.env,
  stderr: 'inherit',
});
const client = new Client({ name: 'consumer-mcp', version: '1.0.0' });
await client.connect(transport);
const { tools } = await client.listTools();
const read = await client.callTool({ name: 'read_text_file', arguments: { path: path.join(dir, 'a.txt') } });
const invalid = await client.callTool({ name: 'read_text_file', arguments: { path: 1 } });
await client.close();
console.log(
  JSON.stringify({
    tools: tools.length > 5,
    read: read.content[0]?.text,
    invalid: invalid._meta?.['guardtrace/failureClass'],
  }),
);
