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
    // A test asserts every span delivered: its shutdown waits out a collector slowed by a loaded
    // machine (the SDK's default gives up after 1 s without an answer: a CI run once saw 0 of 16 sent).
    shutdownTimeoutMillis: 15_000,
    ...options,
  });
}
