/**
 * What a secret shape is (the corpus' type, shared by secrets.ts and the held-out siblings), and
 * how a test reads one: as free text (asText), and what it looks for in stored data (fragments).
 */
export type SecretKind =
  | 'cloud'
  | 'vendor-token'
  | 'jwt'
  | 'private-key'
  | 'connection-string'
  | 'password-json'
  | 'query-string'
  | 'header'
  | 'key-name'
  | 'card'
  | 'env'
  | 'iban'
  | 'log-password'
  | 'sql-password'
  | 'cli-password'
  | 'config-file';

export interface SecretShape {
  id: string;
  kind: SecretKind;
  /** What must never be stored. */
  secret: string;
  /** The secret as it appears in free text (a log line, a URL, a header, a config line). */
  text?: string;
  /** The name the secret is stored under, when its name is what makes it a secret. */
  key?: string;
}

/** The shape as free text: its text, or `key=secret` for a named secret. */
export function asText(s: SecretShape): string {
  return s.text ?? `${s.key}=${s.secret}`;
}

/**
 * What a test looks for in stored data: the secret, and its longest run of letters and digits
 * (at most 16 of them from the middle) when that run is long enough to be its own.
 */
export function fragments(s: SecretShape): string[] {
  const out = [s.secret];
  const runs = s.secret.match(/[A-Za-z0-9]{10,}/g) ?? [];
  const longest = runs.sort((a, b) => b.length - a.length)[0];
  if (longest && longest !== s.secret) {
    const from = Math.max(0, Math.floor((longest.length - 16) / 2));
    out.push(longest.slice(from, from + 16));
  }
  const digits = s.secret.replace(/[ -]/g, '');
  if (s.kind === 'card' && digits !== s.secret) out.push(digits);
  if (s.kind === 'iban' && s.secret.includes(' ')) out.push(s.secret.replace(/ /g, ''));
  return out;
}
