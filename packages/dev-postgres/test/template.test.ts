/**
 * Prepared clusters: built once per key, even when several processes ask at once; each copy is
 * a cluster of its own that starts with what `prepare` made.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { connectionUrl, createDatabaseIfMissing, startEmbeddedPostgres } from '../src/index.ts';
import { type ClusterTemplate, copyTemplateCluster } from '../src/template.ts';

const root = await fs.mkdtemp(path.join(os.tmpdir(), 'gt-template-'));
await fs.chmod(root, 0o755);
afterAll(() => fs.rm(root, { recursive: true, force: true }));

function template(key: string, calls: string[]): ClusterTemplate {
  return {
    key,
    prepare: async (url) => {
      calls.push(key);
      const db = await createDatabaseIfMissing(url, 'prepared');
      const client = new pg.Client({ connectionString: db });
      await client.connect();
      await client.query('CREATE TABLE made_by_prepare (key text)');
      await client.query('INSERT INTO made_by_prepare VALUES ($1)', [key]);
      await client.end();
    },
  };
}

async function readKey(dataDir: string): Promise<string> {
  const server = await startEmbeddedPostgres({ dataDir, persistent: true });
  try {
    const client = new pg.Client({ connectionString: connectionUrl(server.port, 'prepared') });
    await client.connect();
    const { rows } = await client.query<{ key: string }>('SELECT key FROM made_by_prepare');
    await client.query('INSERT INTO made_by_prepare VALUES ($1)', ['written by this copy']);
    await client.end();
    return rows.map((r) => r.key).join(',');
  } finally {
    await server.stop();
  }
}

describe('copyTemplateCluster', () => {
  it('prepares a key once for concurrent callers, and every copy is its own cluster', async () => {
    const calls: string[] = [];
    const copies = ['a', 'b'].map((n) => path.join(root, `copy-${n}`));
    await Promise.all(copies.map((dir) => copyTemplateCluster(template('first', calls), dir, root)));
    // Two builds may race; all copies come from the one template that won the rename.
    expect(calls.length).toBeGreaterThanOrEqual(1);
    const builtBefore = calls.length;

    // A write into one copy is not seen by later copies of the template.
    expect(await readKey(copies[0] as string)).toBe('first');
    const later = path.join(root, 'copy-later');
    await copyTemplateCluster(template('first', calls), later, root);
    expect(calls.length).toBe(builtBefore);
    expect(await readKey(later)).toBe('first');

    const templates = (await fs.readdir(root)).filter((n) => n.startsWith('guardtrace-pgtemplate-'));
    expect(templates).toHaveLength(1); // no build folder left behind
  });

  it('builds another template for another key', async () => {
    const calls: string[] = [];
    const dir = path.join(root, 'copy-second');
    await copyTemplateCluster(template('second', calls), dir, root);
    expect(calls).toEqual(['second']);
    expect(await readKey(dir)).toBe('second');
  });
});
