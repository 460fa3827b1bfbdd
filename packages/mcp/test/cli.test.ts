/** The command line as users meet it: the bin (a child process) with good and bad input. */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../src/version.ts';
import { BIN, FS_SERVER, PKG, tempWorkspace } from './helpers.ts';

const run = (args: string[]) => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', BIN, ...args], { cwd: PKG, encoding: 'utf8', input: '', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

describe('guardtrace-mcp command line', () => {
  it('prints its usage with --help and its version with --version', () => {
    const help = run(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('Usage: guardtrace-mcp [options] -- <command> [args...]');
    expect(help.out).toContain('--http');
    const version = run(['--version']);
    expect(version.out.trim()).toBe(VERSION);
    expect(JSON.parse(readFileSync(path.join(PKG, 'package.json'), 'utf8')).version).toBe(VERSION);
  });

  it('says what is wrong with the command line', () => {
    const none = run([]);
    expect(none.code).toBe(2);
    expect(none.err).toContain('no upstream server: put the command that starts it after "--"');
    const port = run(['--http', '--port', 'eighty', '--', 'x']);
    expect(port.code).toBe(2);
    expect(port.err).toContain('--port: expected an integer 0-65535, got "eighty"');
    expect(run(['--verbose', '--', 'x']).err).toMatch(/Unknown option '--verbose'/);
  });

  it('refuses a bad config before starting anything, naming the field', () => {
    const dir = tempWorkspace();
    const file = path.join(dir, 'gt.json');
    writeFileSync(file, JSON.stringify({ budgets: { sessionRetries: -1 } }));
    const r = run(['--config', file, '--', 'no-such-command-is-started']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`invalid config ${file}`);
    expect(r.err).toMatch(/budgets\.sessionRetries: .*>=0/);
  });

  it('refuses a config for a tool the upstream server does not have, listing the ones it has', () => {
    const dir = tempWorkspace();
    const file = path.join(dir, 'gt.json');
    writeFileSync(file, JSON.stringify({ tools: { wrte_file: { locks: ['path'] } } }));
    const r = run(['--config', file, '--', process.execPath, FS_SERVER, dir]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/config tools\.wrte_file: the upstream server has no such tool \(it has: .*write_file/);
  });

  it('says so when the upstream server cannot be started', () => {
    const r = run(['--', path.join(tempWorkspace(), 'missing-server')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/guardtrace-mcp: .*(ENOENT|Connection closed)/);
  });
});
