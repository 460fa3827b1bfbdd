import { correctionNote } from '../auto-repair.ts';
import { redactSecrets } from '../sanitize.ts';
import type { CallResult } from '../types.ts';

/**
 * The tool-result text the model sees: feedback (sanitized already, and starting with what was
 * auto-repaired), or the value redacted of secrets, after the note of what was auto-repaired.
 */
export function modelText(r: CallResult): string {
  if (!r.ok) return r.feedback;
  const note = correctionNote(r);
  const text = valueText(r.value);
  return note === undefined ? text : `${note}\n\n${text}`;
}

function valueText(raw: unknown): string {
  const value = redactSecrets(raw);
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value ?? null);
  } catch {
    return redactSecrets(String(value));
  }
}
