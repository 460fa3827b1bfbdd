/**
 * What is wrong with a Postgres URL (DATABASE_URL, DATABASE_READ_URL), said so that a person can fix
 * it; null when it is usable. One check for the collector, the migrator and the web app, each of
 * which stops naming the variable: a password with a character URLs reserve (`openssl rand
 * -base64` makes `/`, `+` and `=`) otherwise reads as a host, a port or a path, and the error is
 * pg's "Invalid URL" or a connection to the wrong host.
 */
const ENCODE =
  'a user name or password holding / @ : # ? % [ ] or a space must be percent-encoded ' +
  '(JavaScript: encodeURIComponent(password); Python: urllib.parse.quote(password, safe="")), ' +
  'e.g. postgres://guardtrace:Xk3%2F9q%2BZt0%3D@db.internal:5432/guardtrace';

export function databaseUrlProblem(url: string): string | null {
  if (!/^postgres(?:ql)?:\/\//i.test(url)) return 'must be a postgres:// or postgresql:// URL';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `is not a valid URL: ${ENCODE}`;
  }
  // Parsed, but not as meant: an `@` left in the path (`u:123/abc@host`: host `u`, port 123) or a `#` that cut the password.
  if (parsed.pathname.includes('@') || parsed.search.includes('@') || parsed.hash !== '') return `reads as another host or a cut password: ${ENCODE}`;
  if (parsed.hostname === '' && !/[?&]host=/.test(parsed.search)) return 'names no host: postgres://<user>:<password>@<host>:<port>/<database>';
  return null;
}
