/**
 * README's "Instrumenting an agent" snippet, for the explorer's empty state, with the collector
 * this deployment advertises. A test keeps it identical to README.md's.
 */
export function sdkSnippet(endpoint: string): string {
  return `import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { Guardtrace } from '@guardtrace/sdk';
import { fileExists, insideWorkspace } from '@guardtrace/sdk/guards/files';
import { setupGuardtrace } from '@guardtrace/sdk/setup';

const otel = setupGuardtrace({ endpoint: '${endpoint}', apiKey: process.env.GUARDTRACE_API_KEY!, serviceName: 'my-agent' });
const gt = new Guardtrace({ tracer: otel.tracer });
gt.tool({ name: 'read_file', description: 'Read a workspace file', schema: z.object({ path: z.string() }), flags: { readOnly: true },
  guards: [insideWorkspace({ root, paths: (a) => a.path }), fileExists({ root, paths: (a) => a.path })],
  execute: ({ path }) => readFile(\`\${root}/\${path}\`, 'utf8') });
const s = gt.session({ agentName: 'file-agent', userId: 'u_17' });
const r = await s.callTool('read_file', toolCall.arguments, { callId: toolCall.id }); // guarded, classified, traced
if (!r.ok) messages.push({ role: 'tool', tool_call_id: toolCall.id, content: r.feedback }); // structured, sanitized feedback
await s.end();
await otel.shutdown();`;
}
