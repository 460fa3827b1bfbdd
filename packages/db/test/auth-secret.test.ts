import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keptAuthSecret } from '../src/auth-secret.ts';
import { ensureDatabase, startAuthSecret } from '../src/dev.ts';

// `npm start`'s cookie secret (scripts/system.ts calls startAuthSecret on the database it started):
// kept in the data folder, so a restart signs nobody out.
const base = await fs.mkdtemp(path.join(os.tmpdir(), 'gt-auth-secret-'));
await fs.chmod(base, 0o755);
afterAll(() => fs.rm(base, { recursive: true, force: true }));

describe('the cookie secret of npm start', () => {
  it('is made on the first start in the embedded data folder (0600) and the same on the next start', async () => {
    const dataDir = path.join(base, 'pg');
    const first = await ensureDatabase({ dataDir });
    const made = await startAuthSecret(first);
    await first.close();
    expect(made.source).toBe('created');
    expect(made.file).toBe(path.join(dataDir, 'auth-secret'));
    expect(made.secret.length).toBeGreaterThanOrEqual(32);
    expect((await fs.stat(path.join(dataDir, 'auth-secret'))).mode & 0o777).toBe(0o600);

    // A restart on the same folder: Postgres starts with the file in its folder, and the secret is kept.
    const second = await ensureDatabase({ dataDir });
    const again = await startAuthSecret(second);
    await second.close();
    expect(again).toEqual({ secret: made.secret, source: 'kept', file: made.file });

    // GUARDTRACE_AUTH_SECRET wins, and the kept one stays as it was.
    const explicit = 'x'.repeat(40);
    expect(await startAuthSecret({ url: 'postgres://unused', source: 'embedded', dataDir, close: async () => {} }, explicit)).toEqual({
      secret: explicit,
      source: 'GUARDTRACE_AUTH_SECRET',
    });
    expect((await fs.readFile(made.file as string, 'utf8')).trim()).toBe(made.secret);
  });

  it('two starts at once agree on one secret', async () => {
    const folder = path.join(base, 'race');
    const all = await Promise.all(Array.from({ length: 8 }, () => keptAuthSecret({ folder })));
    expect(new Set(all.map((s) => s.secret)).size).toBe(1);
    expect(all.filter((s) => s.source === 'created')).toHaveLength(1);
    expect((await fs.readdir(folder)).sort()).toEqual(['auth-secret']);
  });

  it('refuses a file that holds no usable secret, naming it, and leaves it as it is', async () => {
    const folder = path.join(base, 'short');
    await fs.mkdir(folder);
    await fs.writeFile(path.join(folder, 'auth-secret'), 'too short\n');
    await expect(keptAuthSecret({ folder })).rejects.toThrow(/short\/auth-secret holds no usable cookie secret \(32\+ characters expected, found 9\)/);
    expect(await fs.readFile(path.join(folder, 'auth-secret'), 'utf8')).toBe('too short\n');
  });
});
