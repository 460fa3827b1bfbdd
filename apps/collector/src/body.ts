/**
 * Request bodies: Content-Encoding handled here with a cap on the inflated size, so a gzip
 * bomb costs at most maxBodyBytes of memory before it is refused with 413.
 */
import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { CollectorError } from './errors.ts';

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);

export async function decodeBody(body: Buffer, contentEncoding: string | undefined, maxBytes: number): Promise<Buffer> {
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  if (enc === '' || enc === 'identity') {
    if (body.length > maxBytes) throw tooLarge(maxBytes);
    return body;
  }
  const fn = enc === 'gzip' || enc === 'x-gzip' ? gunzip : enc === 'deflate' ? inflate : undefined;
  if (!fn) throw new CollectorError(415, `unsupported Content-Encoding "${enc.slice(0, 40)}": send gzip or none`);
  try {
    // Inflates chunk by chunk and stops as soon as the output would pass the cap.
    return await fn(body, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw tooLarge(maxBytes);
    throw CollectorError.badRequest(`invalid ${enc} body: ${(err as Error).message}`);
  }
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
