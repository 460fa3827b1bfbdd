/**
 * Streamable HTTP front of the proxy: `POST/GET/DELETE /mcp`. Each `Mcp-Session-Id` has its
 * own transport, MCP server and Guardtrace session; a DELETE or a closed transport ends it.
 */
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type GuardProxy, serveConnection } from './proxy.ts';

export interface HttpFront {
  server: Server;
  /** `http://host:port/mcp` */
  url: string;
  close(): Promise<void>;
}

function jsonRpcError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function hostnameOf(value: string | undefined, withScheme: boolean): string | undefined {
  if (!value) return undefined;
  try {
    return new URL(withScheme ? value : `http://${value}`).hostname;
  } catch {
    return '';
  }
}

/**
 * DNS rebinding: a web page the user opens can make the browser send requests to a loopback
 * port under a name the attacker controls. On a loopback address, only requests addressed to
 * a loopback name (Host) and coming from no page or a loopback page (Origin) are served.
 */
function refusedOnLoopback(req: IncomingMessage): string | undefined {
  const host = hostnameOf(req.headers.host, false);
  if (host === undefined || !LOOPBACK.has(host)) return `Host ${req.headers.host ?? '(none)'} is not a loopback name`;
  const origin = hostnameOf(req.headers.origin, true);
  if (origin !== undefined && !LOOPBACK.has(origin)) return `Origin ${req.headers.origin} is not allowed`;
  return undefined;
}

export async function startHttp(proxy: GuardProxy, opts: { host: string; port: number }): Promise<HttpFront> {
  const live = new Map<string, { transport: StreamableHTTPServerTransport; end(): Promise<void> }>();

  const loopback = LOOPBACK.has(opts.host);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refused = loopback ? refusedOnLoopback(req) : undefined;
    if (refused) return jsonRpcError(res, 403, `Forbidden: ${refused}`);
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/mcp') return jsonRpcError(res, 404, `Not found: ${url.pathname} (the MCP endpoint is /mcp)`);
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const conn = live.get(sid);
      if (!conn) return jsonRpcError(res, 404, `Unknown or ended MCP session ${sid}: initialize a new one`);
      return conn.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return jsonRpcError(res, 400, 'No Mcp-Session-Id header: start with a POST of initialize');
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        live.set(id, { transport, end: conn.end });
      },
    });
    const conn = serveConnection(proxy, transport, {
      transport: 'tcp',
      mcpSessionId: () => transport.sessionId,
      onClose: () => {
        if (transport.sessionId) live.delete(transport.sessionId);
      },
    });
    await conn.start();
    await transport.handleRequest(req, res);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      console.error('guardtrace-mcp: HTTP request failed:', err);
      if (!res.headersSent) jsonRpcError(res, 500, 'Internal error of the proxy');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    server,
    url: `http://${host}:${port}/mcp`,
    async close() {
      await Promise.all([...live.values()].map(async (c) => {
        await c.transport.close();
        await c.end();
      }));
      live.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
