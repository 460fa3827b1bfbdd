// ESM consumer: a guarded tool call exported over OTLP, from the installed tarballs only.
import { Guardtrace, ATTR_GUARDTRACE_FAILURE_CLASS as SDK_ATTR, predicate } from '@guardtrace/sdk';
import { fileExists } from '@guardtrace/sdk/guards/files';
import { setupGuardtrace } from '@guardtrace/sdk/setup';
import { ATTR_GUARDTRACE_FAILURE_CLASS, FAILURE_CLASSES } from '@guardtrace/semconv';
import { z } from 'zod';

const [endpoint, apiKey, sessionId, serviceName] = process.argv.slice(2);
// The test reads the session right after shutdown: wait for the collector's answer (the default
// bound of 1 s gave up on a cold collector's first request on a busy CI machine, and the spans were never sent).
const otel = setupGuardtrace({ endpoint, apiKey, serviceName, flushOnExit: false, shutdownTimeoutMillis: 30_000 });
const gt = new Guardtrace({ tracer: otel.tracer });
gt.tool({
  name: 'lookup_customer',
  description: 'Look a customer up by id',
  schema: z.object({ id: z.string() }),
  flags: { readOnly: true },
  guards: [predicate({ name: 'known_prefix', test: (a) => a.id.startsWith('c'), message: 'ids start with c' }), fileExists({ root: process.cwd(), paths: () => 'package.json' })],
  execute: ({ id }) => ({ id, name: 'Ada' }),
});
const s = gt.session({ id: sessionId, agentName: 'consumer-agent' });
const rejected = await s.callTool('lookup_customer', '{"customer_id":"c1"}', { callId: 'call_1' });
const corrected = await s.callTool('lookup_customer', '{"id":"c1"}', { callId: 'call_1' });
const outcome = await s.end();
await otel.shutdown();
console.log(
  JSON.stringify({
    module: 'esm',
    rejected: rejected.ok ? null : rejected.failureClass,
    corrected: corrected.ok,
    outcome,
    semconv: SDK_ATTR === ATTR_GUARDTRACE_FAILURE_CLASS && FAILURE_CLASSES.includes('transient'),
  }),
);
