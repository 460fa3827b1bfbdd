// Run as a child process by setup.test.ts: sets up export, runs one session, never calls
// shutdown; the spans must still reach the collector when the process exits on its own.
// With `--report-end` it prints `session-ended` once the session is over (exit timing).
import { z } from 'zod';
import { Guardtrace } from '../src/guardtrace.ts';
import { setupGuardtrace } from '../src/setup.ts';

const endpoint = process.argv[2] ?? '';
const otel = setupGuardtrace({ endpoint, apiKey: 'gt_exit', serviceName: 'exit-flush', register: false, batch: { scheduledDelayMillis: 60_000 } });
const gt = new Guardtrace({ tracer: otel.tracer });
gt.tool({ name: 'echo', description: 'echo', schema: z.object({ text: z.string() }), flags: { readOnly: true }, execute: (a) => a.text });
const s = gt.session({ id: 'sess_exit_flush', agentName: 'exit-agent' });
await s.callTool('echo', { text: 'bye' });
await s.end();
if (process.argv.includes('--report-end')) process.stdout.write('session-ended\n');
