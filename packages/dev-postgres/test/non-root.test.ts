import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const tsx = path.resolve(here, '../../../node_modules/tsx/dist/cli.mjs');
const fixture = path.join(here, 'fixtures/start-throwaway.ts');

it('starts a throwaway embedded Postgres as a normal (non-root) user', async () => {
  const isRoot = process.getuid?.() === 0;
  // As root, prove the non-root path by running the same code as `nobody`; otherwise we already are one.
  // (A checkout inside a folder `nobody` cannot enter leaves only the root path to run.)
  const nobodyCanRead =
    isRoot && (await run('runuser', ['-u', 'nobody', '--', 'test', '-r', fixture]).then(() => true, () => false));
  if (isRoot && !nobodyCanRead) console.warn(`nobody cannot read ${fixture}: running the start as root instead`);
  const [cmd, args] = nobodyCanRead
    ? ['runuser', ['-u', 'nobody', '--', process.execPath, tsx, fixture]]
    : [process.execPath, [tsx, fixture]];
  const { stdout } = await run(cmd as string, args as string[], {
    cwd: path.resolve(here, '..'),
    env: { ...process.env, HOME: '/tmp', TSX_DISABLE_CACHE: '1' },
    timeout: 60_000,
  });
  const out = JSON.parse(stdout.trim().split('\n').pop() ?? '{}');
  expect(out).toMatchObject({ owned: true, user: 'postgres' });
  if (nobodyCanRead || !isRoot) expect(out.uid).not.toBe(0);
});
