/**
 * Request bodies: Content-Encoding handled here with a cap on the inflated size, so a gzip
 * bomb costs at most maxBodyBytes of memory before it is refused with 413.
 */
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
