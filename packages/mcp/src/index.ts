/**
 * `@guardtrace/mcp`: the MCP guard proxy. The command `guardtrace-mcp` is what most users run;
 * these are its parts, for embedding the proxy in a process of your own.
 */
export { main, parseCli, USAGE } from './cli.ts';
export { loadConfig, parseConfig, configSchema, ConfigError } from './config.ts';
export type { ProxyConfig, ToolConfig } from './config.ts';
export { collectorFromEnv } from './env.ts';
export type { CollectorTarget } from './env.ts';
export { startHttp } from './http.ts';
export type { HttpFront } from './http.ts';
export { connectUpstream, createProxy, serveConnection, failureResult, META_INTENT_ID } from './proxy.ts';
export type { GuardProxy, Upstream, ConnectionInfo } from './proxy.ts';
export { startTelemetry, McpSpanEnricher } from './telemetry.ts';
export type { ProxyTelemetry } from './telemetry.ts';
export { compileInputSchema } from './json-schema.ts';
export { flagsOf, toolError, rpcError, META_IDEMPOTENCY_KEY } from './tools.ts';
export { VERSION } from './version.ts';
