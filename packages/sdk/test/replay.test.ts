/**
 * Guard regression replay as a user runs it: sessions recorded through the real guards (schema,
 * files, SQL) of their tools module v1, turned into dataset items from the spans, replayed
 * against v2 (a field renamed, a folder removed, a table marked large) with the library entry.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fileExists, insideWorkspace } from '../src/guards/files.ts';
import { sqlHeuristics } from '../src/guards/sql.ts';
import { type DatasetItem, Guardtrace, predicate, TransientFailure } from '../src/index.ts';
import { expectNoGuardRegressions, failedBy, readDatasetFile, replayDataset, replayItem } from '../src/replay/index.ts';
import { itemsFromSpans } from './dataset-items.ts';
import { traced } from './helpers.ts';

const root = mkdtempSync(path.join(tmpdir(), 'gt-replay-'));
for (const f of ['src/a.ts', 'docs/b.md', 'src/c.ts']) {
  mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
  writeFileSync(path.join(root, f), 'x\n');
}

interface Version { field: 'path' | 'file'; folders: string[]; largeTables: string[]; ticketMessage?: string }
const V1: Version = { field: 'path', folders: ['src', 'docs'], largeTables: ['events'] };

/** The user's tools module: the tools registered on a Guardtrace instance. */
function registerTools(gt: Guardtrace, v: Version, production = false): Guardtrace {
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

const CALLS: [string, Record<string, string>][] = [
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
async function record(): Promise<DatasetItem[]> {
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

const byArgs = (items: DatasetItem[], want: Record<string, string>) => items.find((x) => JSON.stringify(x.attempts[0]?.arguments) === JSON.stringify(want)) as DatasetItem;

describe('replay against the same definition', () => {
  it('every recorded call replays unchanged, with the same hash', async () => {
    const items = await record();
    expect(items).toHaveLength(CALLS.length);
    const gt = registerTools(new Guardtrace({ tracing: false }), V1);
    const report = await expectNoGuardRegressions(gt, items);
    expect(report.summary).toMatchObject({ calls: 8, attempts: 8, unchanged: 8 });
    const one = await replayItem(gt, byArgs(items, { path: '../etc/passwd' }));
    expect(one.map((r) => [r.change, r.definition.changes, r.definition.recordedHash === r.definition.currentHash])).toEqual([['unchanged', [], true]]);
  });
});

describe('replay against a changed definition', () => {
  it('names exactly the calls the rename, the removed folder and the large table change, with the feedback the model would now see', async () => {
    const items = await record();
    const gt = registerTools(new Guardtrace({ tracing: false }), { field: 'file', folders: ['src'], largeTables: ['events', 'users'], ticketMessage: 'titles are at most 20 characters' });
    const report = await replayDataset(gt, items, { label: 'v2', datasetId: 'ds1', failOn: ['newly_rejected'], now: () => new Date('2026-12-01T00:00:00Z') });
    expect(report).toMatchObject({ format: 'guardtrace.replay-run/v1', datasetId: 'ds1', label: 'v2', startedAt: '2026-12-01T00:00:00.000Z', options: { execute: 'none', failOn: ['newly_rejected'] } });
    expect(report.summary).toEqual({ calls: 8, attempts: 8, unchanged: 3, newly_rejected: 3, newly_allowed: 0, class_changed: 1, feedback_changed: 1, not_replayed: 0 });
    const changed = report.results.map((r) => [r.tool, r.arguments, r.change, r.now?.failureClass ?? null]);
    expect(changed).toEqual([
      ['read_file', { path: 'src/a.ts' }, 'newly_rejected', 'invalid_arguments'],
      ['read_file', { path: 'docs/b.md' }, 'newly_rejected', 'invalid_arguments'],
      ['read_file', { path: '../etc/passwd' }, 'class_changed', 'invalid_arguments'],
      ['query_db', { sql: 'SELECT * FROM users' }, 'newly_rejected', 'guard_violation'],
      ['open_ticket', { title: 'a title that is far too long' }, 'feedback_changed', 'guard_violation'],
    ]);
    const [srcRead, , , star, ticket] = report.results;
    expect(srcRead?.now?.feedback).toContain('file');
    expect(srcRead?.definition.changes).toEqual([
      'schema: field "path" renamed? removed "path", added "file"',
      'guard path_inside_workspace: option folders changed ["src","docs"] → ["src"]',
    ]);
    expect(star?.now?.feedback).toBe('TOOL CALL REJECTED: SELECT * on large table users. Name the columns you need and add a LIMIT.');
    expect(star?.recorded).toMatchObject({ allowed: true, decision: 'proceed', feedback: null });
    expect(star?.definition.changes).toEqual(['guard sql_heuristics: option largeTables changed ["events"] → ["events","users"]']);
    expect([ticket?.recorded.feedback, ticket?.now?.feedback]).toEqual(['TOOL CALL REJECTED: title too long', 'TOOL CALL REJECTED: titles are at most 20 characters']);
    expect(srcRead?.stepPath).toBe(`/sessions/sess-0?call=${srcRead?.itemId.split(':')[1]}`);
  });

  it('only the folder removed: the docs read is newly rejected with the folder feedback; the src read is unchanged', async () => {
    const items = await record();
    const gt = registerTools(new Guardtrace({ tracing: false }), { ...V1, folders: ['src'] });
    const report = await replayDataset(gt, items);
    expect(report.results.map((r) => [r.arguments, r.change])).toEqual([[{ path: 'docs/b.md' }, 'newly_rejected']]);
    expect(report.results[0]?.now).toMatchObject({
      allowed: false, decision: 'replan', failureClass: 'guard_violation',
      feedback: 'TOOL CALL REJECTED: Path "docs/b.md" is outside the folders this tool may use: src. Use a path inside one of them.',
      checks: [{ guard: 'path_inside_workspace', stage: 'logical', verdict: 'fail', pointers: ['/path'] }],
    });
    await expect(expectNoGuardRegressions(gt, items)).rejects.toThrow(/newly_rejected: read_file \(call .+, attempt 1, session sess-1\)[\s\S]*definition: guard path_inside_workspace: option folders changed \["src","docs"\] → \["src"\]/);
    await expect(expectNoGuardRegressions(gt, items, { allow: ['newly_rejected'] })).resolves.toMatchObject({ summary: { newly_rejected: 1 } });
  });

  it('a table no longer large lets SELECT * through: newly allowed', async () => {
    const items = await record();
    const gt = registerTools(new Guardtrace({ tracing: false }), { ...V1, largeTables: [] });
    const report = await replayDataset(gt, items);
    expect(report.results.map((r) => [r.arguments, r.change])).toEqual([[{ sql: 'SELECT * FROM events' }, 'newly_allowed']]);
  });
});

describe('what cannot be replayed', () => {
  it('says why: unknown tool, arguments not captured or inexact, a recorded hash without its summary', async () => {
    const items = await record();
    const gt = registerTools(new Guardtrace({ tracing: false }), { ...V1, largeTables: ['events', 'users'] });
    const base = byArgs(items, { sql: 'SELECT * FROM users' });
    const att = base.attempts[0]!;
    const variants: DatasetItem[] = [
      { ...base, tool: 'drop_db', attempts: [{ ...att, tool: 'drop_db' }] },
      { ...base, attempts: [{ ...att, arguments: null, argumentsText: null }] },
      { ...base, attempts: [{ ...att, argumentsInexact: true }] },
      { ...base, definition: { hash: '0123456789abcdef', summary: null } },
      { ...base, attempts: [{ ...att, outcome: 'rejected', decision: 'escalate_human', failureClass: 'budget_exhausted', checks: [{ guard: 'circuit_breaker', stage: 'logical', verdict: 'fail', reason: 'Circuit open', failureClass: 'budget_exhausted', pointers: [] }] }] },
    ];
    const rs = (await Promise.all(variants.map((v) => replayItem(gt, v)))).map((r) => r[0]!);
    expect(rs.map((r) => r.change)).toEqual(['not_replayed', 'not_replayed', 'not_replayed', 'newly_rejected', 'not_replayed']);
    expect(rs[4]?.error).toBe("rejected by circuit_breaker, which the runtime's state at the time decided (an open circuit after repeated failures), not the guards");
    expect(rs[0]?.error).toBe('unknown tool "drop_db": not registered in the Guardtrace instance replayed against (registered: read_file, query_db, open_ticket)');
    expect(rs[1]?.error).toMatch(/^arguments not captured/);
    expect(rs[2]?.error).toMatch(/^arguments inexact/);
    expect(rs[3]?.definition.changes).toEqual(['definition changed (recorded summary unavailable)']);
  });

  it('does not replay arguments the SDK redacted or sanitized, even in an item that does not flag them', async () => {
    const items = await record();
    const gt = registerTools(new Guardtrace({ tracing: false }), V1);
    const base = byArgs(items, { sql: 'SELECT id FROM users' });
    const att = base.attempts[0]!;
    // what the SDK's sanitizer leaves in a recorded argument text (a key, a named secret, an internal host)
    const marked = ['SELECT id FROM users WHERE key = \'[REDACTED KEY]\'', 'SELECT [REDACTED]', 'SELECT id FROM [internal-host].users'];
    const rs = await Promise.all(marked.map((sql) => replayItem(gt, { ...base, attempts: [{ ...att, arguments: { sql }, argumentsText: JSON.stringify({ sql }), argumentsInexact: false }] })));
    expect(rs.map((r) => [r[0]?.change, r[0]?.error])).toEqual([
      ['not_replayed', 'arguments inexact: redacted, sanitized or shortened when recorded (they hold "[REDACTED..."): a replay of them would not be exact'],
      ['not_replayed', 'arguments inexact: redacted, sanitized or shortened when recorded (they hold "[REDACTED..."): a replay of them would not be exact'],
      ['not_replayed', 'arguments inexact: redacted, sanitized or shortened when recorded (they hold "[internal-host]..."): a replay of them would not be exact'],
    ]);
    // an older item, without the text: its parsed arguments are looked at
    const old = await replayItem(gt, { ...base, attempts: [{ ...att, arguments: { sql: 'SELECT [REDACTED]' }, argumentsText: undefined }] });
    expect(old[0]?.change).toBe('not_replayed');
  });

  it('sends the argument text as recorded: its key order (which feedback echoes), broken JSON as the model sent it', async () => {
    const { gt, spans } = traced();
    gt.tool({ name: 'invoice', description: 'i', schema: z.strictObject({ customer: z.string(), amount: z.number().positive() }), execute: () => 'ok' });
    const s = gt.session({ id: 'order', agentName: 'agent' });
    expect((await s.callTool('invoice', { customer: 'acme', amount: -5 })).ok).toBe(false);
    s.toolCall('invoice').end();
    expect((await s.callTool('invoice', '{"customer": "acme", ')).ok).toBe(false);
    await s.end();
    const items = itemsFromSpans(spans());
    const same = new Guardtrace({ tracing: false });
    same.tool({ name: 'invoice', description: 'i', schema: z.strictObject({ customer: z.string(), amount: z.number().positive() }), execute: () => 'ok' });
    // as the collector stores them: parsed arguments in jsonb's key order, broken JSON as null
    const stored = items.map((x) => ({ ...x, attempts: x.attempts.map((a) => ({ ...a, arguments: a.arguments && typeof a.arguments === 'object' ? { amount: -5, customer: 'acme' } : null })) }));
    const report = await replayDataset(same, stored);
    expect(report.results.map((r) => [r.change, r.error ?? r.now?.feedback])).toEqual([]);
    expect(report.summary).toMatchObject({ calls: 2, attempts: 2, unchanged: 2 });
  });

  it('replays an attempt under the unknown tool name it called, not the name the call was corrected to', async () => {
    const { gt, spans } = traced();
    registerTools(gt, V1, true);
    const s = gt.session({ id: 'renamed', agentName: 'agent' });
    // read_file turns auto-repair off: the model corrects the name; query_db repairs it in code
    const c = s.toolCall('read_fil');
    expect((await c.attempt({ path: 'src/a.ts' })).ok).toBe(false);
    expect((await c.attempt({ path: 'src/a.ts' }, { tool: 'read_file' })).ok).toBe(true);
    expect(await s.callTool('query_dbb', { sql: 'SELECT id FROM users' })).toMatchObject({ ok: true, tool: 'query_db' });
    await s.end();
    const items = itemsFromSpans(spans());
    expect(items.map((x) => [x.tool, x.attempts.map((a) => a.tool)])).toEqual([['read_file', ['read_fil', 'read_file']], ['query_db', ['query_dbb', 'query_db']]]);
    const same = registerTools(new Guardtrace({ tracing: false }), V1);
    expect((await replayDataset(same, items)).summary).toMatchObject({ calls: 2, attempts: 4, unchanged: 4 });
    // an item saved before attempts named their tool: not replayed (never a false "newly allowed")
    const older = items.map((x) => ({ ...x, attempts: x.attempts.map(({ tool: _t, ...a }) => a) }));
    const report = await replayDataset(same, older);
    expect(report.summary).toMatchObject({ calls: 2, attempts: 4, not_replayed: 2, unchanged: 2, newly_allowed: 0 });
    expect(report.results[0]?.error).toMatch(/^the tool name this attempt called is not in the item \(it was rejected as an unknown tool and the call took the corrected name "read_file"/);
  });

  it('counts the calls it could not replay apart from the ones that changed', async () => {
    const items = await record();
    const gt = registerTools(new Guardtrace({ tracing: false }), { ...V1, folders: ['src'] });
    const base = byArgs(items, { path: 'src/a.ts' });
    const fixture = [byArgs(items, { path: 'docs/b.md' }), base, { ...base, attempts: [{ ...base.attempts[0]!, arguments: null, argumentsText: null }] }];
    await expect(expectNoGuardRegressions(gt, fixture)).rejects.toThrow(/^Guard regressions: 1 of 3 attempts \(3 calls\) changed, 1 not replayed \(newly_rejected 1, not_replayed 1\)\n/);
  });

  it('reads NDJSON line by line: a bad line becomes not_replayed with its line number, the others replay', async () => {
    const items = await record();
    const dir = mkdtempSync(path.join(tmpdir(), 'gt-ds-'));
    const file = path.join(dir, 'items.ndjson');
    const lines = items.map((x) => JSON.stringify(x));
    lines.splice(2, 0, '{"format": "guardtrace.dataset-item/v1", "tool": ', '', '[1,2]', JSON.stringify({ format: 'other/v9', tool: 'x', attempts: [] }));
    writeFileSync(file, `${lines.join('\n')}\n`);
    const gt = registerTools(new Guardtrace({ tracing: false }), V1);
    const report = await replayDataset(gt, readDatasetFile(file));
    expect(report.summary).toMatchObject({ calls: 11, unchanged: 8, not_replayed: 3 });
    expect(report.results.map((r) => r.error)).toEqual([
      expect.stringMatching(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: not valid JSON: `)),
      `${file}:5: not a dataset item: expected a dataset item (a JSON object), got an array`,
      `${file}:6: not a dataset item: unknown format "other/v9" (expected "guardtrace.dataset-item/v1")`,
    ]);
    expect(report.results[0]?.itemId).toBe('line:3');
  });

  it('reads a pretty-printed fixture and a JSON array too; a missing file is a clear error', async () => {
    const items = await record();
    const dir = mkdtempSync(path.join(tmpdir(), 'gt-fx-'));
    writeFileSync(path.join(dir, 'one.json'), JSON.stringify(items[1], null, 2));
    writeFileSync(path.join(dir, 'all.json'), JSON.stringify(items, null, 2));
    const gt = registerTools(new Guardtrace({ tracing: false }), { ...V1, folders: ['src'] });
    await expect(expectNoGuardRegressions(gt, path.join(dir, 'one.json'))).rejects.toThrow(/1 of 1 attempts \(1 calls\) changed \(newly_rejected 1\)/);
    const all = await replayDataset(gt, readDatasetFile(path.join(dir, 'all.json')));
    expect(all.summary).toMatchObject({ calls: 8, newly_rejected: 1, unchanged: 7 });
    // a byte order mark, CRLF line ends; an empty fixture is an error, not a pass
    writeFileSync(path.join(dir, 'bom.ndjson'), `\uFEFF${items.map((x) => JSON.stringify(x)).join('\r\n')}\r\n`);
    expect((await replayDataset(gt, readDatasetFile(path.join(dir, 'bom.ndjson')))).summary).toMatchObject({ calls: 8, newly_rejected: 1, unchanged: 7 });
    writeFileSync(path.join(dir, 'empty.ndjson'), '\n');
    await expect(expectNoGuardRegressions(gt, path.join(dir, 'empty.ndjson'))).rejects.toThrow(`Guard regressions: nothing to replay: ${path.join(dir, 'empty.ndjson')} holds no recorded calls`);
    await expect(expectNoGuardRegressions(gt, path.join(dir, 'missing.ndjson'))).rejects.toThrow(`guardtrace: cannot read dataset file ${path.join(dir, 'missing.ndjson')}: no such file`);
  });
});

describe('calls of several attempts', () => {
  it('replays a model correction and an auto-repair in order, as the runtime made them', async () => {
    const { gt, spans } = traced();
    registerTools(gt, V1, true);
    const s = gt.session({ id: 'multi', agentName: 'agent' });
    const first = await s.callTool('query_db', { sql: 42 }, { callId: 'q1' });
    expect(first.ok).toBe(false);
    expect((await s.callTool('query_db', { sql: 'SELECT 1' }, { callId: 'q1' })).ok).toBe(true);
    // query_db is read-only: the misspelt argument is repaired in code
    const repaired = await s.callTool('query_db', { sqll: 'SELECT 2' }, { callId: 'q2' });
    expect(repaired.attempts.map((a) => a.decision)).toEqual(['auto_repair', 'proceed']);
    await s.end();
    const items = itemsFromSpans(spans());
    expect(items.map((x) => x.attempts.map((a) => a.decision))).toEqual([['reject_with_feedback', 'proceed'], ['auto_repair', 'proceed']]);

    const same = registerTools(new Guardtrace({ tracing: false }), V1);
    const unchanged = await replayDataset(same, items);
    expect(unchanged.summary).toMatchObject({ calls: 2, attempts: 4, unchanged: 4 });

    // auto-repair switched off: the call the model got through (repaired in code) is now rejected for
    // it to fix; the corrected attempt the runtime made then is not made now, and not the model's to replay
    const strict = new Guardtrace({ tracing: false, autoRepair: false });
    registerTools(strict, V1);
    const r = await replayItem(strict, items[1]!);
    expect(r.map((x) => [x.attempt, x.change, x.now?.decision ?? null])).toEqual([[1, 'newly_rejected', 'reject_with_feedback'], [2, 'not_replayed', null]]);
    expect(r[0]!.recorded).toMatchObject({ allowed: true, decision: 'auto_repair' });
    expect(r[1]!.error).toBe('a call the runtime made by itself after it repaired attempt 1 in code (auto_repair); attempt 1 is now rejected, not repaired, so this call is not made');
    const run = await replayDataset(strict, items, { failOn: ['newly_rejected'] });
    expect(run.summary).toMatchObject({ newly_rejected: 1, not_replayed: 1, unchanged: 2 });
    expect(failedBy(run)).toHaveLength(1);
  });

  it('a call the current tools repair in code is judged by what the repaired call then gets: through (with a note for the model), or rejected', async () => {
    // recorded under v1: { path } calls, let through
    const items = await record();
    // now: the field is renamed `filePath`, auto-repair on (read_file is read-only): `path` is repaired to `filePath` and run again
    const renamed = (folders: string[]) => {
      const gt = new Guardtrace({ tracing: false });
      gt.tool({
        name: 'read_file', description: 'Reads a file', flags: { readOnly: true },
        schema: z.strictObject({ filePath: z.string() }),
        guards: [insideWorkspace({ root, paths: (a: { filePath: string }) => a.filePath, folders })],
        execute: () => { throw new Error('a replay ran read_file'); },
      });
      return gt;
    };
    const reads = items.filter((x) => x.tool === 'read_file' && !JSON.stringify(x.attempts[0]?.arguments).includes('..'));
    expect(reads.map((x) => x.attempts[0]?.arguments)).toEqual([{ path: 'src/a.ts' }, { path: 'docs/b.md' }]);
    const through = await replayDataset(renamed(['src', 'docs']), reads);
    // the model's call still gets through: not "newly rejected"; what changed is the note it is now shown
    expect(through.results.map((r) => [r.arguments, r.change, r.now?.allowed, r.now?.decision])).toEqual([
      [{ path: 'src/a.ts' }, 'feedback_changed', true, 'auto_repair'],
      [{ path: 'docs/b.md' }, 'feedback_changed', true, 'auto_repair'],
    ]);
    expect(through.results[0]?.now?.feedback).toMatch(/`filePath`.*`path`/);
    // the repaired call rejected by a guard (docs removed): newly rejected, by that guard, with its feedback
    const rejected = await replayDataset(renamed(['src']), reads);
    expect(rejected.results.map((r) => [r.arguments, r.change, r.now?.failureClass, r.now?.checks.map((c) => c.guard)])).toEqual([
      [{ path: 'src/a.ts' }, 'feedback_changed', null, []],
      [{ path: 'docs/b.md' }, 'newly_rejected', 'guard_violation', ['path_inside_workspace']],
    ]);
    expect(rejected.results[1]?.now?.feedback).toContain('is outside the folders this tool may use: src');
    expect(rejected.summary).toMatchObject({ calls: 2, attempts: 2, newly_rejected: 1, feedback_changed: 1 });
  });

  it('automatic retries the runtime made after a transient failure are not replayed as the model\'s calls once the first attempt is rejected', async () => {
    const { gt, spans } = traced();
    let n = 0;
    const fetchTool = (g: Guardtrace, schema: z.ZodType) =>
      g.tool({
        name: 'fetch_url', description: 'f', flags: { readOnly: true, idempotent: true }, schema,
        execute: () => {
          if (n++ < 2) throw new TransientFailure('503 from upstream');
          return 'ok';
        },
      });
    fetchTool(gt, z.object({ url: z.string() }));
    const s = gt.session({ id: 'flaky', agentName: 'agent' });
    expect(await s.callTool('fetch_url', { url: 'https://example.com/' })).toMatchObject({ ok: true });
    await s.end();
    const items = itemsFromSpans(spans());
    expect(items[0]?.attempts.map((a) => a.decision)).toEqual(['retry_backoff', 'retry_backoff', 'proceed']);
    // the same guards: every attempt decided as recorded
    const same = new Guardtrace({ tracing: false });
    fetchTool(same, z.object({ url: z.string() }));
    expect((await replayDataset(same, items)).summary).toMatchObject({ calls: 1, attempts: 3, unchanged: 3 });
    // a schema the URL fails: the model's one call is rejected once; the runtime would make no retry
    const strict = new Guardtrace({ tracing: false });
    fetchTool(strict, z.object({ url: z.string().endsWith('.json') }));
    const report = await replayDataset(strict, items);
    expect(report.summary).toMatchObject({ calls: 1, attempts: 3, newly_rejected: 1, not_replayed: 2 });
    expect(report.results.map((r) => [r.attempt, r.change, r.error ?? null])).toEqual([
      [1, 'newly_rejected', null],
      [2, 'not_replayed', 'an automatic retry the runtime made after attempt 1 failed (retry_backoff); attempt 1 is now rejected before it runs, so no retry is made'],
      [3, 'not_replayed', 'an automatic retry the runtime made after attempt 2 failed (retry_backoff); attempt 2 is now not made, so no retry is made'],
    ]);
  });

  it('a rejection escalated because the session\'s budget ran out on calls the dataset leaves out is not reported as changed feedback', async () => {
    const { gt, spans } = traced();
    registerTools(gt, V1, true);
    gt.tool({ name: 'invoice', description: 'i', schema: z.strictObject({ customer: z.string(), amount: z.number().positive() }), execute: () => 'ok' });
    const s = gt.session({ id: 'budget', agentName: 'agent' });
    // two rejections of other calls spend the task's rejection budget (2): the third escalates
    await s.callTool('query_db', { sql: 1 }, { intentId: 'a' });
    await s.callTool('open_ticket', { title: 2 }, { intentId: 'b' });
    const third = await s.callTool('invoice', { customer: 'a', amount: -3 }, { intentId: 'c' });
    expect(third).toMatchObject({ ok: false, decision: 'escalate_human', escalation: { reason: 'rejections_per_task' } });
    await s.end();
    // in the order the calls were made, as a dataset lists them (the spans end in another order)
    const order = ['query_db', 'open_ticket', 'invoice'];
    const items = itemsFromSpans(spans()).sort((x, y) => order.indexOf(x.tool) - order.indexOf(y.tool));
    const same = registerTools(new Guardtrace({ tracing: false }), V1);
    same.tool({ name: 'invoice', description: 'i', schema: z.strictObject({ customer: z.string(), amount: z.number().positive() }), execute: () => 'ok' });
    // the whole session: the budget runs out as it did
    const whole = await replayDataset(same, items);
    expect(whole.summary).toMatchObject({ calls: 3, attempts: 3, unchanged: 3 });
    // only the invoice call (a `tool:invoice` dataset): the budget its escalation came from is not in the replay
    const alone = await replayDataset(same, items.filter((x) => x.tool === 'invoice'));
    expect(alone.results.map((r) => [r.change, r.error])).toEqual([
      ['not_replayed', 'escalated when recorded because the session ran out of its rejections_per_task budget, which the session\'s other calls spent; the guards decide it as recorded (invalid_arguments, the same feedback), but this replay cannot say whether the budget would run out again'],
    ]);
    // older items, without budgetExhausted: told by the recorded feedback
    const older = items.filter((x) => x.tool === 'invoice').map((x) => ({ ...x, attempts: x.attempts.map(({ budgetExhausted: _b, ...a }) => a) }));
    expect((await replayDataset(same, older)).summary).toMatchObject({ not_replayed: 1 });
    // a guard change underneath is still reported
    const loose = registerTools(new Guardtrace({ tracing: false }), V1);
    loose.tool({ name: 'invoice', description: 'i', schema: z.strictObject({ customer: z.string(), amount: z.number() }), execute: () => 'ok' });
    expect((await replayDataset(loose, items.filter((x) => x.tool === 'invoice'))).summary).toMatchObject({ newly_allowed: 1 });
  });

  it('a call escalated because an identical call was rejected earlier in the session, which the dataset leaves out, is not reported as changed feedback', async () => {
    const { gt, spans } = traced();
    registerTools(gt, V1, true);
    const s = gt.session({ id: 'repeated', agentName: 'agent' });
    // the model sends the same rejected call again, as new calls: the runtime does not send it twice
    const first = await s.callTool('read_file', { path: '../etc/passwd' }, { callId: 'r1' });
    const again = await s.callTool('read_file', { path: '../etc/passwd' }, { callId: 'r2' });
    const firstDecision = first.ok ? 'proceed' : first.decision;
    expect(firstDecision).not.toBe('escalate_human');
    expect(again).toMatchObject({ ok: false, decision: 'escalate_human', escalation: { reason: 'repeated_rejection' } });
    await s.end();
    const items = itemsFromSpans(spans()).sort((x, y) => x.spanId.localeCompare(y.spanId));
    const byCall = (id: string) => items.filter((x) => x.attempts.some((a) => a.decision === (id === 'r1' ? firstDecision : 'escalate_human')));
    const same = registerTools(new Guardtrace({ tracing: false }), V1);
    // both calls, in the order they were made: the second escalates again
    const ordered = [...byCall('r1'), ...byCall('r2')];
    expect((await replayDataset(same, ordered)).summary).toMatchObject({ calls: 2, unchanged: 2 });
    // only the escalated call (a `decision:escalate_human` dataset, or its fixture): the earlier rejection is not in the replay
    const alone = await replayDataset(same, byCall('r2'));
    expect(alone.results.map((r) => [r.change, r.error])).toEqual([
      ['not_replayed', "escalated when recorded because an identical call was rejected earlier in the session with the same feedback (repeated_rejection), a call this replay does not hold; the guards decide it as recorded (guard_violation, the same feedback), but whether that earlier rejection happens again depends on the session's other calls"],
    ]);
    // a guard change underneath is still reported: read_file without its path guards lets it through
    const loose = new Guardtrace({ tracing: false });
    loose.tool({ name: 'read_file', description: 'Reads a file', flags: { readOnly: true }, schema: z.object({ path: z.string() }), execute: () => 'x' });
    expect((await replayDataset(loose, byCall('r2'))).summary).toMatchObject({ newly_allowed: 1, not_replayed: 0 });
  });

  it('execute read-only runs read-only tools only', async () => {
    const items = await record();
    const ran: string[] = [];
    const gt = new Guardtrace({ tracing: false });
    gt.tool({ name: 'query_db', description: 'q', flags: { readOnly: true }, schema: z.object({ sql: z.string() }), execute: (a) => { ran.push(a.sql); return []; } });
    gt.tool({ name: 'open_ticket', description: 't', schema: z.object({ title: z.string() }), execute: () => { ran.push('ticket'); } });
    const report = await replayDataset(gt, items.filter((x) => x.tool !== 'read_file'), { execute: 'read-only' });
    expect(ran).toEqual(['SELECT id FROM users', 'SELECT * FROM users', 'SELECT * FROM events', 'DELETE FROM users']);
    expect(report.summary).toMatchObject({ calls: 5, newly_allowed: 3, unchanged: 2 });
  });
});
