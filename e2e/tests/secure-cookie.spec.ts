/**
 * The session cookie's attributes as deployed. Behind a TLS-terminating proxy, with
 * GUARDTRACE_BASE_URL on https (docs/deployment.md), the cookie a sign-in sets is `Secure`
 * (with the `__Secure-` prefix), `HttpOnly` and `SameSite=Lax`, and it signs the browser in over
 * https. On plain-http loopback (`npm start`) it is HttpOnly and SameSite=Lax but not Secure,
 * or browsers would drop it. better-auth decides by the base URL's scheme (not by
 * X-Forwarded-Proto), so the proxy here sends it but the test does not rely on it.
 *
 * Real processes: the standalone web server (a second one, on the suite's database) and a
 * node:https proxy in front of it with a certificate made for the test by openssl.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { createPrisma, createSignInLink, type PrismaClient, signInLinkPath } from '@guardtrace/db';
import { freePort } from '@guardtrace/db/dev';
import { expect, test } from '@playwright/test';
import { ROOT, WEB_SERVE } from '../../scripts/system.ts';

// Starts a second Next server on the shared two-core machine.
test.describe.configure({ timeout: 180_000 });

let prisma: PrismaClient;
let dir: string;
let web: ChildProcess | undefined;
let proxy: https.Server | undefined;
let httpsBase: string;
let cert: Buffer;

/** A one-time sign-in link's path for the suite's first owner. */
async function linkPath(): Promise<string> {
  const owner = await prisma.authUser.findUniqueOrThrow({ where: { email: (process.env.GUARDTRACE_OWNER_EMAIL as string).toLowerCase() } });
  return signInLinkPath((await createSignInLink(prisma, owner.id)).token);
}

interface Answer {
  status: number;
  setCookie: string[];
  location?: string;
}

function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const u = new URL(url);
  const client = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    // https: the test's certificate is the only authority trusted, for the name localhost.
    const req = client.get(url, { headers, ...(u.protocol === 'https:' ? { ca: cert, servername: 'localhost' } : {}) }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, setCookie: res.headers['set-cookie'] ?? [], location: res.headers.location }));
    });
    req.on('error', reject);
  });
}

/** The session cookie among Set-Cookie headers: its name=value and its attributes, lower-cased. */
function sessionCookie(setCookie: string[]): { pair: string; name: string; attrs: string[] } {
  const line = setCookie.find((c) => /^(__Secure-)?better-auth\.session_token=/.test(c));
  expect(line, `a session cookie among ${JSON.stringify(setCookie)}`).toBeTruthy();
  const [pair = '', ...attrs] = (line as string).split(';').map((s) => s.trim());
  return { pair, name: pair.split('=')[0] as string, attrs: attrs.map((a) => a.toLowerCase()) };
}

test.beforeAll(async () => {
  prisma = createPrisma(process.env.GUARDTRACE_DATABASE_URL as string, { max: 1 });
  dir = mkdtempSync(path.join(os.tmpdir(), 'gt-tls-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost',
    '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
  ], { stdio: 'ignore' });
  cert = readFileSync(path.join(dir, 'cert.pem'));
  const [webPort, proxyPort] = [await freePort(), await freePort()];
  httpsBase = `https://localhost:${proxyPort}`;
  // The production launcher, as docs/deployment.md runs it behind a proxy: loopback, https base URL.
  web = spawn(process.execPath, [WEB_SERVE], {
    cwd: path.join(ROOT, 'apps/web'),
    env: {
      ...process.env,
      DATABASE_URL: process.env.GUARDTRACE_DATABASE_URL,
      PORT: String(webPort),
      GUARDTRACE_WEB_HOST: '127.0.0.1',
      GUARDTRACE_BASE_URL: httpsBase,
      GUARDTRACE_AUTH_SECRET: randomBytes(32).toString('base64'),
      NEXT_TELEMETRY_DISABLED: '1',
    },
    stdio: 'ignore',
  });
  // The TLS-terminating proxy: what nginx's or Caddy's site block in docs/deployment.md does.
  proxy = https.createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert }, (req, res) => {
    const upstream = http.request(
      { host: '127.0.0.1', port: webPort, method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-proto': 'https', 'x-forwarded-for': req.socket.remoteAddress ?? '' } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy?.listen(proxyPort, '127.0.0.1', resolve));
  for (const deadline = Date.now() + 120_000; ; ) {
    if (web.exitCode !== null) throw new Error(`the web server exited with ${web.exitCode}`);
    if ((await get(`${httpsBase}/sign-in`).catch(() => ({ status: 0 }))).status === 200) break;
    if (Date.now() > deadline) throw new Error('the web server behind the proxy was not ready within 120 s');
    await new Promise((r) => setTimeout(r, 500));
  }
});

test.afterAll(async () => {
  proxy?.close();
  if (web && web.exitCode === null) {
    const exited = new Promise((r) => web?.once('exit', r));
    web.kill('SIGTERM');
    await exited;
  }
  await prisma?.$disconnect();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('over https behind a TLS proxy, the session cookie is Secure, HttpOnly and SameSite=Lax, and signs in', async () => {
  const signIn = await get(`${httpsBase}${await linkPath()}`);
  expect(signIn.status).toBe(302);
  expect(signIn.location ?? '').toMatch(/\/sessions$/);
  const cookie = sessionCookie(signIn.setCookie);
  expect(cookie.name).toBe('__Secure-better-auth.session_token');
  expect(cookie.attrs).toContain('secure');
  expect(cookie.attrs).toContain('httponly');
  expect(cookie.attrs).toContain('samesite=lax');
  expect(cookie.attrs).toContain('path=/');
  // The cookie is what a browser sends back over https: it opens the signed-in pages.
  const page = await get(`${httpsBase}/sessions`, { cookie: cookie.pair });
  expect(page.status).toBe(200);
  // Without it, the same page sends the browser to sign in.
  expect((await get(`${httpsBase}/sessions`)).status).toBe(303);
});

test('on plain-http loopback (npm start), the session cookie is HttpOnly and SameSite=Lax, not Secure', async () => {
  const web = process.env.GUARDTRACE_WEB_URL as string;
  const signIn = await get(`${web}${await linkPath()}`);
  expect(signIn.status).toBe(302);
  const cookie = sessionCookie(signIn.setCookie);
  expect(cookie.name).toBe('better-auth.session_token');
  expect(cookie.attrs).not.toContain('secure');
  expect(cookie.attrs).toContain('httponly');
  expect(cookie.attrs).toContain('samesite=lax');
  expect((await get(`${web}/sessions`, { cookie: cookie.pair })).status).toBe(200);
});
