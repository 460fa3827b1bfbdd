import { describe, expect, it } from 'vitest';
import { keyText, MAX_KEY_TEXT_BYTES, SHORTENED_MARK } from './key-text.ts';

describe('keyText', () => {
  it('keeps a value that fits, byte for byte', () => {
    expect(keyText('write_file')).toBe('write_file');
    expect(keyText(null)).toBeNull();
    const fits = 'é'.repeat(MAX_KEY_TEXT_BYTES / 2);
    expect(keyText(fits)).toBe(fits);
  });

  it('shortens a longer one to the limit: its prefix, its length and a hash of the whole value', () => {
    const long = `read_file_${'a'.repeat(2990)}`;
    const out = keyText(long);
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(MAX_KEY_TEXT_BYTES);
    expect(out).toMatch(/^read_file_a+…\[SHORTENED:3000 bytes sha256:[0-9a-f]{16}\]$/);
    expect(keyText(long)).toBe(out);
    // The example of docs/collector.md and key-text.ts.
    expect(out).toBe(`read_file_${'a'.repeat(197)}…[SHORTENED:3000 bytes sha256:226bfb9fa5208722]`);
  });

  it('gives two long values with the same prefix two keys', () => {
    const a = `${'p'.repeat(500)}a`;
    const b = `${'p'.repeat(500)}b`;
    expect(keyText(a)).not.toBe(keyText(b));
    expect(keyText(a).split(SHORTENED_MARK)[0]).toBe(keyText(b).split(SHORTENED_MARK)[0]);
  });

  it('never cuts a character in two (multi-byte and astral text)', () => {
    for (const unit of ['é', '漢', '😀', 'a😀']) {
      const long = unit.repeat(400);
      const out = keyText(long);
      const prefix = out.split(SHORTENED_MARK)[0] as string;
      expect(Buffer.byteLength(out)).toBeLessThanOrEqual(MAX_KEY_TEXT_BYTES);
      // No lone surrogate (half of a character cut off).
      expect(out).not.toMatch(/\p{Cs}/u);
      expect(long.startsWith(prefix)).toBe(true);
      // The longest such prefix: one more character would not fit.
      const next = String.fromCodePoint(long.slice(prefix.length).codePointAt(0) as number);
      expect(Buffer.byteLength(prefix + next + out.slice(prefix.length))).toBeGreaterThan(MAX_KEY_TEXT_BYTES);
    }
  });

  it('counts NUL as stored (U+FFFD, 3 bytes): a long value of NULs stays within the bound', () => {
    const v = 'ab\u0000'.repeat(1000);
    const out = keyText(v);
    expect(out.includes('\u0000')).toBe(false);
    expect(Buffer.byteLength(out, 'utf8')).toBeLessThanOrEqual(MAX_KEY_TEXT_BYTES);
    expect(out).toContain(SHORTENED_MARK);
  });
});
