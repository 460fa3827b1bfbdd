/**
 * Names that become indexed columns (tool names, models; in SQL, a session's agent, user and
 * outcome): a value too long for a Postgres btree entry would fail the whole write transaction
 * (`index row size … exceeds btree version 4 maximum`), so it is stored shortened instead, and
 * the span keeps the full value (its attributes and name are not indexed).
 *
 * Shortened: the longest prefix of whole characters that fits, then a marker with the full
 * value's length and the first 16 hex digits of its SHA-256, e.g.
 * `read_file_aaaa…[SHORTENED:3000 bytes sha256:226bfb9fa5208722]`. The same value always gives the
 * same text (a retried or re-sent span keys the same row), and two values that share their prefix
 * still give two keys. The SQL function guardtrace_key_text (migration
 * 20261206010000_overlong_key_text) is the same rule; test/overlong.test.ts compares both.
 */
import { createHash } from 'node:crypto';

// 256 bytes: tool and model names are identifiers (OpenAI allows 64 characters for a function
// name); and with a session id (1,024 bytes at most, span-rules.ts) and a failure class (256) every
// rollup key holding them still fits a btree entry (at most 2,704 bytes) with room to spare.
export const MAX_KEY_TEXT_BYTES = 256;

/** What marks a shortened value (the web shows it as it is: the marker says what happened). */
export const SHORTENED_MARK = '…[SHORTENED:';

/** `v` as an indexed column holds it: itself when it fits MAX_KEY_TEXT_BYTES, else shortened (see above). */
export function keyText(v: string): string;
export function keyText(v: string | null): string | null;
export function keyText(value: string | null): string | null {
  // NUL is stored as U+FFFD (3 bytes, copy.ts): counted as stored, else a shortened value of NULs went past the bound.
  const v = value !== null && value.includes('\0') ? value.replaceAll('\0', '\uFFFD') : value;
  // A UTF-16 unit is at most 3 UTF-8 bytes: most values need no count.
  if (v === null || v.length * 3 <= MAX_KEY_TEXT_BYTES) return v;
  const bytes = Buffer.byteLength(v, 'utf8');
  if (bytes <= MAX_KEY_TEXT_BYTES) return v;
  const hash = createHash('sha256').update(v, 'utf8').digest('hex').slice(0, 16);
  const mark = `${SHORTENED_MARK}${bytes} bytes sha256:${hash}]`;
  const budget = MAX_KEY_TEXT_BYTES - Buffer.byteLength(mark, 'utf8');
  let used = 0;
  let end = 0;
  for (const ch of v) {
    const cp = ch.codePointAt(0) as number;
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (used + size > budget) break;
    used += size;
    end += ch.length;
  }
  return v.slice(0, end) + mark;
}
