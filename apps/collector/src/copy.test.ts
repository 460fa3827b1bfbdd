import { describe, expect, it } from 'vitest';
import { CopyBuffer, copyField, RowArena, storableJson } from './copy.ts';

describe('CopyBuffer', () => {
  it('encodes what it is given as UTF-8, across chunk boundaries and for pieces bigger than a chunk', () => {
    const pieces: string[] = [];
    for (let i = 0; i < 40_000; i++) pieces.push(`row ${i}\tnaïve ☃ 𝄞 ${'x'.repeat(i % 50)}\n`);
    pieces.splice(20_000, 0, `${'€'.repeat(600_000)}\n`); // 1.8 MB once encoded: a chunk of its own
    const out = new CopyBuffer();
    for (const p of pieces) out.write(p);
    const chunks = out.finish();
    expect(chunks.length).toBeGreaterThan(2);
    expect(Buffer.concat(chunks).equals(Buffer.from(pieces.join(''), 'utf8'))).toBe(true);
  });

  it('gives no chunk when nothing was written', () => {
    expect(new CopyBuffer().finish()).toEqual([]);
  });

  it('escapes COPY text specials and writes null as \\N', () => {
    expect(copyField('a\tb\nc\\d\re')).toBe('a\\tb\\nc\\\\d\\re');
    expect(copyField(null)).toBe('\\N');
    expect(copyField({ k: 'v\n' })).toBe('{"k":"v\\\\n"}');
  });
});

describe('RowArena', () => {
  it('keeps each row readable where put left it, also across new buffers, and copies out byte for byte', () => {
    const arena = new RowArena(64);
    const rows = ['a\tb', 'naïve ☃ 𝄞', 'x'.repeat(100), '', '€'.repeat(30), 'tail'];
    const kept = rows.map((r) => {
      const start = arena.put(r);
      return { buf: arena.buf, start, end: arena.end };
    });
    expect(new Set(kept.map((k) => k.buf)).size).toBeGreaterThan(1);
    expect(kept.map((k) => k.buf.toString('utf8', k.start, k.end))).toEqual(rows);
    const out = new CopyBuffer();
    for (const k of kept) out.writeBytes(k.buf, k.start, k.end);
    expect(Buffer.concat(out.finish()).toString('utf8')).toBe(rows.join(''));
  });
});

describe('text Postgres cannot hold', () => {
  it('NUL in a text field is written as U+FFFD; other specials are escaped as before', () => {
    expect(copyField('a\u0000b\tc')).toBe('a\uFFFDb\\tc');
  });

  it('JSON: NUL and lone surrogates as U+FFFD escapes, a pair and an escaped backslash before `u0000` kept', () => {
    const v = { nul: 'a\u0000b', lone: 'x\ud800y', low: '\udc00', pair: '😀', text: 'a literal \\u0000 in prose' };
    const json = storableJson(v);
    expect(JSON.parse(json)).toEqual({ nul: 'a\uFFFDb', lone: 'x\uFFFDy', low: '\uFFFD', pair: '😀', text: 'a literal \\u0000 in prose' });
    expect(json).not.toMatch(/(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f])/i);
    // In a COPY field its backslashes are doubled, as for any JSON.
    expect(copyField(v)).toBe(json.replaceAll('\\', '\\\\'));
  });
});
