/** The web app's account settings, and the serve script's refusals. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { accountsEnv } from '../src/env.ts';
import { isLoopback } from '../src/server/auth.ts';

describe('accountsEnv', () => {
  const SECRET = 'x'.repeat(32);
  it('needs a secret of 32+ characters, and names the variable when it is missing or short', () => {
    expect(() => accountsEnv({})).toThrow(/GUARDTRACE_AUTH_SECRET: is required/);
    expect(() => accountsEnv({ GUARDTRACE_AUTH_SECRET: 'short' })).toThrow(/GUARDTRACE_AUTH_SECRET: must be at least 32 characters/);
  });

  it('defaults the base URL to the listen address, and trusts both loopback names there', () => {
    const env = accountsEnv({ GUARDTRACE_AUTH_SECRET: SECRET, PORT: '4000' });
    expect(env.GUARDTRACE_BASE_URL).toBe('http://127.0.0.1:4000');
    expect(env.trustedOrigins).toEqual(['http://127.0.0.1:4000', 'http://localhost:4000', 'http://[::1]:4000']);
    expect(env.GUARDTRACE_SIGNUP).toBe('invite');
    expect(env.GUARDTRACE_TRUSTED_PROXIES).toEqual([]);
  });

  it('takes a public https base URL as the only trusted origin, and checks the other settings', () => {
    const env = accountsEnv({
      GUARDTRACE_AUTH_SECRET: SECRET,
      GUARDTRACE_BASE_URL: 'https://guardtrace.example.com/',
      GUARDTRACE_TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.1',
    });
    expect(env.GUARDTRACE_BASE_URL).toBe('https://guardtrace.example.com');
    expect(env.trustedOrigins).toEqual(['https://guardtrace.example.com']);
    expect(env.GUARDTRACE_TRUSTED_PROXIES).toEqual(['10.0.0.0/8', '192.168.1.1']);
    expect(() => accountsEnv({ GUARDTRACE_AUTH_SECRET: SECRET, GUARDTRACE_BASE_URL: 'ftp://x' })).toThrow(/GUARDTRACE_BASE_URL: must be an http/);
    expect(() => accountsEnv({ GUARDTRACE_AUTH_SECRET: SECRET, GUARDTRACE_SIGNUP: 'maybe' })).toThrow(/GUARDTRACE_SIGNUP/);
  });
});

describe('isLoopback', () => {
  it('knows loopback addresses', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1']) expect(isLoopback(h)).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.5', 'example.com']) expect(isLoopback(h)).toBe(false);
  });
});

describe('scripts/serve.ts', () => {
  it('refuses to serve beyond loopback without an auth secret and base URL, before starting anything', () => {
    const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
    const tsx = path.resolve(webDir, '../../node_modules/tsx/dist/cli.mjs');
    const run = spawnSync(process.execPath, [tsx, 'scripts/serve.ts'], {
      cwd: webDir,
      env: { ...process.env, GUARDTRACE_WEB_HOST: '0.0.0.0', GUARDTRACE_AUTH_SECRET: '', GUARDTRACE_BASE_URL: '', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/refusing to serve on 0\.0\.0\.0 without GUARDTRACE_AUTH_SECRET and GUARDTRACE_BASE_URL/);
  });

  it('refuses to start without DATABASE_URL: production never starts a database of its own', () => {
    const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
    const tsx = path.resolve(webDir, '../../node_modules/tsx/dist/cli.mjs');
    const env = { ...process.env };
    delete env.DATABASE_URL;
    const run = spawnSync(process.execPath, [tsx, 'scripts/serve.ts'], { cwd: webDir, env, encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/DATABASE_URL: is required/);
  });

  it("refuses to start with a wrong setting of the server's, naming it (not a server whose pages fail later)", () => {
    const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
    const tsx = path.resolve(webDir, '../../node_modules/tsx/dist/cli.mjs');
    const run = spawnSync(process.execPath, [tsx, 'scripts/serve.ts'], {
      cwd: webDir,
      env: { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', DATABASE_READ_URL: 'mysql://x', GUARDTRACE_READ_MAX_LAG_SECONDS: 'abc' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/DATABASE_READ_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/);
    expect(run.stderr).toMatch(/GUARDTRACE_READ_MAX_LAG_SECONDS/);
  });
});
