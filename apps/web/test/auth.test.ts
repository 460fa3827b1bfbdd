/** The web app's sign-in rules: credentials, configuration, and the serve script's refusals. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { authEnv } from '../src/env.ts';
import { isAuthorized, isLoopback } from '../src/server/auth.ts';

const basic = (userPass: string) => `Basic ${Buffer.from(userPass, 'utf8').toString('base64')}`;
const PASSWORD = 'correct horse battery';

describe('isAuthorized', () => {
  it('lets everything through when no password is set', () => {
    expect(isAuthorized(undefined, 'admin', undefined)).toBe(true);
    expect(isAuthorized('Basic junk', 'admin', undefined)).toBe(true);
  });

  it('needs the configured user and password when one is set', () => {
    expect(isAuthorized(basic(`admin:${PASSWORD}`), 'admin', PASSWORD)).toBe(true);
    expect(isAuthorized(`basic  ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`, 'admin', PASSWORD)).toBe(true);
    expect(isAuthorized(basic('ädmin:pässwörd-long-enough'), 'ädmin', 'pässwörd-long-enough')).toBe(true);
    for (const header of [
      undefined,
      null,
      '',
      basic(`admin:${PASSWORD}x`),
      basic(`root:${PASSWORD}`),
      basic(`admin:${PASSWORD.slice(0, -1)}`),
      basic(PASSWORD),
      `Bearer ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`,
      'Basic not*base64',
    ]) {
      expect(isAuthorized(header, 'admin', PASSWORD)).toBe(false);
    }
  });
});

describe('authEnv', () => {
  it('defaults the user to admin, treats an empty password as none, and refuses short ones', () => {
    expect(authEnv({})).toEqual({ GUARDTRACE_WEB_USER: 'admin' });
    expect(authEnv({ GUARDTRACE_WEB_PASSWORD: '' })).toEqual({ GUARDTRACE_WEB_USER: 'admin' });
    expect(authEnv({ GUARDTRACE_WEB_USER: 'ops', GUARDTRACE_WEB_PASSWORD: PASSWORD })).toEqual({
      GUARDTRACE_WEB_USER: 'ops',
      GUARDTRACE_WEB_PASSWORD: PASSWORD,
    });
    expect(() => authEnv({ GUARDTRACE_WEB_PASSWORD: 'short' })).toThrow(/GUARDTRACE_WEB_PASSWORD: must be at least 12 characters/);
    expect(() => authEnv({ GUARDTRACE_WEB_USER: 'a:b', GUARDTRACE_WEB_PASSWORD: PASSWORD })).toThrow(/GUARDTRACE_WEB_USER: must not contain ":"/);
  });

  it('knows loopback addresses', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1']) expect(isLoopback(h)).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.5', 'example.com']) expect(isLoopback(h)).toBe(false);
  });
});

describe('scripts/serve.ts', () => {
  it('refuses to serve beyond loopback without a password, before starting anything', () => {
    const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
    const tsx = path.resolve(webDir, '../../node_modules/tsx/dist/cli.mjs');
    const run = spawnSync(process.execPath, [tsx, 'scripts/serve.ts'], {
      cwd: webDir,
      env: { ...process.env, GUARDTRACE_WEB_HOST: '0.0.0.0', GUARDTRACE_WEB_PASSWORD: '', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/refusing to serve on 0\.0\.0\.0 without a password.*GUARDTRACE_WEB_PASSWORD/);
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
});
