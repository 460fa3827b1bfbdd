import { describe, expect, it } from 'vitest';
import { diffJson, parseArguments, parsePointer, pointerVerdicts, toPointer, valueAt } from '@/lib/json-diff';

describe('JSON pointers', () => {
  it('round-trips escaped tokens and finds values, not inherited keys', () => {
    expect(toPointer(['a/b', 'm~n', 0])).toBe('/a~1b/m~0n/0');
    expect(parsePointer('/a~1b/m~0n/0')).toEqual(['a/b', 'm~n', '0']);
    const doc = { 'a/b': { 'm~n': ['x'] }, n: null };
    expect(valueAt(doc, '/a~1b/m~0n/0')).toEqual({ found: true, value: 'x' });
    expect(valueAt(doc, '/n')).toEqual({ found: true, value: null });
    expect(valueAt(doc, '')).toEqual({ found: true, value: doc });
    expect(valueAt(doc, '/toString')).toEqual({ found: false });
    expect(valueAt(doc, '/a~1b/m~0n/01')).toEqual({ found: false });
    expect(() => parsePointer('items/3')).toThrow(/Not a JSON pointer: "items\/3" \(expected '' or a path starting with '\/'\)/);
  });

  it('reads recorded arguments: JSON text as a value, anything else as the text', () => {
    expect(parseArguments('{"a":[1]}')).toEqual({ a: [1] });
    expect(parseArguments('{"a":')).toBe('{"a":');
    expect(parseArguments(null)).toBeNull();
  });
});

describe('diffJson', () => {
  it('lists changed, added and removed paths with their values', () => {
    const before = { path: 'a.ts', mode: '644', opts: { force: false } };
    const after = { path: 'src/a.ts', opts: { force: true, dry: 1 } };
    expect(diffJson(before, after)).toEqual([
      { kind: 'removed', pointer: '/mode', beforePointer: '/mode', afterPointer: null, before: '644' },
      { kind: 'added', pointer: '/opts/dry', beforePointer: null, afterPointer: '/opts/dry', after: 1 },
      { kind: 'changed', pointer: '/opts/force', beforePointer: '/opts/force', afterPointer: '/opts/force', before: false, after: true },
      { kind: 'changed', pointer: '/path', beforePointer: '/path', afterPointer: '/path', before: 'a.ts', after: 'src/a.ts' },
    ]);
    expect(diffJson({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toEqual([]);
  });

  it('follows array items across insertions: a nested change keeps its item old and new index', () => {
    const before = { items: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 0 }] };
    const after = { items: [{ sku: 'z', qty: 5 }, { sku: 'a', qty: 1 }, { sku: 'b', qty: 2 }] };
    const changes = diffJson(before, after);
    expect(changes.find((c) => c.kind === 'added')).toMatchObject({ pointer: '/items/0', after: { sku: 'z', qty: 5 } });
    expect(changes.find((c) => c.pointer === '/items/2/qty')).toMatchObject({ kind: 'changed', beforePointer: '/items/1/qty', before: 0, after: 2 });
    expect(changes).toHaveLength(2);
  });

  it('matches items without an id field by position, and reports a reorder of named items as a move', () => {
    expect(diffJson({ items: [{ qty: 1 }, { qty: 0 }] }, { items: [{ qty: 1 }, { qty: 2 }] })).toEqual([
      { kind: 'changed', pointer: '/items/1/qty', beforePointer: '/items/1/qty', afterPointer: '/items/1/qty', before: 0, after: 2 },
    ]);
    expect(diffJson([{ id: 'a' }, { id: 'b' }], [{ id: 'b' }, { id: 'a' }])).toEqual([
      { kind: 'moved', pointer: '/0', beforePointer: '/1', afterPointer: '/0', before: { id: 'b' }, after: { id: 'b' } },
    ]);
  });

  it('reports moves and removals in arrays of values', () => {
    const changes = diffJson({ tags: ['x', 'y', 'z'] }, { tags: ['z', 'x'] });
    expect(changes).toContainEqual({ kind: 'removed', pointer: '/tags/1', beforePointer: '/tags/1', afterPointer: null, before: 'y' });
    expect(changes.some((c) => c.kind === 'moved' || c.kind === 'added')).toBe(true);
  });

  it('treats a whole-value type change as one change at the root', () => {
    expect(diffJson('{"items": [', { items: [] })).toEqual([
      { kind: 'changed', pointer: '', beforePointer: '', afterPointer: '', before: '{"items": [', after: { items: [] } },
    ]);
  });
});

describe('pointerVerdicts', () => {
  const failed = (args: unknown, failedPointers: string[]) => ({ args, failedPointers, passed: false });
  const passed = (args: unknown) => ({ args, failedPointers: [], passed: true });

  it('fixed: the value at the pointer changed and the next attempt passed', () => {
    const [v] = pointerVerdicts(failed({ items: [{ qty: 1 }, { qty: 0 }] }, ['/items/1/qty']), passed({ items: [{ qty: 1 }, { qty: 2 }] }));
    expect(v).toMatchObject({ pointer: '/items/1/qty', verdict: 'fixed', changes: [{ pointer: '/items/1/qty', before: 0, after: 2 }] });
  });

  it('fixed: a missing field that the next attempt adds, or a renamed one', () => {
    const [add] = pointerVerdicts(failed({ content: 'x' }, ['/path']), passed({ content: 'x', path: 'a.ts' }));
    expect(add?.verdict).toBe('fixed');
    const verdicts = pointerVerdicts(failed({ filepath: 'a', content: '' }, ['/path', '/filepath']), passed({ path: 'a', content: '' }));
    expect(verdicts.map((v) => v.verdict)).toEqual(['fixed', 'fixed']);
  });

  it('still-failing: the value changed but the same field fails again', () => {
    const [v] = pointerVerdicts(failed({ qty: 0 }, ['/qty']), failed({ qty: -1 }, ['/qty']));
    expect(v?.verdict).toBe('still-failing');
  });

  it('a later failure of the same class that names no field is not called fixed; one of another class is', () => {
    const before = { args: { qty: 0 }, failedPointers: ['/qty'], passed: false, failureClass: 'invalid_arguments' };
    expect(pointerVerdicts(before, { args: { qty: 1 }, failedPointers: [], passed: false, failureClass: 'invalid_arguments' })[0]?.verdict).toBe('still-failing');
    expect(pointerVerdicts(before, { args: { qty: 1 }, failedPointers: [], passed: false, failureClass: 'transient' })[0]?.verdict).toBe('fixed');
  });

  it('changed-something-else: the pointed value is the same, other paths changed', () => {
    const [v] = pointerVerdicts(failed({ qty: 0, note: 'a' }, ['/qty']), failed({ qty: 0, note: 'b' }, ['/qty']));
    expect(v).toMatchObject({ verdict: 'changed-something-else', changes: [] });
  });

  it('ignored: nothing changed', () => {
    const [v] = pointerVerdicts(failed({ qty: 0 }, ['/qty']), failed({ qty: 0 }, ['/qty']));
    expect(v?.verdict).toBe('ignored');
  });

  it('a change to a parent of the pointer counts for it', () => {
    const [v] = pointerVerdicts(failed({ items: [{ qty: 0 }] }, ['/items/0/qty']), passed({ items: [] }));
    expect(v).toMatchObject({ verdict: 'fixed', changes: [{ kind: 'removed', pointer: '/items/0' }] });
  });
});
