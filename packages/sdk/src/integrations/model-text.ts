import { redactSecrets } from '../sanitize.ts';
import type { CallResult } from '../types.ts';

/** The tool-result text the model sees: feedback (sanitized already), or the value redacted of secrets. */
export function modelText(r: CallResult): string {
  if (!r.ok) return r.feedback;
  const value = redactSecrets(r.value);
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value ?? null);
  } catch {
    return redactSecrets(String(value));
  }
}
