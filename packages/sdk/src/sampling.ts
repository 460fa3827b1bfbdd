/** Per-session sampling decision, made at the session's end (no OTel SDK imports: library code). */

/** Deterministic [0, 1) from a session id (FNV-1a + murmur3 finalizer), so every process decides alike. */
export function sessionHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // murmur3 finalizer: FNV alone leaves sequential ids clustered in the high bits
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

/** Weight of a session: failures always kept (1); clean ones kept at `rate`, standing for 1/rate. */
export function samplingWeight(sessionId: string, clean: boolean, rate: number): number {
  if (!clean || rate >= 1) return 1;
  if (rate <= 0) return 0;
  return sessionHash(sessionId) < rate ? 1 / rate : 0;
}
