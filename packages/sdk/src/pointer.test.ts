import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { traced } from '../test/helpers.ts';
import { fileExists, insideWorkspace, lineRange } from './guards/files.ts';
import { predicate, resourceLock } from './guards/generic.ts';
import { sqlHeuristics } from './guards/sql.ts';
import { MAX_POINTERS, pointersTo, toPointer } from './pointer.ts';
import { checkSchema } from './schema-guard.ts';

const ctx = { tool: 't', sessionId: 's', callId: 'c', attempt: 1, idempotencyKey: 'k', holder: 's/c', locks: { acquire: () => ({ ok: true as const }), release: () => {} } };

describe('toPointer', () => {
  it('escapes ~ and / as RFC 6901 says, and the empty path is the whole value', () => {
    expect(toPointer([])).toBe('');
    expect(toPointer(['items', 3, 'qty'])).toBe('/items/3/qty');
    expect(toPointer(['a/b', 'm~n', ''])).toBe('/a~1b/m~0n/');
  });
});

describe('pointersTo', () => {
  it('finds every field holding exactly the value, and none for a derived value', () => {
    const args = { from: 'a.ts', to: 'b.ts', also: ['x', 'a.ts'], n: 3, nested: { n: '3' } };
    expect(pointersTo(args, 'a.ts')).toEqual(['/from', '/also/1']);
    expect(pointersTo(args, 3)).toEqual(['/n']);
    expect(pointersTo(args, 'src/a.ts')).toEqual([]);
    expect(pointersTo('whole', 'whole')).toEqual(['']);
  });

  it('stops at the bound', () => {
    expect(pointersTo(Array.from({ length: 40 }, () => 'v'), 'v')).toHaveLength(MAX_POINTERS);
  });
});

describe('schema guard pointers', () => {
  const tool = {
    name: 'order',
    schema: z.object({ items: z.array(z.object({ sku: z.string(), qty: z.number().int().positive() })), note: z.string().optional() }),
  };

  it('points at each issue: a nested bad value, a missing field, an unexpected key', () => {
    const r = checkSchema(tool, { items: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 1 }, { sku: 'c', qty: 1 }, { sku: 'd', qty: -2 }, { qty: 1 }], notes: 'x' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.pointers.sort()).toEqual(['/items/3/qty', '/items/4/sku', '/notes']);
  });

  it('points at the whole value when the arguments are not JSON', () => {
    const r = checkSchema(tool, '{"items": [');
    expect(r.ok ? [] : r.pointers).toEqual(['']);
  });
});

describe('guards that read an argument record its pointer', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'gt-pointer-'));
  mkdirSync(path.join(root, 'src'));
  writeFileSync(path.join(root, 'src/a.ts'), 'one\ntwo\n');

  it('files: the missing path, the escaping path, the line out of range', async () => {
    const exists = fileExists<{ path: string; other: string }>({ root, paths: (a) => [a.other, a.path] });
    const r = await exists.check({ other: 'src/a.ts', path: 'src/b.ts' }, ctx);
    expect(r).toMatchObject({ pass: false, pointers: ['/path'] });
    const inside = insideWorkspace<{ files: string[] }>({ root, paths: (a) => a.files });
    expect(await inside.check({ files: ['src/a.ts', '../x'] }, ctx)).toMatchObject({ pass: false, pointers: ['/files/1'] });
    const range = lineRange<{ p: string; s: number; e: number }>({ root, path: (a) => a.p, start: (a) => a.s, end: (a) => a.e });
    expect(await range.check({ p: 'src/a.ts', s: 1, e: 9 }, ctx)).toMatchObject({ pass: false, pointers: ['/e'] });
  });

  it('sql, lock and predicate', async () => {
    const sql = sqlHeuristics<{ query: { text: string } }>({ sql: (a) => a.query.text });
    expect(sql.check({ query: { text: 'DELETE FROM users' } }, ctx)).toMatchObject({ pass: false, pointers: ['/query/text'] });
    const lock = resourceLock<{ file: string }>({ resource: (a) => a.file });
    const held = { ...ctx, locks: { acquire: () => ({ ok: false as const, holder: 'other' }), release: () => {} } };
    expect(lock.check({ file: 'src/a.ts' }, held)).toMatchObject({ pass: false, pointers: ['/file'] });
    const cap = predicate<{ amount: number }>({ name: 'cap', test: (a) => a.amount <= 500, message: 'too much', pointers: ['/amount'] });
    expect(await cap.check({ amount: 900 }, ctx)).toMatchObject({ pass: false, pointers: ['/amount'] });
    const plain = predicate<{ amount: number }>({ name: 'cap', test: () => false, message: 'no' });
    expect(await plain.check({ amount: 1 }, ctx)).not.toHaveProperty('pointers');
  });
});

describe('guard spans', () => {
  it('a failed schema guard span carries the pointers; the passing one and the attempt record do not lie', async () => {
    const { gt, named } = traced();
    gt.tool({
      name: 'order',
      description: 'place an order',
      schema: z.object({ items: z.array(z.object({ qty: z.number().int().positive() })) }),
      execute: () => 'ok',
    });
    const s = gt.session({ agentName: 'a' });
    const r1 = await s.callTool('order', { items: [{ qty: 1 }, { qty: 0 }] });
    expect(r1.ok).toBe(false);
    if (r1.ok) return;
    expect(r1.attempts[0]?.guards[0]).toMatchObject({ name: 'schema', verdict: 'fail', pointers: ['/items/1/qty'] });
    const r2 = await s.callTool('order', { items: [{ qty: 1 }, { qty: 2 }] });
    expect(r2.ok).toBe(true);
    await s.end();
    const guards = named('apply_guardrail');
    const failed = guards.filter((g) => g.attributes['gen_ai.guardrail.verdict'] === 'fail');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.attributes['guardtrace.guard.pointers']).toEqual(['/items/1/qty']);
    for (const g of guards.filter((x) => x.attributes['gen_ai.guardrail.verdict'] === 'pass')) expect(g.attributes).not.toHaveProperty('guardtrace.guard.pointers');
  });

  it('instrument-only: recorded guards keep their pointers', async () => {
    const { gt, named } = traced();
    const s = gt.session({ agentName: 'a' });
    s.toolCall('order').recordAttempt({
      args: { qty: -1 },
      outcome: 'rejected',
      failureClass: 'invalid_arguments',
      guards: [{ name: 'qty_positive', verdict: 'fail', reason: 'qty must be positive', pointers: ['/qty'] }],
    });
    await s.end();
    expect(named('apply_guardrail')[0]?.attributes['guardtrace.guard.pointers']).toEqual(['/qty']);
  });
});
