import { describe, expect, it } from 'vitest';
import { memoryCost } from './otlp-decode.ts';

describe('memoryCost', () => {
  it('counts a protobuf body as its bytes, and a JSON body at its estimated parsed size', () => {
    const proto = Buffer.from([0x0a, 0x00, 0x7b, 0x5b]);
    expect(memoryCost(proto, 'protobuf')).toBe(4);
    // 11 bytes twice (Buffer and string), 2 containers, 2 values (`:` and `,`), odd length.
    expect(memoryCost(Buffer.from('{"a":[1,2]}'), 'json')).toBe(2 * 11 + 2 * 64 + 2 * 24);
    // Empty objects: ~23x their bytes.
    const empties = Buffer.from(`[${Array(1000).fill('{}').join(',')}]`);
    expect(memoryCost(empties, 'json') / empties.length).toBeGreaterThan(20);
  });
});
