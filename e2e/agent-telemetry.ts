import { type GuardtraceTelemetry, type SetupOptions, setupGuardtrace } from '@guardtrace/sdk/setup';

/**
 * The telemetry of an agent a test runs: the real SDK exporter, sending to the suite's collector
 * (GUARDTRACE_COLLECTOR_URL) with the shared project's key unless `options` gives another; not
 * registered globally (each agent owns its provider) and flushed by the test, not at exit.
 */
export function agentTelemetry(serviceName: string, options: Partial<SetupOptions> = {}): GuardtraceTelemetry {
  return setupGuardtrace({
    endpoint: process.env.GUARDTRACE_COLLECTOR_URL as string,
    apiKey: process.env.GUARDTRACE_API_KEY as string,
    serviceName,
    register: false,
    flushOnExit: false,
    ...options,
  });
}
