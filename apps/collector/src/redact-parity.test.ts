/**
 * One set of secret rules, two consumers: the collector's redactor (before storage) and the
 * SDK's sanitizer (before a model or a span sees a value) both apply
 * `@guardtrace/semconv/secret-rules`. Here they read the same corpus and must agree exactly:
 * with each consumer's marker written as one token, their outputs are the same text, so a
 * rule cannot drift in one of them without failing this test. Base64 of text too (a whole
 * string, a JSON value, a data URI, a `base64 -d` pipe): one reading, in the same module.
 */
import { redactSecrets } from '@guardtrace/sdk';
import { replaceShapes, SHAPE_RULES, shapeRedactor } from '@guardtrace/semconv/secret-rules';
import { asText, fragments, ORDINARY_PAYLOADS, SECRET_SHAPES, type SecretShape } from '@guardtrace/secret-corpus';
import { describe, expect, it } from 'vitest';
import { Redactor } from './redact.ts';

const collector = new Redactor();
/** `[REDACTED:<rule>]` (collector) and `[REDACTED]`, `[REDACTED KEY]`, … (SDK) as one token. */
const MARK = /\[REDACTED(?::[a-z0-9_]+| [A-Z ]+)?\]/g;
const norm = (s: string) => s.replace(MARK, '[R]');

const b64 = (t: string) => btoa(String.fromCharCode(...new TextEncoder().encode(t)));

/** The string forms both consumers read: the text, JSON of it, JSON in a JSON string, and its base64 (whole, in JSON, piped, as a data URI). */
function forms(s: SecretShape): [string, string][] {
  const json = JSON.stringify(s.key ? { [s.key]: s.secret } : { note: asText(s) });
  const encoded = b64(asText(s));
  return [
    ['text', asText(s)],
    ['json', json],
    ['json-in-json', JSON.stringify({ args: JSON.stringify({ request: json }) })],
    ['base64', encoded],
    ['base64-in-json', JSON.stringify({ file: '.env', content: encoded })],
    ['base64-piped', `echo ${encoded} | base64 -d > .env`],
    ['data-uri', `data:text/plain;base64,${encoded}`],
  ];
}

describe('the collector and the SDK redact the same secrets', () => {
  it('share one rule list', async () => {
    const redact = await import('@guardtrace/semconv/secret-rules');
    expect(redact.SHAPE_RULES).toBe(SHAPE_RULES);
    expect(SHAPE_RULES.map((r) => r.name)).toContain('iban');
  });

  it(`the ${SECRET_SHAPES.length} secret shapes, as text, JSON, JSON in JSON and base64: the same output`, () => {
    const differ: string[] = [];
    const leaks: string[] = [];
    for (const shape of SECRET_SHAPES) {
      for (const [form, input] of forms(shape)) {
        const c = collector.text(input);
        const s = redactSecrets(input);
        if (norm(c) !== norm(s)) differ.push(`${shape.id} (${form}):\n  collector ${c}\n  sdk       ${s}`);
        for (const f of fragments(shape)) {
          if (c.includes(f)) leaks.push(`collector ${shape.id} (${form})`);
          if (s.includes(f)) leaks.push(`sdk ${shape.id} (${form})`);
        }
      }
    }
    expect(differ).toEqual([]);
    expect(leaks).toEqual([]);
  });

  it('the secret names, as attribute keys (collector) and object keys (SDK): both take the value', () => {
    for (const shape of SECRET_SHAPES.filter((s) => s.key)) {
      const key = shape.key as string;
      const attrs = { [key]: shape.secret };
      collector.attributes(attrs);
      // The collector replaces the whole value; the SDK keeps a scheme whose credential a shape took (`Bearer [REDACTED]`).
      const outs = [String(attrs[key]), String(redactSecrets({ [key]: shape.secret })[key])];
      for (const out of outs) {
        expect(norm(out), shape.id).toMatch(/^(?:\w+ )?\[R\]$/);
        for (const f of fragments(shape)) expect(out, shape.id).not.toContain(f);
      }
    }
  });

  it(`the ${ORDINARY_PAYLOADS.length} ordinary payloads: the same output (the same false positives)`, () => {
    const differ = ORDINARY_PAYLOADS.flatMap((p) =>
      [p.text, JSON.stringify({ text: p.text })].filter((t) => norm(collector.text(t)) !== norm(redactSecrets(t))).map((t) => `${p.id}: ${t}`),
    );
    expect(differ).toEqual([]);
    const changed = ORDINARY_PAYLOADS.filter((p) => redactSecrets(p.text) !== p.text).map((p) => p.id);
    expect(changed).toEqual(ORDINARY_PAYLOADS.filter((p) => collector.text(p.text) !== p.text).map((p) => p.id));
  });

  it('the fast path finds what every rule run in turn finds: the same text for every corpus string in every form', () => {
    // Both consumers replace shapes with shapeRedactor, which runs only the rules whose pattern
    // matches; replaceShapes with the whole list is the definition it must agree with.
    const mark = (r: { name: string }) => `<${r.name}>`;
    const fast = shapeRedactor(SHAPE_RULES, mark);
    const inputs = [
      ...SECRET_SHAPES.flatMap((shape) => forms(shape).map(([form, input]) => [`${shape.id} (${form})`, input] as const)),
      ...ORDINARY_PAYLOADS.flatMap((p) => [[p.id, p.text] as const, [`${p.id} (json)`, JSON.stringify({ text: p.text })] as const]),
    ];
    const differ = inputs.filter(([, input]) => fast(input) !== replaceShapes(input, SHAPE_RULES, mark)).map(([id]) => id);
    expect(differ).toEqual([]);
    // Not vacuous: it changes hundreds of them.
    expect(inputs.filter(([, input]) => fast(input) !== input).length).toBeGreaterThan(SECRET_SHAPES.length);
  });
});
