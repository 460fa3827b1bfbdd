import { describe, expect, it } from 'vitest';
import { isoOf } from '../src/server/queries/row-columns.ts';

// isoOf keeps the last minute's prefix: it must write exactly what `toISOString` writes.
describe('isoOf', () => {
  it('writes what toISOString writes, at every boundary and in random order', () => {
    const day = Date.UTC(2026, 11, 1);
    const values = [
      0, 1, 999, 1000, 59_999, 60_000, -1, -60_000, -60_001, -62_167_219_200_000, 253_402_300_799_999,
      day - 1, day, day + 59_999, day + 60_000, Date.UTC(2028, 1, 29, 23, 59, 59, 999), Date.UTC(2027, 0, 1),
    ];
    // A fixed pseudo-random walk (no clock): steps within a minute, across minutes, and far jumps.
    let x = 123_456_789;
    const next = () => {
      x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
      return x;
    };
    let t = day;
    for (let i = 0; i < 20_000; i++) {
      const r = next();
      t += r % 7 === 0 ? (r % 4_000_000_000) - 2_000_000_000 : r % 1500;
      values.push(t);
    }
    for (const v of values) expect(isoOf(v), String(v)).toBe(new Date(v).toISOString());
  });

  it('leaves what it cannot shorten to Date: fractions and years beyond four digits', () => {
    for (const v of [1.5, 253_402_300_800_000, -62_167_219_200_001, 8.64e15]) expect(isoOf(v)).toBe(new Date(v).toISOString());
    expect(() => isoOf(Number.NaN)).toThrow(RangeError);
  });
});
