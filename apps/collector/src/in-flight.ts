/**
 * The in-flight memory bound: what every request holds from its admission to its answer (its
 * rows are written by then). A request counts what it holds as it comes to hold it (`use`): its
 * body as received, a compressed body's inflated chunks and their joined copy, what decoding
 * makes of it, its row text twice (the rows, and their copy in the transaction's COPY buffers).
 * Before each step that allocates, what the request is expected to hold is set aside (`expect`),
 * so a request that will not fit is refused before it is read, inflated or decoded rather than
 * after. A request's share is the larger of the two, and goes with its answer.
 *
 * What was set aside is checked against the bound. What a request then turns out to hold
 * beyond it (a row chunk more than the first) may take the total up to an eighth of the bound
 * over it: under a flood the bound is always nearly full of what others set aside, and a
 * request refused half-way would have been read and decoded for nothing.
 */
import { CollectorError } from './errors.ts';
import type { Encoding } from './otlp-decode.ts';
import { arenaChunkBytes } from './prepare.ts';

/** One request's share. */
export interface Held {
  /** Bytes set aside for the request (at least `used`). */
  reserved: number;
  /** Bytes counted as held so far. */
  used: number;
}

// Row text per decoded body byte, for sizing a request's row arena before its span count is
// known: guard-shaped spans make ~1.5x their protobuf size in rows and ~0.7x their JSON size;
// an underestimate only means more, smaller chunks.
export const ARENA_BYTES_PER_BODY_BYTE = 1.5;

/**
 * What a decoded body of `bytes` is expected to hold beyond itself before its spans are read:
 * JSON its text as a string and its parsed tree (each about its size; the tree's structure is
 * counted once the body is scanned), protobuf its decoded strings (at most about its size);
 * and the first chunk of row text, twice.
 */
export function expectedCost(bytes: number, encoding: Encoding): number {
  const decoded = encoding === 'json' ? 2 * bytes : bytes;
  const arena = arenaChunkBytes(bytes * ARENA_BYTES_PER_BODY_BYTE);
  return decoded + 2 * arena;
}

/**
 * The inflated size a gzip body announces (ISIZE, its last four bytes), or undefined when it
 * cannot tell. A false or multi-member one only misplaces the early refusal: the inflated
 * chunks are counted as they come whatever it says.
 */
export function gzipInflatedSize(body: Buffer, contentEncoding: string | undefined): number | undefined {
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  if ((enc !== 'gzip' && enc !== 'x-gzip') || body.length < 18) return undefined;
  return body.readUInt32LE(body.length - 4);
}

export class InFlightMemory {
  /** Bytes set aside for all requests in flight. */
  total = 0;

  private readonly slack: number;

  constructor(
    private readonly max: number,
    private readonly retryAfterSeconds: number,
    private readonly onChange: (total: number) => void,
  ) {
    this.slack = Math.floor(max / 8);
  }

  /** The request now holds `bytes` more. Throws 503 (or 413) when that breaks the bound and its slack. */
  use(h: Held, bytes: number): void {
    h.used += bytes;
    this.cover(h, h.used, this.max + this.slack);
  }

  /** The request is about to hold `bytes` in all: set that aside now, or refuse it now. */
  expect(h: Held, bytes: number): void {
    this.cover(h, bytes, this.max);
  }

  release(h: Held): void {
    this.total -= h.reserved;
    h.reserved = 0;
    h.used = 0;
    this.onChange(this.total);
  }

  private cover(h: Held, bytes: number, limit: number): void {
    if (bytes <= h.reserved) return;
    this.total += bytes - h.reserved;
    h.reserved = bytes;
    this.onChange(this.total);
    if (h.reserved > this.max) {
      throw new CollectorError(
        413,
        `request needs ~${size(h.reserved)} of memory to read (JSON is counted at its parsed size), ` +
          `over the collector's ${size(this.max)} for all requests in flight: send smaller batches, or protobuf`,
      );
    }
    if (this.total > limit) throw CollectorError.unavailable('collector overloaded, retry later', this.retryAfterSeconds);
  }
}

const size = (bytes: number) => (bytes < 2 ** 20 ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / 2 ** 20).toFixed(1)} MiB`);
