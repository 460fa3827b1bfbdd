/**
 * Request bodies: Content-Encoding handled here with a cap on the inflated size, so a gzip
 * bomb costs at most maxBodyBytes of memory before it is refused with 413.
 */
import type { IncomingMessage } from 'node:http';
import zlib from 'node:zlib';
import { CollectorError } from './errors.ts';

// 64 KiB of inflated output per step: each step is counted before the next is made.
const INFLATE_CHUNK = 64 * 1024;

/**
 * The body as sent, decompressed. `reserve` is called with each inflated chunk's size before
 * the next is made, and may throw (the collector's in-flight memory bound): a compressed body
 * is counted as it inflates, so sixty-four small gzip bodies that each inflate to megabytes are
 * refused as the bound fills, not after all of them are in memory.
 */
export async function decodeBody(
  body: Buffer,
  contentEncoding: string | undefined,
  maxBytes: number,
  reserve: (bytes: number) => void = () => {},
): Promise<Buffer> {
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  if (enc === '' || enc === 'identity') {
    if (body.length > maxBytes) throw tooLarge(maxBytes);
    return body;
  }
  const make = enc === 'gzip' || enc === 'x-gzip' ? zlib.createGunzip : enc === 'deflate' ? zlib.createInflate : undefined;
  if (!make) throw new CollectorError(415, `unsupported Content-Encoding "${enc.slice(0, 40)}": send gzip or none`);
  const stream = make({ chunkSize: INFLATE_CHUNK });
  const chunks: Buffer[] = [];
  let total = 0;
  return new Promise<Buffer>((resolve, reject) => {
    const fail = (err: unknown) => {
      stream.destroy();
      reject(err);
    };
    stream.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) return fail(tooLarge(maxBytes));
      try {
        reserve(chunk.length);
      } catch (err) {
        return fail(err);
      }
      chunks.push(chunk);
    });
    stream.on('error', (err) => fail(CollectorError.badRequest(`invalid ${enc} body: ${err.message}`)));
    stream.on('end', () => {
      // Joined, the chunks are copied once more (they go when the garbage collector gets to them).
      try {
        reserve(total);
      } catch (err) {
        return fail(err);
      }
      resolve(Buffer.concat(chunks, total));
    });
    stream.end(body);
  });
}

function tooLarge(maxBytes: number): CollectorError {
  return new CollectorError(413, `request body exceeds ${maxBytes} bytes after decompression`);
}

/**
 * Read and drop what is left of a request body that was refused before it was read, so the
 * client, still writing, finishes and reads the answer (a socket closed on unread data is reset
 * under it: EPIPE). True when the body ended within `maxBytes` and `timeoutMs`; false when it
 * is bigger, slower or the client went away (then the answer closes the connection).
 */
export function discardBody(raw: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<boolean> {
  if (raw.complete || raw.readableEnded) return Promise.resolve(true);
  if (raw.destroyed || Number(raw.headers['content-length'] ?? 0) > maxBytes) return Promise.resolve(false);
  return new Promise((resolve) => {
    let read = 0;
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('error', onGone);
      raw.off('close', onGone);
      if (!ended) raw.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onGone = () => finish(false);
    const timer = setTimeout(onGone, timeoutMs);
    // A preParsing stream may hold it piped: the bytes now go nowhere.
    raw.unpipe();
    raw.on('data', onData);
    raw.on('end', onEnd);
    raw.on('error', onGone);
    raw.on('close', onGone);
    raw.resume();
  });
}
