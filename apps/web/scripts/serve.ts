/**
 * `pnpm start` of the web app, the production launcher: checks the environment, then runs
 * Next's standalone server (`output: 'standalone'`) in this same process. The build compiles
 * this file to JavaScript beside that server (.next/standalone/apps/web/serve.mjs, see
 * scripts/build-standalone.mjs), so production runs plain Node.
 *
 * Beyond loopback it refuses to start without GUARDTRACE_AUTH_SECRET and GUARDTRACE_BASE_URL
 * (accounts, docs/deployment.md); on loopback a missing secret is made up for this process (its
 * sessions end with it). It refuses a missing DATABASE_URL: the production server never starts
 * a database of its own, and any other setting of the server's that is wrong (DATABASE_READ_URL,
 * GUARDTRACE_READ_MAX_LAG_SECONDS, …), naming it.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { accountsEnv, parseServerEnv, serveEnv } from '../src/env.ts';
import { isLoopback } from '../src/server/auth.ts';
import { CLIENT_IP_HEADER } from '../src/lib/auth-headers.ts';
import { NO_CONTENT_CSP, SECURITY_HEADERS, screenRequest } from '../src/server/http-security.ts';

/**
 * Requests Next cannot serve (an unsupported method, a URL that does not decode or holds NUL)
 * are answered here, before Next, which would fail them with a bare 500. Next's standalone
 * server makes its own http.Server: the request handler it passes is wrapped.
 */
function screenRequests(): void {
  const create = http.createServer;
  const wrap =
    (handler: http.RequestListener): http.RequestListener =>
    (req, res) => {
      const refusal = screenRequest(req.method, req.url);
      if (!refusal) {
        // The address the sign-in throttle counts by: this socket's peer, never a header a client sent.
        req.headers[CLIENT_IP_HEADER] = req.socket.remoteAddress ?? '';
        return handler(req, res);
      }
      res.writeHead(refusal.status, {
        'content-type': 'text/plain; charset=utf-8',
        'content-security-policy': NO_CONTENT_CSP,
        ...SECURITY_HEADERS,
        ...refusal.headers,
      });
      res.end(`${refusal.message}\n`);
    };
  // Next's start-server calls http.createServer(requestListener) on the shared module object.
  (http as { createServer: unknown }).createServer = (...args: unknown[]) =>
    (create as (...a: unknown[]) => http.Server)(...args.map((a) => (typeof a === 'function' ? wrap(a as http.RequestListener) : a)));
}

async function main(): Promise<void> {
  const env = serveEnv();
  // Every setting the server reads, checked now (a replica URL, lag bounds, the collector's public
  // URL): a wrong one stops the start naming it, instead of a server whose pages fail later.
  const serverSettings = parseServerEnv(process.env);
  if (!isLoopback(env.GUARDTRACE_WEB_HOST)) {
    const missing = ['GUARDTRACE_AUTH_SECRET', 'GUARDTRACE_BASE_URL'].filter((name) => !process.env[name]);
    if (missing.length) {
      throw new Error(
        `refusing to serve on ${env.GUARDTRACE_WEB_HOST} without ${missing.join(' and ')}: accounts need a secret that signs session ` +
          'cookies (32+ random characters) and the URL browsers reach the app at (https makes the cookie Secure). See docs/deployment.md.',
      );
    }
  } else if (!process.env.GUARDTRACE_AUTH_SECRET) {
    // Loopback without a secret: one for this process; signing in again after a restart is the price.
    process.env.GUARDTRACE_AUTH_SECRET = randomBytes(32).toString('base64url');
  }
  accountsEnv();
  // Next's standalone server.js listens on HOSTNAME and PORT (HOSTNAME is the machine's name in
  // most shells, hence our own GUARDTRACE_WEB_HOST); it chdirs to its own folder.
  process.env.HOSTNAME = env.GUARDTRACE_WEB_HOST;
  process.env.PORT = String(env.PORT);
  process.env.NEXT_TELEMETRY_DISABLED = '1';
  const server = path.join(path.dirname(process.argv[1] ?? '.'), 'server.js');
  // (Where heavy reads go after that is logged when it changes: src/server/db.ts.)
  const reads = serverSettings.DATABASE_READ_URL
    ? `; heavy reads: DATABASE_READ_URL while it is a standby at most ${serverSettings.GUARDTRACE_READ_MAX_LAG_SECONDS} s behind, else DATABASE_URL`
    : '';
  console.log(`[web] http://${env.GUARDTRACE_WEB_HOST}:${env.PORT} (database: DATABASE_URL${reads})`);
  screenRequests();
  await import(pathToFileURL(server).href);
}

main().catch((err: unknown) => {
  console.error(`[web] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
