/**
 * Guard regression replay as a user runs it: sessions recorded through the real guards (schema,
 * files, SQL) of their tools module v1, turned into dataset items from the spans, replayed
 * against v2 (a field renamed, a folder removed, a table marked large) with the library entry.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type DatasetItem, Guardtrace, } from '../src/index.ts';
import { expectNoGuardRegressions, readDatasetFile, replayDataset, replayItem } from '../src/replay/index.ts';
import { itemsFromSpans } from './dataset-items.ts';
import { traced } from './helpers.ts';
import { byArgs, CALLS, record, registerTools, V1, } from './replay-v1-tools.ts';

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
