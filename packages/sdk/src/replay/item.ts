/** The shape check of a dataset item, shared by the file reader (with line numbers) and the replay. */
import { DATASET_ITEM_FORMAT } from '@guardtrace/semconv';

/** What is wrong with a value that should be a dataset item; undefined when it is one. */
export function itemProblem(x: unknown): string | undefined {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return `expected a dataset item (a JSON object), got ${Array.isArray(x) ? 'an array' : x === null ? 'null' : typeof x}`;
  const o = x as Record<string, unknown>;
  if (o.format !== undefined && o.format !== DATASET_ITEM_FORMAT) return `unknown format ${JSON.stringify(o.format)} (expected "${DATASET_ITEM_FORMAT}")`;
  if (typeof o.tool !== 'string' || o.tool === '') return 'field "tool" is missing or not a string';
  if (!Array.isArray(o.attempts)) return 'field "attempts" is missing or not an array';
  for (const [i, a] of o.attempts.entries()) {
    if (typeof a !== 'object' || a === null || typeof (a as { number?: unknown }).number !== 'number') return `attempts[${i}] is not an attempt (an object with a number)`;
  }
  return undefined;
}
