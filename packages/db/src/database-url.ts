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

/** What @prisma/adapter-pg puts in a PrismaClientKnownRequestError's meta.driverAdapterError.cause. */
interface PrismaCause {
  originalCode?: string;
  originalMessage?: string;
  kind?: string;
}

/** Prisma's kinds of connection failure without a SQLSTATE, as the codes below. */
const PRISMA_KINDS: Record<string, string> = {
  DatabaseNotReachable: 'UNREACHABLE',
  AuthenticationFailed: '28P01',
  DatabaseDoesNotExist: '3D000',
  TooManyConnections: '53300',
  SocketTimeout: 'ETIMEDOUT',
};

/** `host:port/database` of a Postgres URL, never its password (for messages). */
function where(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'the server';
  }
}

/**
 * Why a connection to `url` failed, said so that a person can fix it, or null when `err` is not a
 * connection or sign-in failure (a query's own error): for a process that cannot start without its
 * database (the collector, the migrator) instead of pg's error object and stack. `variable` is the
 * setting that holds the URL. Codes: Postgres' SQLSTATE (28P01, 28000, 3D000, 57P03, 53300) and
 * Node's network errors.
 */
export function connectionProblem(err: unknown, url: string, variable = 'DATABASE_URL'): string | null {
  if (!(err instanceof Error)) return null;
  let code = (err as { code?: unknown }).code;
  let msg = err.message;
  // Prisma (with @prisma/adapter-pg) wraps pg's error: its SQLSTATE and message, or a kind.
  const cause = (err as { meta?: { driverAdapterError?: { cause?: PrismaCause } } }).meta?.driverAdapterError?.cause;
  if (cause) {
    code = cause.originalCode ?? PRISMA_KINDS[cause.kind ?? ''] ?? code;
    msg = cause.originalMessage ?? msg;
  }
  const at = where(url);
  let user = 'postgres';
  try {
    user = decodeURIComponent(new URL(url).username) || user;
  } catch {
    // where() already says "the server"
  }
  switch (code) {
    case '28P01':
      return `${variable}: Postgres at ${at} refused the password of user "${user}": check the user and password in ${variable} (one holding / @ : # ? % or a space must be percent-encoded)`;
    case '28000':
      return `${variable}: Postgres at ${at} does not let this client in (${msg}): allow it in pg_hba.conf, or set sslmode in ${variable} if the server requires TLS (e.g. ?sslmode=require)`;
    case '3D000':
      return `${variable}: ${msg} at ${at}: create it (CREATE DATABASE …) or fix the database name at the end of ${variable}`;
    case '57P03':
      return `${variable}: Postgres at ${at} is starting up, shutting down or in recovery and takes no connections yet (${msg}): start again once it is up`;
    case '53300':
      return `${variable}: Postgres at ${at} has no connection slot left (${msg}): raise max_connections or lower the connections of other clients`;
    case 'ECONNREFUSED':
      return `${variable}: nothing accepts connections at ${at.split('/')[0]}: is Postgres running there, and listening on that address and port (listen_addresses, port)?`;
    case 'UNREACHABLE':
      return `${variable}: cannot reach Postgres at ${at.split('/')[0]} (${msg}): is it running there, listening on that address and port, and is the host name right?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${variable}: the host of ${at.split('/')[0]} is not found (DNS): check the host name in ${variable}`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${variable}: no answer from ${at.split('/')[0]} (${code}): check the host and port in ${variable} and any firewall between`;
  }
  if (/\bSSL\b|TLS|certificate/i.test(msg)) {
    return `${variable}: TLS with Postgres at ${at} failed (${msg}): set sslmode in ${variable} to what the server offers (e.g. ?sslmode=require, or sslmode=disable for a server without TLS)`;
  }
  if (/timeout expired|Connection terminated due to connection timeout/i.test(msg)) {
    return `${variable}: no answer from ${at.split('/')[0]} in time (${msg}): check the host and port in ${variable} and any firewall between`;
  }
  return null;
}
