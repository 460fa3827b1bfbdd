#!/usr/bin/env node
// README's start command as a new user runs it, on a PATH that holds no pnpm: `npm start` must
// install what it needs, serve the collector and the web app, store an OTLP request, and leave
// nothing running after Ctrl-C (SIGINT to the process group, as a terminal sends it). Then a
// second start on the same data folder must work and still have the first run's session.
// Plain JavaScript: it runs before anything is installed.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pathWithoutPnpm } from './without-pnpm.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const log = (line) => console.log(`[start-smoke] ${line}`);
function fail(message) {
  console.error(`[start-smoke] FAILED: ${message}`);
  process.exit(1);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Pids of live processes whose process group is `pgid`, or whose command line mentions `needle`. */
function survivors(pgid, needle) {
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command's closing parenthesis: state ppid pgrp ...
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      if (Number(fields[2]) === pgid || cmd.includes(needle)) found.push(`${entry}: ${cmd.slice(0, 160)}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function waitUntil(what, timeoutMs, check) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  fail(`${what}: not within ${timeoutMs / 1000} s`);
}

async function httpOk(url, headers = {}) {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(5000) });
    return res.ok ? await res.text() : false;
  } catch {
    return false;
  }
}

async function startOnce(n, env, dataDir, sessionId) {
  const output = [];
  const child = spawn('npm', ['start'], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const s of [child.stdout, child.stderr]) {
    s.setEncoding('utf8');
    s.on('data', (chunk) => {
      process.stdout.write(chunk.replace(/^/gm, `  start#${n} | `).replace(/ {2}start#\d \| $/, ''));
      output.push(chunk);
    });
  }
  let exited = null;
  child.on('exit', (code, signal) => {
    exited = { code, signal };
  });
  const text = () => output.join('');
  // A cold first start installs pnpm and the dependencies and builds the web app.
  await waitUntil(`start #${n} saying it is running`, 15 * 60_000, () => {
    if (exited) fail(`npm start exited early (${JSON.stringify(exited)})`);
    return text().includes('Guardtrace is running.');
  });
  const collector = `http://127.0.0.1:${env.GUARDTRACE_COLLECTOR_PORT}`;
  const web = `http://127.0.0.1:${env.GUARDTRACE_WEB_PORT}`;
  if (!(await httpOk(`${collector}/readyz`))) fail(`${collector}/readyz is not ready`);
  // Each start prints a one-time sign-in link of the first owner: it signs this check in.
  const link = /Sign in:\s+(\S+)/.exec(text())?.[1];
  if (!link) fail(`start #${n} printed no sign-in link`);
  const signedIn = await fetch(link, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  const cookie = signedIn.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  if (signedIn.status !== 302 || !cookie) fail(`the sign-in link answered ${signedIn.status} without a session cookie`);
  if ((await fetch(link, { redirect: 'manual' })).headers.getSetCookie().length) fail('the sign-in link worked twice');
  const asOwner = { cookie };
  if (!(await httpOk(`${web}/sessions`, asOwner))) fail(`${web}/sessions does not answer 200`);
  log(`start #${n}: /readyz and /sessions answer (signed in with the printed one-time link)`);

  const key = /API key:\s+(\S+)/.exec(text())?.[1];
  if (n === 1) {
    if (!key) fail('the first start printed no API key');
    const now = BigInt(Date.now()) * 1_000_000n;
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'start-smoke' } }] },
          scopeSpans: [
            {
              scope: { name: 'start-smoke' },
              spans: [
                {
                  traceId: randomBytes(16).toString('hex'),
                  spanId: randomBytes(8).toString('hex'),
                  name: 'invoke_agent smoke',
                  kind: 1,
                  startTimeUnixNano: String(now),
                  endTimeUnixNano: String(now + 5_000_000n),
                  attributes: [
                    { key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } },
                    { key: 'gen_ai.conversation.id', value: { stringValue: sessionId } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const res = await fetch(`${collector}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
    const answer = await res.text();
    if (res.status !== 200 || answer.includes('rejectedSpans":"1') || answer.includes('rejectedSpans":1'))
      fail(`OTLP request answered ${res.status}: ${answer}`);
    log(`start #1: OTLP request stored (${res.status} ${answer})`);
  } else if (key) {
    fail('the second start made a new API key on a database that already had one');
  }
  const page = await httpOk(`${web}/sessions/${encodeURIComponent(sessionId)}`, asOwner);
  if (typeof page !== 'string' || !page.includes(sessionId)) fail(`start #${n}: the web app does not show session ${sessionId}`);
  log(`start #${n}: the web app shows session ${sessionId}`);

  // Ctrl-C: SIGINT to the whole process group.
  process.kill(-child.pid, 'SIGINT');
  await waitUntil(`start #${n} exiting after Ctrl-C`, 60_000, () => exited !== null);
  await waitUntil(`every process of start #${n} and its Postgres gone`, 20_000, () => survivors(child.pid, dataDir).length === 0);
  const left = survivors(child.pid, dataDir);
  if (left.length) fail(`left running:\n${left.join('\n')}`);
  log(`start #${n}: Ctrl-C stopped every process and the Postgres in ${dataDir} (npm exit ${JSON.stringify(exited)})`);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'guardtrace-smoke-'));
const dataDir = path.join(scratch, 'pg');
const PATH = pathWithoutPnpm(scratch);
if (spawnSync('sh', ['-c', 'command -v pnpm'], { env: { ...process.env, PATH } }).status === 0) fail('pnpm is still on PATH');
const env = {
  ...process.env,
  PATH,
  GUARDTRACE_DATA_DIR: dataDir,
  GUARDTRACE_COLLECTOR_PORT: String(await freePort()),
  GUARDTRACE_WEB_PORT: String(await freePort()),
};
delete env.DATABASE_URL;
log(`PATH holds no pnpm; data folder ${dataDir}; ports ${env.GUARDTRACE_COLLECTOR_PORT} and ${env.GUARDTRACE_WEB_PORT}`);
const sessionId = `smoke-${randomBytes(4).toString('hex')}`;
await startOnce(1, env, dataDir, sessionId);
await startOnce(2, env, dataDir, sessionId);
fs.rmSync(scratch, { recursive: true, force: true });
log('passed');
