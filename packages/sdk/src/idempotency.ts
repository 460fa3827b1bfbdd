import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { stringify } from 'safe-stable-stringify';

/**
 * Idempotency key made at intent time: a fingerprint of the tool, its canonical arguments
 * (key order and whitespace do not matter) and the intent id, so a regenerated call for the
 * same intent maps back to the same key even when the model re-serializes the arguments.
 * SHA-256 from @noble/hashes, not node:crypto: the main entry runs
 * anywhere and stays synchronous, which Web Crypto's `digest` is not.
 */
export function idempotencyKey(tool: string, canonicalArgs: unknown, intentId?: string): string {
  const body = stringify({ tool, args: canonicalArgs ?? null, intent: intentId ?? null }) ?? '';
  return `idk_${bytesToHex(sha256(utf8ToBytes(body))).slice(0, 32)}`;
}

/** Canonical JSON text of arguments (sorted keys), used for fingerprints and span attributes. */
export function canonicalJson(v: unknown): string {
  try {
    return stringify(v) ?? 'null';
  } catch {
    return String(v);
  }
}

export type IdempotencyEntry =
  | { status: 'done'; value: unknown }
  | { status: 'uncertain' };

/** Where outcomes of side-effecting calls are remembered by key. Swap for a shared store in a fleet. */
export interface IdempotencyStore {
  get(key: string): IdempotencyEntry | undefined;
  set(key: string, entry: IdempotencyEntry): void;
  delete(key: string): void;
}

/** In-process store with a bounded size (oldest keys dropped first). */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #map = new Map<string, IdempotencyEntry>();
  /** 10k keys: enough for a long-running agent process, bounded so it cannot grow forever. */
  constructor(private readonly maxKeys = 10_000) {}
  get(key: string): IdempotencyEntry | undefined {
    return this.#map.get(key);
  }
  set(key: string, entry: IdempotencyEntry): void {
    this.#map.delete(key);
    this.#map.set(key, entry);
    if (this.#map.size > this.maxKeys) {
      const oldest = this.#map.keys().next().value;
      if (oldest !== undefined) this.#map.delete(oldest);
    }
  }
  delete(key: string): void {
    this.#map.delete(key);
  }
}
