/**
 * The in-flight memory bound: what every request holds from its admission to its answer (its
 * rows are written by then). A request counts what it holds as it comes to hold it (`use`): its
 * body as it arrives, a compressed body's inflated chunks and their joined copy, what decoding
 * makes of it, its row text twice (the rows, and their copy in the transaction's COPY buffers).
 * Before each step that allocates (inflating, decoding), what the request is expected to hold is
 * set aside (`expect`), so a request that will not fit is refused before that step rather than
 * after; before its body is read, what its Content-Length announces is only checked (`check`),
 * not set aside: headers alone hold nothing (64 sockets that declared 1 MiB each and sent
 * nothing once held the whole bound for the 30 s of the body timeout). A request's share is the
 * larger of the two, and goes with its answer.
 *
 * Three bounds: the collector's in all, each project's and each API key's, so one tenant cannot
 * take the memory every other tenant's exports need. A project's or a key's bound refuses a
 * request only while others of the same project or key hold memory: alone, a request may take
 * up to the whole bound.
 *
 * What was set aside is checked against the bounds. What a request then turns out to hold
 * beyond it (a row chunk more than the first, the next chunk of its body) may take a total up
 * to an eighth of its bound over it: under a flood the bound is always nearly full of what
 * others set aside, and a request refused half-way would have been read and decoded for nothing.
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
  /** The request's project and key (its API key's hash), once admitted: their own bounds apply. */
  project?: string;
  key?: string;
}

/** What may be held in flight: in all, by one project, by one API key. */
export interface InFlightBounds {
  total: number;
  perProject: number;
  perKey: number;
}

/**
 * The bounds of `limits`: a project's and a key's, when not set (0), derived from the whole one.
 * Half per project: no project can take more than half the collector from the others, however
 * many requests it sends. Per key, as much as its project: most projects send with one key;
 * set lower, one service (one key) of a project cannot take its project's whole share.
 */
export function inFlightBounds(limits: { maxInFlightBytes: number; maxInFlightBytesPerProject: number; maxInFlightBytesPerKey: number }): InFlightBounds {
  const total = limits.maxInFlightBytes;
  const perProject = Math.min(total, limits.maxInFlightBytesPerProject || Math.floor(total / 2));
  return { total, perProject, perKey: Math.min(total, limits.maxInFlightBytesPerKey || perProject) };
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

  private readonly byProject = new Map<string, number>();
  private readonly byKey = new Map<string, number>();

  constructor(
    private readonly bounds: InFlightBounds,
    private readonly retryAfterSeconds: number,
    private readonly onChange: (total: number) => void,
  ) {}

  /** The request now holds `bytes` more. Throws 503 (or 413) when that breaks a bound and its slack. */
  use(h: Held, bytes: number): void {
    this.cover(h, h.used + bytes, true);
    h.used += bytes;
  }

  /** The request is about to hold `bytes` in all: set that aside now, or refuse it now. */
  expect(h: Held, bytes: number): void {
    this.cover(h, bytes, false);
  }

  /**
   * Would the request fit if it held `bytes` more now? Throws as `expect` would, but sets
   * nothing aside: what a request declares it will send is checked, and counted only as it arrives.
   */
  check(h: Held, bytes: number): void {
    const need = h.reserved + bytes;
    if (need > this.bounds.total) throw this.tooBig(need);
    this.refuseOver(h, bytes, false);
  }

  release(h: Held): void {
    if (h.reserved === 0) return;
    this.total -= h.reserved;
    this.add(this.byProject, h.project, -h.reserved);
    this.add(this.byKey, h.key, -h.reserved);
    h.reserved = 0;
    h.used = 0;
    this.onChange(this.total);
  }

  private cover(h: Held, bytes: number, slack: boolean): void {
    if (bytes <= h.reserved) return;
    const more = bytes - h.reserved;
    // Refused before it is counted: a refused request keeps its share until its answer, which
    // waits for the rest of its body to be read and dropped (up to bodyTimeoutMs), so each
    // refusal counted would take its project, its key and the collector a chunk further over.
    if (bytes > this.bounds.total) throw this.tooBig(bytes);
    this.refuseOver(h, more, slack);
    this.total += more;
    this.add(this.byProject, h.project, more);
    this.add(this.byKey, h.key, more);
    h.reserved = bytes;
    this.onChange(this.total);
  }

  /**
   * 503 when the collector, the request's project or its key would hold more than its bound
   * (and, with `slack`, an eighth more) with `extra` bytes more. A project's or a key's bound
   * refuses a request only while others of the project (or key) hold memory too: alone, a
   * request may take up to the whole bound, or it could never be taken.
   */
  private refuseOver(h: Held, extra: number, slack: boolean): void {
    const over = (held: number, bound: number) => held + extra > (slack ? bound + Math.floor(bound / 8) : bound);
    if (over(this.total, this.bounds.total)) {
      throw CollectorError.unavailable('collector overloaded, retry later', this.retryAfterSeconds);
    }
    const project = h.project === undefined ? 0 : (this.byProject.get(h.project) ?? 0);
    if (project > h.reserved && over(project, this.bounds.perProject)) {
      throw CollectorError.unavailable(
        `this project has ${size(project)} in flight, its bound on this collector is ${size(this.bounds.perProject)}: retry later`,
        this.retryAfterSeconds,
      );
    }
    const key = h.key === undefined ? 0 : (this.byKey.get(h.key) ?? 0);
    if (key > h.reserved && over(key, this.bounds.perKey)) {
      throw CollectorError.unavailable(
        `this API key has ${size(key)} in flight, its bound on this collector is ${size(this.bounds.perKey)}: retry later`,
        this.retryAfterSeconds,
      );
    }
  }

  private tooBig(bytes: number): CollectorError {
    return new CollectorError(
      413,
      `request needs ~${size(bytes)} of memory to read (JSON is counted at its parsed size), ` +
        `over the collector's ${size(this.bounds.total)} for all requests in flight: send smaller batches, or protobuf`,
    );
  }

  private add(map: Map<string, number>, id: string | undefined, bytes: number): void {
    if (id === undefined) return;
    const n = (map.get(id) ?? 0) + bytes;
    if (n <= 0) map.delete(id);
    else map.set(id, n);
  }
}

const size = (bytes: number) => (bytes < 2 ** 20 ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / 2 ** 20).toFixed(1)} MiB`);
