/**
 * Secrets in prose and statements: a password in a log line or SQL, a token in an error
 * message, names and values apart, SQL INSERT values, Redis and .pgpass lines, password hashes.
 */
import { isPlaceholder, isSecretName } from './names.ts';
import { AT, AT_ALNUM, CLI_VALUE, LINE_END, LINE_START, looksGenerated, notPlaceholder, QUOTED, re, type ShapeRule } from './rule-kit.ts';

export const TEXT_RULES: readonly ShapeRule[] = [
  // A quoted password after its keyword: log lines (`login failed … with password '…'`,
  // `password is "…"`) and SQL (`ALTER ROLE … PASSWORD '…'`, `CREATE USER … WITH ENCRYPTED
  // PASSWORD '…'`, `CREATE LOGIN … WITH PASSWORD = '…'`).
  {
    name: 'quoted_password',
    pattern: re(
      String.raw`${AT_ALNUM}(?:pass(?:word|wd|phrase|code)|pwd|(?<=\b(?:with|using)\s+)pass)\s+(?:(?:for\s+(?:user\s+)?\S{1,64}\s+)?(?:is|was|of|to|set\s+to|changed\s+to|reset\s+to)\s+|=\s*)?${QUOTED}`,
      'gi',
    ),
    check: notPlaceholder,
    gate: ['pass', 'Pass', 'PASS', 'pwd', 'Pwd', 'PWD'],
  },
  // The same unquoted, in a log line's prose (`with password Qz-26`, `password for alice is x7…`,
  // `password for the elastic built-in superuser is : x7…`, `password Qz-30 rejected`): only a value with letters and digits, 6 characters or more, so that
  // `password reset link sent`, `password is required` and `password must change` stay.
  {
    name: 'log_password',
    pattern: re(
      String.raw`${AT_ALNUM}(?:pass(?:word|wd|phrase)|pwd)\s+(?:(?:for\s+(?:the\s+)?(?:user\s+)?(?:[^\s:]{1,64}\s+){1,4})?(?:is|was|to|set\s+to|changed\s+to|reset\s+to)\s*:?\s+)?(?<secret>[^\s'"\\,;)]{6,})`,
      'gi',
    ),
    check: (_, secret) => secret !== undefined && looksGenerated(secret, 6),
    gate: ['pass', 'Pass', 'PASS', 'pwd', 'PWD'],
  },
  // A token, key or secret in an error message or a log line (`invalid auth token X…`, `token 'X…'
  // has expired`, `api key: X…`, DuckDB's `SECRET '…'`): 16 characters or more, letters and digits.
  // Not the end of a name (`client_secret=…`, `aws_secret_access_key = …`): the name rule's.
  {
    name: 'text_token',
    pattern: re(
      String.raw`(?:(?<![A-Za-z0-9_.-])|(?<=\\[nrtbf]))(?:(?:auth|access|refresh|api|bot|session|bearer)[_-])?(?:token|api[ _-]?key|secret|credential|access[ _-]?key)s?(?:\s*:\s+|\s+(?:is\s+|was\s+)?)\\?['"]?(?<secret>[A-Za-z0-9][A-Za-z0-9._~+/=:$-]{15,})`,
      'gi',
    ),
    check: (_, secret) => secret !== undefined && looksGenerated(secret, 16),
    gate: ['token', 'api', 'secret', 'credential', 'access'],
  },
  // SQL that sets a password without the word before its value: MySQL/Oracle `IDENTIFIED BY`
  // (quoted, or bare after CREATE/ALTER USER as Oracle allows), `SET PASSWORD … = '…'`,
  // MySQL's old `PASSWORD('…')`.
  {
    name: 'sql_password',
    pattern: re(
      String.raw`\b(?:IDENTIFIED(?:\s+WITH\s+['"${'`'}]?\w+['"${'`'}]?)?\s+BY(?:\s+PASSWORD)?\s*(?:(?:N(?='))?\\?['"]|(?<=\b(?:(?:CREATE|ALTER)\s+(?:USER|ROLE|LOGIN)|CONNECT\s+TO)\b[^;\n]{1,160}))|(?<=\bIDENTIFIED\s+BY\s+\S{1,200}\s+)REPLACE\s+(?:\\?['"])?|SET\s+PASSWORD(?:\s+FOR\s+[^=;\n]{1,80}?)?\s*=\s*(?:PASSWORD\s*\(\s*)?(?:N(?='))?\\?['"]|PASSWORD\s*\(\s*\\?['"])` +
        String.raw`(?<secret>(?<=')(?:[^'\n]|'')+(?=')|(?<=")[^"\n\\]+(?=\\?")|(?<=\s)[^\s'"();,\\]+)`,
      'gi',
    ),
    check: notPlaceholder,
    gate: ['IDENTIFIED', 'identified', 'Identified', 'PASSWORD', 'password', 'Password', 'REPLACE', 'replace', 'Replace'],
  },
  // SQL Server's `sp_password @old, @new` (both), and Oracle's `user/password@db` (sqlplus and its
  // siblings, the thin JDBC URL).
  {
    name: 'sql_password',
    pattern: re(String.raw`\bsp_password\s+(?<secret>(?:NULL|N?'(?:[^'\n]|'')*')\s*,\s*N?'(?:[^'\n]|'')+')`, 'gi'),
    gate: ['sp_password', 'SP_PASSWORD'],
  },
  {
    name: 'sql_password',
    pattern: re(String.raw`${AT}(?:(?:sqlplus|sqlldr|expdp|impdp|rman|exp|imp|CONNECT|CONN|connect|conn)(?:\s+-\w+)*\s+|jdbc:oracle:\w+:)[\w$#]+\/(?<secret>[^\s@/'"]+)@`),
    check: notPlaceholder,
    gate: ['sqlplus', 'sqlldr', 'expdp', 'impdp', 'rman', 'exp ', 'imp ', 'jdbc:oracle:', 'CONN', 'conn'],
  },
  // A name and its value apart, as lists of settings write them: `{"name": "DB_PASSWORD", "value": "…"}`
  // (either order; also `key`), and a Kubernetes env entry (`- name: DB_PASSWORD` then `value: …`).
  {
    name: 'config_secret',
    pattern: re(
      String.raw`\\?"(?:name|key|Name|Key)\\?"\s*:\s*\\?"[^"\\\n]{1,100}\\?"\s*,\s*\\?"(?:value|Value)\\?"\s*:\s*\\?"(?<secret>(?:[^"\\\n]|\\[^"])+)\\?"`,
    ),
    check: (match, secret) => secret !== undefined && isSecretName(pairName(match)) && !isPlaceholder(secret),
    gate: ['value"', 'Value"', 'value\\"', 'Value\\"'],
  },
  {
    name: 'config_secret',
    pattern: re(
      String.raw`\\?"(?:value|Value)\\?"\s*:\s*\\?"(?<secret>(?:[^"\\\n]|\\[^"])+)\\?"\s*,\s*\\?"(?:name|key|Name|Key)\\?"\s*:\s*\\?"[^"\\\n]{1,100}\\?"`,
    ),
    check: (match, secret) => secret !== undefined && isSecretName(pairName(match)) && !isPlaceholder(secret),
    gate: ['value"', 'Value"', 'value\\"', 'Value\\"'],
  },
  {
    name: 'config_secret',
    pattern: re(String.raw`\bname:[ \t]*["']?[\w.-]{1,100}["']?[ \t]*(?:\r?\n|\\n)[ \t]*value:[ \t]*(?:\\?["'])?(?<secret>[^"'\r\n\\]+)`),
    check: (match, secret) => secret !== undefined && isSecretName(pairName(match)) && !isPlaceholder(secret.trim()),
    gate: ['value:'],
  },
  // `INSERT INTO users (email, password) VALUES ('…', '…')`: the values under a secret's column
  // name (the first row of values; a value that is a call, `crypt('…')`, is not read).
  {
    name: 'sql_password',
    pattern: re(
      String.raw`\bINSERT\s+INTO\s+[^\s(]{1,200}\s*\([^()]{1,1000}\)\s*VALUES\s*\((?:[^()'"]|'(?:[^'\n]|'')*'|"[^"\n]*"|\([^()'"]*\)){1,5000}\)`,
      'gi',
    ),
    gate: ['insert'],
    rewrite: insertValues,
  },
  // Redis: `requirepass` / `masterauth` in redis.conf or `CONFIG SET`, and `AUTH [user] <password>` as a line.
  {
    name: 'config_secret',
    pattern: re(String.raw`${AT}(?:requirepass|masterauth)\s+${CLI_VALUE}`, 'gi'),
    check: notPlaceholder,
    gate: ['requirepass', 'masterauth', 'REQUIREPASS', 'MASTERAUTH'],
  },
  {
    name: 'config_secret',
    pattern: re(String.raw`${LINE_START}[ \t]*AUTH\s+(?:[^\s'"\\]+\s+)?(?<secret>[^\s'"\\]+)${LINE_END}`),
    check: notPlaceholder,
    gate: ['AUTH '],
  },
  // A .pgpass line: `host:port:database:user:password` (also quoted in a message: after a space).
  {
    name: 'config_secret',
    pattern: re(String.raw`(?<=^|[\s"]|\\n)(?=[^\s:]*[A-Za-z*])[^\s:#"\\]+:(?:5432|5433|6432|\*):[^\s:"\\]+:(?=[^\s:]*[A-Za-z*])[^\s:"\\]+:(?<secret>[^\s"\\]+)`),
    check: notPlaceholder,
    // Postgres' usual ports and the wildcard: a one-character gate (`:`) would slow every string's pre-check.
    gate: [':5432:', ':5433:', ':6432:', ':*:'],
  },
  // Password hashes (htpasswd, /etc/shadow, a users table): crackable offline, so kept out like the password.
  {
    name: 'password_hash',
    pattern: re(
      String.raw`\$(?:(?:apr1|1|5|6)\$[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{20,}|2[abxy]\$\d\d\$[./A-Za-z0-9]{53}|argon2(?:id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]{20,}|y\$[./A-Za-z0-9]+\$[./A-Za-z0-9]+\$[./A-Za-z0-9]{20,})`,
    ),
    gate: ['$apr1$', '$1$', '$5$', '$6$', '$2a$', '$2b$', '$2x$', '$2y$', '$argon2', '$y$'],
  },
];

/** A SQL INSERT with the quoted values under its secret-named columns replaced by `marker`. */
function insertValues(match: string, marker: string): string {
  const head = /\(([^()]*)\)\s*VALUES\s*\(/i.exec(match);
  if (!head) return match;
  const columns = (head[1] as string).split(',').map((c) => c.trim().replace(/^[`"[]|[`"\]]$/g, ''));
  const secret = new Set(columns.flatMap((c, i) => (isSecretName(c) ? [i] : [])));
  if (secret.size === 0) return match;
  // The values' top-level items, by their offsets in the match.
  const start = head.index + head[0].length;
  const items: [number, number][] = [];
  let from = start;
  let depth = 0;
  let quote: string | null = null;
  for (let i = start; i < match.length; i++) {
    const c = match[i] as string;
    if (quote) {
      if (c === quote) quote = match[i + 1] === quote ? (i++, quote) : null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '(') depth++;
    else if (c === ')' && depth > 0) depth--;
    else if ((c === ',' || c === ')') && depth === 0) {
      items.push([from, i]);
      from = i + 1;
      if (c === ')') break;
    }
  }
  let out = match;
  for (let k = items.length - 1; k >= 0; k--) {
    if (!secret.has(k)) continue;
    const [a, b] = items[k] as [number, number];
    const v = /^(\s*[NnEe]?')((?:[^']|'')*)('\s*)$/.exec(match.slice(a, b));
    if (!v || !v[2] || isPlaceholder(v[2])) continue;
    out = out.slice(0, a) + (v[1] as string) + marker + (v[3] as string) + out.slice(b);
  }
  return out;
}

/** The name of a match of a name and its value apart (`"name": "…"`, `name: …`). */
function pairName(match: string): string {
  return /\b(?:name|key)\\?["']?\s*:\s*\\?["']?([^"'\\\r\n,]+)/i.exec(match)?.[1] ?? '';
}
