import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileInputSchema } from './json-schema.ts';

const schema = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    edits: { type: 'array', items: { type: 'object', properties: { oldText: { type: 'string' } }, required: ['oldText'] } },
    mode: { enum: ['a', 'b'] },
    email: { type: 'string', format: 'email' },
  },
  required: ['path'],
};

const issues = (zod: z.ZodType, value: unknown) => {
  const r = zod.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => ({ code: i.code, path: i.path }));
};

describe('JSON Schema checks through ajv', () => {
  it('accepts valid arguments unchanged', () => {
    const { zod } = compileInputSchema(schema);
    const args = { path: 'a.txt', edits: [{ oldText: 'x' }], mode: 'a', email: 'a@b.io' };
    expect(zod.parse(args)).toBe(args);
  });

  it('reports every error at its field path, nested ones included', () => {
    const { zod } = compileInputSchema(schema);
    expect(issues(zod, { edits: [{ oldText: 1 }, {}], mode: 'c', email: 'nope' })).toEqual([
      { code: 'invalid_type', path: ['path'] },
      { code: 'invalid_type', path: ['edits', 0, 'oldText'] },
      { code: 'invalid_type', path: ['edits', 1, 'oldText'] },
      { code: 'invalid_value', path: ['mode'] },
      { code: 'custom', path: ['email'] },
    ]);
  });

  it('refuses unknown top-level arguments unless told to pass them', () => {
    expect(issues(compileInputSchema(schema).zod, { path: 'a', pth: 'b' })).toEqual([{ code: 'unrecognized_keys', path: [] }]);
    expect(issues(compileInputSchema(schema, { unknownArguments: 'pass' }).zod, { path: 'a', pth: 'b' })).toEqual([]);
    // a schema that decides about other keys itself is left alone
    expect(issues(compileInputSchema({ ...schema, additionalProperties: true }).zod, { path: 'a', pth: 'b' })).toEqual([]);
  });

  it('uses the dialect the schema names (draft-07) and 2020-12 otherwise', () => {
    const d7 = compileInputSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'array', items: [{ type: 'string' }] } } });
    expect(d7.compileError).toBeUndefined();
    expect(issues(d7.zod, { a: [1] })).toEqual([{ code: 'invalid_type', path: ['a', 0] }]);
    const d2020 = compileInputSchema({ type: 'object', properties: { a: { type: 'array', prefixItems: [{ type: 'string' }] } } });
    expect(issues(d2020.zod, { a: [1] })).toEqual([{ code: 'invalid_type', path: ['a', 0] }]);
  });

  it('shows the contract through zod, for the feedback excerpt', () => {
    const js = z.toJSONSchema(compileInputSchema(schema).zod, { io: 'input' }) as { properties?: object; required?: string[] };
    expect(Object.keys(js.properties ?? {})).toEqual(['path', 'edits', 'mode', 'email']);
    expect(js.required).toEqual(['path']);
  });

  it('lets arguments through, and says why, when a schema does not compile', () => {
    const c = compileInputSchema({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } });
    expect(c.compileError).toMatch(/missing/);
    expect(c.zod.safeParse({ a: 1 }).success).toBe(true);
  });
});
