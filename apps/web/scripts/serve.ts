/**
 * `pnpm start` of the web app: serves the production build with `next start`. DATABASE_URL is
 * required: the production server never starts a database of its own.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { authEnv, serveEnv } from '../src/env.ts';
import { isLoopback } from '../src/server/auth.ts';

const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const log = (line: string) => console.log(`[web] ${line}`);

async function main(): Promise<void> {
  const env = serveEnv();
  const auth = authEnv();
  if (!isLoopback(env.GUARDTRACE_WEB_HOST) && !auth.GUARDTRACE_WEB_PASSWORD && env.GUARDTRACE_WEB_ALLOW_UNAUTHENTICATED !== '1') {
    throw new Error(
      `refusing to serve on ${env.GUARDTRACE_WEB_HOST} without a password: anyone who reaches it could create and revoke API keys. ` +
        'Set GUARDTRACE_WEB_PASSWORD (12+ characters), or GUARDTRACE_WEB_ALLOW_UNAUTHENTICATED=1 when an authenticating proxy stands in front.',
    );
  }

  const nextBin = createRequire(import.meta.url).resolve('next/dist/bin/next');
  const child = spawn(
    process.execPath,
    [nextBin, 'start', '--port', String(env.PORT), '--hostname', env.GUARDTRACE_WEB_HOST],
    {
      cwd: appDir,
      stdio: 'inherit',
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    },
  );
  log(`http://${env.GUARDTRACE_WEB_HOST}:${env.PORT} (database: DATABASE_URL)`);

  let stopping = false;
  const forward = (signal: NodeJS.Signals) => {
    stopping = true;
    if (child.exitCode === null) child.kill(signal);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => forward(signal));

  const code = await new Promise<number>((resolve) => {
    child.on('exit', (exitCode, signal) => resolve(exitCode ?? 128 + (signal ? constants.signals[signal] : 0)));
    child.on('error', (err) => {
      console.error(`[web] could not start next: ${err.message}`);
      resolve(1);
    });
  });
  process.exit(stopping ? 0 : code);
}

main().catch((err: unknown) => {
  console.error(`[web] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
