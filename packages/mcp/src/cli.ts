/**
 * `guardtrace-mcp [options] -- <command> [args...]`: starts the upstream MCP server and serves
 * its tools, guarded, over stdio (default) or Streamable HTTP. Never writes to stdout except
 * for `--help` and `--version`: on stdio, stdout is the protocol.
 */
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ConfigError, loadConfig } from './config.ts';
import { collectorFromEnv } from './env.ts';
import { startHttp } from './http.ts';
import { type GuardProxy, connectUpstream, createProxy, serveConnection } from './proxy.ts';
import { startTelemetry } from './telemetry.ts';
import { VERSION } from './version.ts';

export const USAGE = `Usage: guardtrace-mcp [options] -- <command> [args...]

Serves the tools of the MCP server that <command> starts (stdio) to any MCP client, with
Guardtrace's guards, policy and budgets in front, and sends spans to a Guardtrace collector.

Options:
  -c, --config <file>  JSON config: collector, session, roots, per-tool preconditions and
                       locks, per-class policy and budgets (see the package README)
      --http           serve Streamable HTTP at http://<host>:<port>/mcp instead of stdio
      --port <n>       HTTP port (default 0: any free port; the URL is printed on stderr)
      --host <addr>    HTTP address (default 127.0.0.1)
  -h, --help           this text
  -v, --version        the version

Collector: the config's "collector" { endpoint, apiKey }, else GUARDTRACE_ENDPOINT and
GUARDTRACE_API_KEY, else OTEL_EXPORTER_OTLP_ENDPOINT with OTEL_EXPORTER_OTLP_HEADERS
("authorization=Bearer gt_..."); with none, guards still run and no spans are sent.

Example:
  guardtrace-mcp --config guardtrace-mcp.json -- npx -y @modelcontextprotocol/server-filesystem ./workspace
`;

class UsageError extends Error {}

interface Cli {
  config?: string;
  http: boolean;
  port: number;
  host: string;
  command: string;
  args: string[];
}

export function parseCli(argv: string[]): Cli | 'help' | 'version' {
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const upstream = dash < 0 ? [] : argv.slice(dash + 1);
  let values: { config?: string; http?: boolean; port?: string; host?: string; help?: boolean; version?: boolean };
  try {
    ({ values } = parseArgs({
      args: own,
      options: {
        config: { type: 'string', short: 'c' },
        http: { type: 'boolean' },
        port: { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  if (values.help) return 'help';
  if (values.version) return 'version';
  const [command, ...args] = upstream;
  if (!command) throw new UsageError('no upstream server: put the command that starts it after "--"');
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port: expected an integer 0-65535, got "${values.port}"`);
  const cli: Cli = { http: values.http ?? false, port, host: values.host ?? '127.0.0.1', command, args };
  if (values.config !== undefined) cli.config = values.config;
  return cli;
}


/** Runs the command line; resolves with the exit code for `--help`, errors and shutdown. */
export async function main(argv: string[]): Promise<number> {
  let cli: ReturnType<typeof parseCli>;
  try {
    cli = parseCli(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`guardtrace-mcp: ${err.message}\n\n${USAGE}`);
    return 2;
  }
  if (cli === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (cli === 'version') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  let proxy: GuardProxy;
  try {
    const config = loadConfig(cli.config);
    const telemetry = startTelemetry(config.collector ?? collectorFromEnv(), config.serviceName);
    const upstream = await connectUpstream(cli.command, cli.args);
    try {
      proxy = createProxy(upstream, config, telemetry);
    } catch (err) {
      await upstream.close();
      throw err;
    }
    for (const w of proxy.warnings) process.stderr.write(`guardtrace-mcp: ${w}\n`);
    if (!telemetry.tracer) process.stderr.write('guardtrace-mcp: no collector configured; guards run, no spans are sent\n');
  } catch (err) {
    process.stderr.write(`${err instanceof ConfigError ? err.message : `guardtrace-mcp: ${err instanceof Error ? err.message : String(err)}`}\n`);
    return 1;
  }

  let done: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => {
    done = resolve;
  });
  let closeFront: () => Promise<void> = async () => {};
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await closeFront();
      await proxy.upstream.close().catch(() => {});
      await proxy.telemetry.shutdown();
      done(0);
    })();
    return stopping;
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  proxy.upstream.client.onclose = () => {
    if (!stopping) process.stderr.write('guardtrace-mcp: the upstream server exited\n');
    void stop();
  };

  if (cli.http) {
    const front = await startHttp(proxy, { host: cli.host, port: cli.port });
    closeFront = front.close;
    process.stderr.write(`guardtrace-mcp: listening on ${front.url}\n`);
  } else {
    const conn = serveConnection(proxy, new StdioServerTransport(), { transport: 'pipe', onClose: () => void stop() });
    closeFront = conn.end;
    await conn.start();
    process.stdin.once('end', () => void stop());
  }
  return exited;
}
