import 'server-only';

/**
 * The replay answers already built, kept per session version (the answer's ETag) in this
 * process, so that opening a session nobody has changed since it was built costs a send of the
 * kept text instead of a rebuild: what a colleague opening a shared link, or a second tab, asks
 * for. A browser that has the answer already gets a 304 before this (replay/route.ts); a new
 * version of the session (a batch written to it) has a new ETag and is built anew. Requests for
 * one version that arrive while it is being built share that build.
 */

// 64 MiB: the seed's largest session (6,629 spans) answers ~2.6 MB, so this keeps ~25 such
// sessions or thousands of ordinary ones, a small part of the web process's memory.
const REPLAY_CACHE_BYTES = 64 * 1024 * 1024;

interface Entry {
  etag: string;
  body: string;
  bytes: number;
}

export class ReplayCache {
  readonly #entries = new Map<string, Entry>();
  readonly #building = new Map<string, Promise<string | null>>();
  #bytes = 0;

  constructor(readonly maxBytes: number = REPLAY_CACHE_BYTES) {}

  get bytes(): number {
    return this.#bytes;
  }

  /**
   * The answer kept for `key` at `etag`, else the one `build` makes (kept when it fits). `build`
   * answers null when there is nothing to show (the session went): nothing is kept then.
   */
  async get(key: string, etag: string, build: () => Promise<string | null>): Promise<string | null> {
    const kept = this.#entries.get(key);
    if (kept?.etag === etag) {
      // Most recently used last: the first entries are the ones to drop.
      this.#entries.delete(key);
      this.#entries.set(key, kept);
      return kept.body;
    }
    const id = `${key}\0${etag}`;
    let pending = this.#building.get(id);
    if (!pending) {
      pending = build().then((body) => {
        if (body !== null) this.#keep(key, etag, body);
        return body;
      });
      const done = () => this.#building.delete(id);
      pending.then(done, done);
      this.#building.set(id, pending);
    }
    return pending;
  }

  #keep(key: string, etag: string, body: string): void {
    this.#drop(key);
    // UTF-16 code units: an upper bound of what a string holds, near enough for a budget.
    const bytes = body.length * 2;
    if (bytes > this.maxBytes) return;
    this.#entries.set(key, { etag, body, bytes });
    this.#bytes += bytes;
    for (const k of this.#entries.keys()) {
      if (this.#bytes <= this.maxBytes) break;
      this.#drop(k);
    }
  }

  #drop(key: string): void {
    const e = this.#entries.get(key);
    if (!e) return;
    this.#entries.delete(key);
    this.#bytes -= e.bytes;
  }
}
