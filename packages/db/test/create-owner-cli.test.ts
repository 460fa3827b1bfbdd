/**
 * The owner command as docs/deployment.md gives it: `pnpm --filter @guardtrace/db create-owner --
 * --base-url …`. pnpm passes the `--` on to the script, which must read the options after it.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const tsx = createRequire(import.meta.url).resolve('tsx');
const run = (args: string[], databaseUrl = '') =>
  spawnSync(process.execPath, ['--import', tsx, path.join(here, '../src/create-owner-main.ts'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });

describe('create-owner', () => {
  it('reads its options after the `--` pnpm passes on, as without it', () => {
    for (const args of [['--', '--base-url', 'https://guardtrace.example.com'], ['--base-url', 'https://guardtrace.example.com']]) {
      const r = run(args);
      // The options parsed: what stops it is the database URL, not an argument.
      expect(r.stderr).not.toContain('ERR_PARSE_ARGS');
      expect(r.stderr).toContain('DATABASE_URL is not set');
      expect(r.status).toBe(2);
    }
  });

  it('names a base URL that is not http(s)', () => {
    const r = run(['--', '--base-url', 'guardtrace.example.com'], 'postgres://u@127.0.0.1:1/x');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('must start with http:// or https://');
  });
});
