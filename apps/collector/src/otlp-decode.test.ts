import { describe, expect, it } from 'vitest';
import { decodeResponseProtobuf, decodeStatusProtobuf, encodeResponseReference } from '../test/otlp-reference.ts';
import { encodeResponse, encodeStatus, memoryCost } from './otlp-decode.ts';

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

describe('encodeResponse / encodeStatus (protobuf)', () => {
  it('writes what the reference protobuf code reads, byte for byte as it would write it', () => {
    expect(encodeResponse('protobuf', 0, '')).toEqual(Buffer.alloc(0));
    const partial = encodeResponse('protobuf', 300, 'spans[0]: traceId must be 16 bytes ☃') as Buffer;
    const decoded = decodeResponseProtobuf(partial) as { partialSuccess: { rejectedSpans: { toString(): string }; errorMessage: string } };
    expect(decoded.partialSuccess.rejectedSpans.toString()).toBe('300');
    expect(decoded.partialSuccess.errorMessage).toBe('spans[0]: traceId must be 16 bytes ☃');
    expect(partial).toEqual(encodeResponseReference({ partialSuccess: { rejectedSpans: 300, errorMessage: 'spans[0]: traceId must be 16 bytes ☃' } }));
    // A message without a count (the reference writes the zero too).
    const noCount = encodeResponse('protobuf', 0, 'note') as Buffer;
    expect(noCount).toEqual(encodeResponseReference({ partialSuccess: { rejectedSpans: 0, errorMessage: 'note' } }));
    const long = 'x'.repeat(70_000);
    expect(decodeStatusProtobuf(encodeStatus('protobuf', 14, long) as Buffer)).toEqual({ code: 14, message: long });
    expect(encodeStatus('protobuf', 0, '')).toEqual(Buffer.alloc(0));
  });
});
