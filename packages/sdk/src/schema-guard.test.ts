import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkSchema, contractExcerpt } from './schema-guard.ts';

const createFile = {
  name: 'create_file',
  schema: z.object({
    path: z.string().min(1),
    content: z.string(),
    mode: z.number().int().default(0o644),
  }),
};

describe('schema guard', () => {
  it('names the missing field, the renamed one, what was sent, and shows the contract', () => {
    const r = checkSchema(createFile, { filepath: '/src/main.py', content: 'x' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.feedback).toContain('Validation error in create_file call:');
    expect(r.feedback).toContain('- Missing required field: "path" (expected string)');
    expect(r.feedback).toContain('- Unexpected field: "filepath" (did you mean "path"?)');
    expect(r.feedback).toContain('- You provided: {"filepath":"/src/main.py","content":"x"}');
    expect(r.feedback).toContain('Expected schema:');
    expect(r.feedback).toContain('"path": "string, min length 1 (required)"');
    expect(r.feedback).toContain('"content": "string (required)"');
    expect(r.feedback).toContain('"mode": "integer (optional, default 420)"');
  });

  it('does not coerce: a numeric string for an integer is rejected with the received value', () => {
    const r = checkSchema(createFile, '{"path":"a.py","content":"","mode":"644"}');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.feedback).toContain('- Field "mode": expected number, received string ("644")');
  });

  it('lists allowed values of an enum and the nested path', () => {
    const tool = { name: 'set_status', schema: z.object({ ticket: z.object({ status: z.enum(['open', 'closed']) }) }) };
    const r = checkSchema(tool, { ticket: { status: 'opn' } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.feedback).toContain('- Field "ticket.status": expected one of "open" | "closed", received string ("opn")');
  });

  it('rejects unparsable JSON text with the parser message and what was sent', () => {
    const r = checkSchema(createFile, '{"path": "a.py", content: }');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toMatch(/^Arguments are not valid JSON/);
      expect(r.feedback).toContain('You provided: {"path": "a.py", content: }');
      expect(r.feedback).toContain('"content": "string (required)"');
    }
  });

  it('accepts JSON text and objects alike and applies defaults', () => {
    const a = checkSchema(createFile, '{"path":"a.py","content":"x"}');
    const b = checkSchema(createFile, { path: 'a.py', content: 'x' });
    expect(a).toEqual({ ok: true, data: { path: 'a.py', content: 'x', mode: 420 } });
    expect(b).toEqual(a);
  });

  it('keeps a schema that declares its own unknown-key rule', () => {
    const r = checkSchema({ name: 'loose', schema: z.looseObject({ a: z.string() }) }, { a: 'x', extra: 1 });
    expect(r).toEqual({ ok: true, data: { a: 'x', extra: 1 } });
  });

  it('strips unknown keys only when the tool opts in', () => {
    const r = checkSchema({ ...createFile, unknownKeys: 'strip' }, { path: 'a', content: '', extra: 1 });
    expect(r.ok).toBe(true);
  });

  it('renders the contract excerpt once per schema', () => {
    expect(contractExcerpt(createFile.schema)).toBe(contractExcerpt(createFile.schema));
  });
});
