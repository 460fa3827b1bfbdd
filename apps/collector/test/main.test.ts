/** The process entry fails fast on bad configuration, naming the variable. */
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { jsonRequest, sdkSession, setupDatabase } from './helpers.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsx = createRequire(import.meta.url).resolve('tsx');

describe('src/main.ts', () => {
  it('exits 1 with a message naming each bad variable, before touching any database', () => {
    const r = spawnSync(process.execPath, ['--import', tsx, 'src/main.ts'], {
      cwd: root,
      env: { ...process.env, PORT: 'http', COLLECTOR_MAX_QUEUE_SPANS: '0', DATABASE_URL: 'postgres://127.0.0.1:1/none' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('invalid collector environment');
    expect(r.stderr).toMatch(/PORT: /);
    expect(r.stderr).toMatch(/COLLECTOR_MAX_QUEUE_SPANS: /);
    expect(r.stdout).not.toContain('listening');
  });

  it('logs structured JSON lines, prints where it listens, and exits 0 on SIGTERM', async () => {
    const env = await setupDatabase();
    const p = spawn(process.execPath, ['--import', tsx, 'src/main.ts'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: env.db.url, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      p.stdout.on('data', (d) => {
        out += String(d);
      });
      const url = await new Promise<string>((resolve, reject) => {
        p.stdout.on('data', () => {
          const m = /collector listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m?.[1]) resolve(m[1]);
        });
        p.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const res = await fetch(`${url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${env.key}` },
        body: JSON.stringify(jsonRequest(sdkSession().spans)),
      });
      expect(res.status).toBe(200);
      const exit = new Promise<number | null>((r) => p.once('exit', (code) => r(code)));
      p.kill('SIGTERM');
      expect(await exit).toBe(0);
      const logs = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
      expect(logs.some((l) => l.msg === 'request completed' && l.res?.statusCode === 200 && typeof l.responseTime === 'number')).toBe(true);
      expect(logs.some((l) => l.msg === 'shutting down: draining in-flight requests')).toBe(true);
    } finally {
      p.kill('SIGKILL');
      await env.close();
    }
  });
});
