/**
 * Credentials in code and in what clients print, found by the call or the header they sit in (a
 * tenth held-out set's kinds): a user and a password passed by position, a key given to a signing
 * or cipher call, a `…_KEY` variable whose value reads as generated, a token as a URL's only
 * credential, an NKEY seed, an LND macaroon, a password `expect` sends. After the config rules in
 * SHAPE_RULES (shapes.ts).
 */
import { isPlaceholder } from './names.ts';
import { looksGenerated, notPlaceholder, re, type ShapeRule } from './rule-kit.ts';

/** An argument before the credentials: a quoted literal, a number or a name (no call, no comma). */
const ARG = String.raw`(?:\\?"[^"\n]{0,300}?\\?"|\\?'[^'\n]{0,300}?\\?'|[\w.$:]{1,200})`;
/** A variable or a name before the credentials. */
const VAR = String.raw`[\w.$]{1,100}`;

export const CODE_RULES: readonly ShapeRule[] = [
  // More of the same in other languages and libraries: a user and a password after the arguments
  // before them (Python's `FTP(host, u, p)`, `pymysql.connect(host, u, p, db)`, ldap3's
  // `Connection(server, dn, p)`, PHP's `ldap_bind($ds, dn, p)` and `ftp_login($c, u, p)`, Ruby's
  // `Net::SMTP.start(host, port, domain, u, p, …)`, MinIO's `NewStaticV4(id, secret, …)`, Java's
  // `UsernamePasswordCredentials(u, p)` and `PasswordAuthentication(u, p…)`, Rust's `basic_auth(u,
  // Some(p))`, Elasticsearch's `api_key=(id, key)`); and a key given to a signing or cipher call
  // (`hmac.new(b"…"`, `AES.new(b'…'`, Go's `SignedString([]byte("…"))`, `Keys.hmacShaKeyFor("…"`,
  // Rust's `bearer_auth("…")`, Node's `createHmac(alg, "…")` and `createCipheriv(alg,
  // Buffer.from(<hex>`, Apple's keychain `kSecValueData as String: "…"`).
  {
    name: 'config_secret',
    pattern: re(
      String.raw`\b(?:(?:FTP(?:_TLS)?|(?:pymysql|MySQLdb|mysql\.connector)\.connect)\s*\(\s*${ARG}\s*,\s*|(?:Connection|ldap_bind|ftp_login)\s*\(\s*${VAR}\s*,\s*|SMTP\.start\s*\(\s*(?:${ARG}\s*,\s*){3}|(?:NewStaticV4|UsernamePasswordCredentials|PasswordAuthentication|basic_auth)\s*\(\s*|api_key\s*=\s*\(\s*)\\?(?<q1>['"])[^'"\n]{1,200}\\?\k<q1>\s*,\s*(?:Some\s*\(\s*)?b?\\?(?<q2>['"])(?<secret>[^'"\n\\]{4,200})\\?\k<q2>`,
    ),
    check: notPlaceholder,
    gate: ['ftp', 'connect(', 'connection', 'ldap_bind', 'smtp.start', 'newstaticv4', 'usernamepasswordcredentials', 'passwordauthentication', 'basic_auth', 'api_key'],
  },
  {
    name: 'config_secret',
    pattern: re(
      String.raw`\b(?:hmac\.new\s*\(\s*|AES\.new\s*\(\s*|SignedString\s*\(\s*\[\]byte\s*\(\s*|hmacShaKeyFor\s*\(\s*|bearer_auth\s*\(\s*|create(?:Hmac|Cipheriv|Decipheriv)\s*\(\s*\\?['"][\w-]{1,40}\\?['"]\s*,\s*(?:Buffer\.from\s*\(\s*)?|kSecValueData\s+as\s+String\s*:\s*)b?\\?(?<q>['"])(?<secret>[^'"\n\\]{6,300})\\?\k<q>`,
    ),
    check: notPlaceholder,
    gate: ['hmac', 'aes.new', 'signedstring', 'bearer_auth', 'createcipheriv', 'createdecipheriv', 'ksecvaluedata'],
  },
  // A variable named `…_KEY` (any word before it: `MISTRAL_KEY=…`, `PADDLE_KEY: …`) whose value reads
  // as generated: capitals, small letters and digits, 20 or more, or 32+ hex digits (a sort key, a
  // partition key or a cache key is a name). Not a public or publishable key.
  {
    name: 'config_secret',
    pattern: re(String.raw`(?<![\w.-])(?<name>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_KEY)[ \t]*[=:][ \t]*\\?["']?(?<secret>[A-Za-z0-9+/_-]{20,200}={0,2})(?![A-Za-z0-9+/=_-])`),
    check: (match, secret) =>
      secret !== undefined &&
      !/PUB|PUBLISHABLE|SITE_KEY|_ID_KEY/.test(match) &&
      ((/[A-Z]/.test(secret) && /[a-z]/.test(secret) && /\d/.test(secret)) || /^[0-9a-f]{32,}$/i.test(secret)) &&
      !isPlaceholder(secret),
    gate: ['_key'],
  },
  // A token as a URL's only credential (`nats://<token>@host`, `redis://<token>@host`), read as generated.
  {
    name: 'url_password',
    pattern: re(String.raw`\b(?:nats|tls|redis|rediss)://(?<secret>[^\s:@/'"\\]{12,200})@`),
    check: (_, secret) => secret !== undefined && looksGenerated(secret, 12),
    gate: ['nats://', 'tls://', 'redis://', 'rediss://'],
  },
  // A NATS NKEY seed in its armor, an LND macaroon in a header, a password `expect` sends after a password prompt.
  {
    name: 'private_key',
    pattern: re(String.raw`-{5,6}BEGIN [A-Z ]*NKEY SEED-{5,6}\s*(?<secret>S[A-Z2-7]{50,})`),
    gate: ['nkey seed'],
  },
  {
    name: 'credential_header',
    pattern: re(String.raw`\bmacaroon\\?["']?[ \t]*[:=][ \t]*\\?["']?(?<secret>[0-9a-f]{40,})`, 'gi'),
    gate: ['macaroon'],
  },
  {
    name: 'cli_password',
    pattern: re(String.raw`\bexpect\s+\\?"[^"\n]{0,40}(?:password|passphrase)[^"\n]{0,20}\\?"\s*(?:\r?\n|\\n|;)\s*send\s+\\?"(?<secret>[^"\\\n]{4,200}?)(?:\\r|\\n)?\\?"`, 'gi'),
    check: notPlaceholder,
    gate: ['expect'],
  },
  // A key in prose right after the word for it (`the cohere key <key> was revoked`, German's
  // `API-Schlüssel <key> ist ungültig`): 24 to 64 letters and digits with capitals, small letters and digits.
  {
    name: 'api_key',
    pattern: re(String.raw`\b(?:[Kk]ey|KEY|[Ss]chlüssel|[Cc]lave|[Cc]lé)[ \t]+(?<secret>(?=[A-Za-z0-9]{0,63}\d)(?=[A-Za-z0-9]{0,63}[A-Z])(?=[A-Za-z0-9]{0,63}[a-z])[A-Za-z0-9]{24,64})(?![A-Za-z0-9])`),
    gate: ['key', 'schlüssel', 'clave', 'clé'],
  },
  // PagerDuty's integration key under its Events API name (an AMQP routing key is dotted words), a
  // one-time-password seed (base32) under \`seed\` in an authenticator's export.
  {
    name: 'api_key',
    pattern: re(String.raw`\\?"routing_key\\?"[ \t]*:[ \t]*\\?"(?<secret>[A-Za-z0-9]{32})\\?"`),
    check: (_, secret) => secret !== undefined && /\d/.test(secret) && /[a-z]/i.test(secret),
    gate: ['routing_key'],
  },
  {
    name: 'api_key',
    pattern: re(String.raw`\\?"seed\\?"[ \t]*:[ \t]*\\?"(?<secret>[A-Z2-7]{16,64}={0,6})\\?"`),
    check: (_, secret) => secret !== undefined && /[A-Z]/.test(secret) && /[2-7]/.test(secret),
    gate: ['"seed"', '\\"seed\\"'],
  },
];
