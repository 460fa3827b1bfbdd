import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeBody } from './body.ts';
import { CollectorError } from './errors.ts';

const json = (bytes: number) => Buffer.from(JSON.stringify({ resourceSpans: [], pad: 'x'.repeat(bytes) }));

describe('decodeBody', () => {
  it('returns the body as sent for gzip, deflate and none, counting every inflated byte', () => {
    const raw = json(300_000);
    return Promise.all(
      [
        ['gzip', zlib.gzipSync(raw)],
        ['deflate', zlib.deflateSync(raw)],
        [undefined, raw],
      ].map(async ([enc, body]) => {
        let reserved = 0;
        const out = await decodeBody(body as Buffer, enc as string | undefined, 16 << 20, (n) => {
          reserved += n;
        });
        expect(out.equals(raw)).toBe(true);
        // Identity bodies are already counted at their size by the caller; inflated ones are
        // counted as they inflate, and again when their chunks are joined.
        expect(reserved).toBe(enc ? 2 * raw.length : 0);
      }),
    );
  });

  it('stops inflating as soon as the memory bound refuses, not after the whole body is in memory', async () => {
    // 1 KiB of gzip that inflates to 8 MiB: a bound of 1 MiB refuses it within one step past 1 MiB.
    const bomb = zlib.gzipSync(json(8 << 20));
    expect(bomb.length).toBeLessThan(16_384);
    let reserved = 0;
    const refusal = CollectorError.unavailable('collector overloaded, retry later', 2);
    await expect(
      decodeBody(bomb, 'gzip', 16 << 20, (n) => {
        reserved += n;
        if (reserved > 1 << 20) throw refusal;
      }),
    ).rejects.toBe(refusal);
    expect(reserved).toBeLessThanOrEqual((1 << 20) + 64 * 1024);
  });

  it('refuses a body that inflates past the size limit with 413, and broken gzip with 400', async () => {
    const big = zlib.gzipSync(json(4 << 20));
    await expect(decodeBody(big, 'gzip', 1 << 20)).rejects.toMatchObject({ status: 413 });
    await expect(decodeBody(Buffer.from('not gzip at all'), 'gzip', 1 << 20)).rejects.toMatchObject({ status: 400 });
    await expect(decodeBody(Buffer.from('x'), 'br', 1 << 20)).rejects.toMatchObject({ status: 415 });
  });
});
