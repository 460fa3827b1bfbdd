/**
 * A port that is already taken stops a start at once, saying which port and which setting moves it,
 * instead of a wait that runs out two minutes later with "not ready".
 *
 * Real processes: `npm start`'s script (scripts/start.ts) run with tsx as `npm start` runs it, and
 * the system of scripts/system.ts with its built collector and web app, against the suite's database.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '@guardtrace/db/dev';
import { expect, test } from '@playwright/test';
import { fileOutput, PortInUseError, ROOT, startSystem } from '../../scripts/system.ts';

/** A server holding a port on the loopback, as another program would. */
async function holdPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer((s) => s.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

test('npm start with its web port taken says so at once and names the setting, before building anything', async () => {
  const held = await holdPort();
  try {
    const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['scripts/start.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: process.env.GUARDTRACE_DATABASE_URL,
        GUARDTRACE_WEB_PORT: String(held.port),
        GUARDTRACE_COLLECTOR_PORT: String(await freePort()),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, out).toBe(2);
    expect(out).toContain(`port ${held.port} on 127.0.0.1 is in use, so the web app cannot listen on it`);
    expect(out).toContain('GUARDTRACE_WEB_PORT=<port> npm start');
    expect(out).not.toContain('building the collector');
  } finally {
    await held.close();
  }
});

test('a web app that cannot listen (its port taken after the start began) fails the start at once with the port, not after the wait', async () => {
  // startSystem checks no port itself (a port can be taken between any check and the bind): the
  // web app's exit must end the wait.
  const held = await holdPort();
  const logFile = path.join(ROOT, 'e2e/test-results/port-taken-system.log');
  try {
    const error = await startSystem({
      databaseUrl: process.env.GUARDTRACE_DATABASE_URL,
      collectorPort: await freePort(),
      webPort: held.port,
      demo: 'never',
      build: false,
      log: fileOutput(logFile).bind(null, 'start'),
      childOutput: fileOutput(logFile),
    }).then(
      async (system) => {
        await system.stop();
        return undefined;
      },
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(PortInUseError);
    // (The wait's own end, 120 s on, would be a plain "not ready" error, past this test's 60 s.)
    expect((error as PortInUseError).message).toBe(`port ${held.port} on 127.0.0.1 is in use, so the web app cannot listen on it`);
  } finally {
    await held.close();
  }
});
