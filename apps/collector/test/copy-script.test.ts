/** Several COPYs and statements in one round trip, and what a failure in the middle leaves. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CopyBuffer } from '../src/copy.ts';
import { runCopyScript } from '../src/copy-script.ts';
import { type Env, setupDatabase } from './helpers.ts';

let env: Env;
beforeAll(async () => {
  env = await setupDatabase();
});
afterAll(async () => {
  await env?.close();
});

const text = (rows: string[]) => {
  const b = new CopyBuffer();
  for (const r of rows) b.write(`${r}\n`);
  return b.finish();
};

it('runs every COPY with its data and the statements between them, in order', async () => {
  const client = await env.sql.connect();
  try {
    await client.query('CREATE TEMP TABLE a (n int, s text); CREATE TEMP TABLE b (n int)');
    const many = Array.from({ length: 50_000 }, (_, i) => `${i}\trow ${i} ☃`); // several 1 MiB chunks
    await runCopyScript(
      client,
      'BEGIN; COPY a (n, s) FROM STDIN; INSERT INTO b SELECT count(*) FROM a; COPY b (n) FROM STDIN; COMMIT',
      [text(many), text(['7', '8'])],
    );
    expect((await client.query('SELECT count(*)::int AS n, max(s) AS s FROM a')).rows[0]).toEqual({ n: 50_000, s: 'row 9999 ☃' });
    expect((await client.query('SELECT array_agg(n ORDER BY n) AS ns FROM b')).rows[0].ns).toEqual([7, 8, 50_000]);
  } finally {
    client.release();
  }
});

it('fails with the statement error when a COPY row is bad, skips the rest, and leaves the connection usable', async () => {
  const client = await env.sql.connect();
  try {
    await client.query('CREATE TEMP TABLE c (n int); CREATE TEMP TABLE d (n int)');
    const run = runCopyScript(client, 'BEGIN; COPY c (n) FROM STDIN; COPY d (n) FROM STDIN; COMMIT', [
      text(['1', 'not a number', '3']),
      text(['4']),
    ]);
    await expect(run).rejects.toMatchObject({ code: '22P02' });
    await client.query('ROLLBACK');
    expect((await client.query('SELECT (SELECT count(*) FROM c)::int AS c, (SELECT count(*) FROM d)::int AS d')).rows[0]).toEqual({ c: 0, d: 0 });
  } finally {
    client.release();
  }
});
