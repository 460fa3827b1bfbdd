/**
 * The user's tools module of the replay tests (v1 and the versions a test changes it to): read_file
 * with workspace and existence guards over a throwaway workspace, query_db with SQL heuristics,
 * open_ticket with a title predicate. In "production" the tools run; a replay must never run them.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { fileExists, insideWorkspace } from '../src/guards/files.ts';
import { sqlHeuristics } from '../src/guards/sql.ts';
import { type DatasetItem, type Guardtrace, predicate } from '../src/index.ts';
import { itemsFromSpans } from './dataset-items.ts';
import { traced } from './helpers.ts';

export const root = mkdtempSync(path.join(tmpdir(), 'gt-replay-'));
for (const f of ['src/a.ts', 'docs/b.md', 'src/c.ts']) {
  mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
  writeFileSync(path.join(root, f), 'x\n');
}

export interface Version { field: 'path' | 'file'; folders: string[]; largeTables: string[]; ticketMessage?: string }
export const V1: Version = { field: 'path', folders: ['src', 'docs'], largeTables: ['events'] };

/** The user's tools module: the tools registered on a Guardtrace instance. */
export function registerTools(gt: Guardtrace, v: Version, production = false): Guardtrace {
  // in production the tools run; a replay must never run them
  const run = (what: string) => () => {
    if (!production) throw new Error(`a replay ran ${what}`);
    return 'done';
  };
  const pathOf = (a: Record<string, string>) => a[v.field] as string;
  gt.tool({
    name: 'read_file', description: 'Reads a file', flags: { readOnly: true }, autoRepair: false,
    schema: z.object({ [v.field]: z.string() }),
    guards: [insideWorkspace({ root, paths: pathOf, folders: v.folders }), fileExists({ root, paths: pathOf })],
    execute: run('read_file'),
  });
  gt.tool({
    name: 'query_db', description: 'Runs SQL', flags: { readOnly: true },
    schema: z.object({ sql: z.string() }),
    guards: [sqlHeuristics<{ sql: string }>({ sql: (a) => a.sql, largeTables: v.largeTables })],
    execute: run('query_db'),
  });
  gt.tool({
    name: 'open_ticket', description: 'Opens a ticket',
    schema: z.object({ title: z.string() }),
    guards: [predicate<{ title: string }>({ name: 'title_length', test: (a) => a.title.length <= 20, message: v.ticketMessage ?? 'title too long' })],
    execute: run('open_ticket'),
  });
  return gt;
}

export const CALLS: [string, Record<string, string>][] = [
  ['read_file', { path: 'src/a.ts' }],
  ['read_file', { path: 'docs/b.md' }],
  ['read_file', { path: '../etc/passwd' }],
  ['query_db', { sql: 'SELECT id FROM users' }],
  ['query_db', { sql: 'SELECT * FROM users' }],
  ['query_db', { sql: 'SELECT * FROM events' }],
  ['query_db', { sql: 'DELETE FROM users' }],
  ['open_ticket', { title: 'a title that is far too long' }],
];

/** Production under v1: each call in a session of its own, recorded as spans, saved as items. */
export async function record(): Promise<DatasetItem[]> {
  const { gt, spans } = traced();
  registerTools(gt, V1, true);
  let i = 0;
  for (const [tool, args] of CALLS) {
    const s = gt.session({ id: `sess-${i++}`, agentName: 'agent' });
    await s.callTool(tool, args);
    await s.end();
  }
  return itemsFromSpans(spans());
}

export const byArgs = (items: DatasetItem[], want: Record<string, string>) => items.find((x) => JSON.stringify(x.attempts[0]?.arguments) === JSON.stringify(want)) as DatasetItem;
