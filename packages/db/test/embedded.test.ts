import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureDatabase } from '../src/dev.ts';

const base = await fs.mkdtemp(path.join(os.tmpdir(), 'gt-embedded-'));
await fs.chmod(base, 0o755);
afterAll(() => fs.rm(base, { recursive: true, force: true }));

async function count(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query('SELECT count(*)::int AS n FROM projects');
    return r.rows[0].n;
  } finally {
    await c.end();
  }
}

describe('embedded Postgres default', () => {
  it('initialises a data folder, keeps data across restarts, and reuses a running server', async () => {
    const dataDir = path.join(base, 'pg');
    const first = await ensureDatabase({ dataDir });
    expect(first.source).toBe('embedded');
    const c = new pg.Client({ connectionString: first.url });
    await c.connect();
    await c.query("INSERT INTO projects (id, name) VALUES (gen_random_uuid(), 'kept')");
    // The ingest settings it starts with (docs/collector.md, "Postgres settings").
    const settings = await c.query(
      "SELECT current_setting('wal_init_zero') AS wal_init_zero, current_setting('shared_buffers') AS shared_buffers",
    );
    expect(settings.rows[0]).toEqual({ wal_init_zero: 'off', shared_buffers: '512MB' });
    await c.end();

    // A second app on the same folder while the first runs: reuses the server, does not own it.
    const second = await ensureDatabase({ dataDir });
    expect(second.url).toBe(first.url);
    await second.close();
    expect(await count(first.url)).toBe(1);

    await first.close();
    await expect(count(first.url)).rejects.toThrow();

    const third = await ensureDatabase({ dataDir });
    expect(await count(third.url)).toBe(1);
    await third.close();
  });
});
