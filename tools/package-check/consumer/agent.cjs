// CommonJS consumer: the same guarded tool call through require().
const { Guardtrace, ATTR_GUARDTRACE_FAILURE_CLASS: SDK_ATTR, predicate } = require('@guardtrace/sdk');
const { fileExists } = require('@guardtrace/sdk/guards/files');
const { setupGuardtrace } = require('@guardtrace/sdk/setup');
const { ATTR_GUARDTRACE_FAILURE_CLASS, FAILURE_CLASSES } = require('@guardtrace/semconv');
const { z } = require('zod');

async function main() {
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
      module: 'cjs',
      rejected: rejected.ok ? null : rejected.failureClass,
      corrected: corrected.ok,
      outcome,
      semconv: SDK_ATTR === ATTR_GUARDTRACE_FAILURE_CLASS && FAILURE_CLASSES.includes('transient'),
    }),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
