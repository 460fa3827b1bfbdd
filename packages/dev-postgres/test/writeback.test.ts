/** The embedded cluster's writeback pacer flushes the files written since its last pass, and only those. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startWritebackPacer } from '../src/writeback.ts';

const base = await fs.mkdtemp(path.join(os.tmpdir(), 'gt-writeback-'));
afterAll(() => fs.rm(base, { recursive: true, force: true }));

const until = async (check: () => boolean, ms = 5_000) => {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('writeback pacer', () => {
  it('flushes relation files written since the last pass, skips untouched ones and survives dropped folders', async () => {
    const db = path.join(base, 'base', '16384');
    await fs.mkdir(db, { recursive: true });
    await fs.mkdir(path.join(base, 'global'));
    const old = path.join(db, '1000');
    const hot = path.join(db, '2000');
    await fs.writeFile(old, 'untouched');
    await fs.writeFile(hot, 'first');
    // Any fixed time: the pacer compares each file's times with their own earlier values.
    const past = new Date('2020-01-01T00:00:00Z');
    await fs.utimes(old, past, past);
    await fs.utimes(hot, past, past);

    const pacer = startWritebackPacer(base, 50);
    try {
      await fs.appendFile(hot, 'written after start');
      await until(() => pacer.lastFlushed.includes(hot));
      expect(pacer.lastFlushed).not.toContain(old);

      // A database dropped between passes: the pacer carries on with the others.
      const dropped = path.join(base, 'base', '16385');
      await fs.mkdir(dropped);
      await fs.writeFile(path.join(dropped, '3000'), 'x');
      await fs.rm(dropped, { recursive: true });
      const before = pacer.flushed;
      await fs.appendFile(hot, 'more');
      await until(() => pacer.flushed > before && pacer.lastFlushed.includes(hot));
    } finally {
      await pacer.stop();
    }
  });
});

describe('embedded cluster', () => {
  it('runs the pacer on a cluster it owns: a table written to is flushed within a pass or two', async () => {
    const { startThrowawayPostgres } = await import('../src/index.ts');
    const pg = (await import('pg')).default;
    const server = await startThrowawayPostgres();
    const c = new pg.Client({ connectionString: server.url });
    try {
      await c.connect();
      await c.query('CREATE TABLE paced (id int, note text)');
      await c.query("INSERT INTO paced SELECT g, repeat('x', 200) FROM generate_series(1, 5000) g");
      const rel = (await c.query("SELECT current_setting('data_directory') || '/' || pg_relation_filepath('paced') AS f")).rows[0].f;
      const pacer = server.writeback;
      expect(pacer).toBeDefined();
      await until(() => pacer?.lastFlushed.includes(rel) ?? false);
    } finally {
      await c.end();
      await server.stop();
    }
  });
});
