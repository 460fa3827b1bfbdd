/**
 * Secret shapes: secrets found by their form anywhere in a string, whatever name they sit
 * under. Each rule has a name (the collector writes `[REDACTED:<name>]`), a global regex and
 * an optional second look at the match. Order matters: a rule sees what earlier ones left.
 */
import { basicCredential, iban, luhn } from './checks.ts';
import { isPlaceholder, isSecretName } from './names.ts';
import { GATED_VENDOR_TOKENS, VENDOR_TOKENS } from './vendor-tokens.ts';

export interface ShapeRule {
  name: string;
  /** Global regex; a named group `secret` limits the replacement to that part of the match. */
  pattern: RegExp;
  /** A second look at a match (e.g. the Luhn check of a card number): false keeps it. */
  check?: (match: string, secret: string | undefined) => boolean;
  /**
   * Substrings one of which every match contains, in any case (a rule with `when`: which every string
   * it is tried on contains, there or in the match): the "could anything match" pre-check
   * (index.ts) tries the rule alone, only on a string holding one, instead of adding it to the
   * alternation every string is scanned with (rules that begin with a lookbehind or a common
   * character slow that scan down for every string).
   */
  gate?: readonly string[];
  /**
   * What a match becomes, when neither the whole match nor one group is the secret (a SQL
   * INSERT's value under a password column): the match with its secret parts replaced by `marker`.
   */
  rewrite?: (match: string, marker: string) => string;
  /**
   * A condition on the whole string, looked at once before the rule is tried (a Secret's data
   * block is one only in a manifest of `kind: Secret`): false, and the rule makes no pass.
   */
  when?: (s: string) => boolean;
}

/**
 * Where a shape may start: not inside a word, or right after a JSON escape (`\n`, `\t`, ...):
 * in the raw text `\nAKIA…` both `n` and `A` are word characters.
 */
const AT = String.raw`(?:\b|(?<=\\[nrtbf]))`;
/** The same, also after `_` (`key_ghp_…`), as vendor prefixes start mid-identifier. */
const AT_ALNUM = String.raw`(?:(?<![A-Za-z0-9])|(?<=\\[nrtbf]))`;
/** Where a card number may start: not after a word character, a dot or a dash (`v1.4111…`). */
const AT_NUMBER = String.raw`(?:(?<![\w.-])|(?<=\\[nrtbf]))`;
/** Where a command-line option may start: not inside a word or another option (`--no-pass…`). */
const AT_OPTION = String.raw`(?:(?<![\w-])|(?<=\\[nrtbf]))`;
/**
 * The start conditions above, each with its plain form (the same without "right after a JSON
 * escape"): the "could anything match" pre-check (index.ts) uses the plain forms, which scan
 * about twice as fast, and reads escapes as spaces instead.
 */
export const START_CONDITIONS: readonly (readonly [string, string])[] = [
  [AT, String.raw`\b`],
  [AT_ALNUM, '(?<![A-Za-z0-9])'],
  [AT_NUMBER, String.raw`(?<![\w.-])`],
];
/** The start of a line: of the string, after a newline, or in raw JSON text after a quote or a `\n` escape. */
const LINE_START = String.raw`(?<=^|[\n"]|\\n)`;
/** The end of a line, the same way. */
const LINE_END = String.raw`(?=[ \t]*(?:\r?\n|$|\\?"|\\[rn]))`;
/**
 * A quoted value after a keyword: the quote is consumed, the group `secret` is what it encloses.
 * SQL's forms too: `N'…'` and `E'…'`, a quote doubled inside (`'it''s'`), Postgres' `$$…$$`.
 */
const QUOTED = String.raw`(?:(?:[NnEe](?='))?\\?['"]|\$\w{0,20}\$)(?<secret>(?<=')(?:[^'\n]|'')+(?=')|(?<=")[^"\n\\]+(?=\\?")|(?<=\$)[^$\n]+(?=\$))`;

/** The value after a password keyword in a log line or SQL is a secret unless it is a placeholder. */
const notPlaceholder = (_: string, secret: string | undefined) => secret === undefined || !isPlaceholder(secret);

/**
 * A value in prose that reads as generated (a password, a token), not as a word, a date, an id
 * of a resource or an address: `min` characters or more, letters and digits both, and not a
 * placeholder, a time stamp, an ARN or a URL.
 */
function looksGenerated(v: string, min: number): boolean {
  return (
    v.length >= min &&
    /[A-Za-z]/.test(v) &&
    /\d/.test(v) &&
    !isPlaceholder(v) &&
    !/^\d{4}-\d\d-\d\d/.test(v) &&
    !/^(?:arn|https?|s3|gs|file|urn):/i.test(v)
  );
}

const re = (source: string, flags = 'g') => new RegExp(source, flags);

/**
 * A password given on a command line, what an agent's shell tool runs: the value after an
 * option (quoted, or up to the next space). A value starting with `-` is the next option.
 */
/** A character of an unquoted value: not a space, a quote, or a JSON escape (`\n`, `\"`) in raw JSON text. */
const BARE = String.raw`(?:[^\s'"\\]|\\(?![nrtbf"\\]))`;
/** Up to 200 characters of the same command: a `\`-continued line goes on, `|`, `;`, `&` end it. */
const SAME_COMMAND = String.raw`(?:\\\r?\n|[^\n|;&]){0,200}?`;
const CLI_VALUE = String.raw`(?:\\?['"])?(?<secret>(?<=')[^'\n]+(?=')|(?<=")[^"\n\\]+(?=\\?")|(?<!['"])(?!-)${BARE}+)`;

/** A JSON Web Key (`"kty": …`), whose private members are secrets. */
const JWK = /\\*"kty\\*"\s*:/;
/** A Kubernetes Secret's manifest, as YAML or JSON: its `kind`. */
const K8S_SECRET = /\bkind:[ \t]*["']?Secret\b|"kind"\s*:\s*"Secret"/;

export const SHAPE_RULES: readonly ShapeRule[] = [
  {
    name: 'private_key',
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?=")|$)|PuTTY-User-Key-File-\d:[\s\S]*?(?:Private-MAC: [0-9a-f]+|(?=")|$)/g,
    gate: ['-----BEGIN ', 'PuTTY-User-Key-File-'],
  },
  // Before `Token <value>` (below), which would take the digits before the colon and leave the rest.
  // Also in the Bot API's URLs (`/bot<token>/sendMessage`).
  { name: 'telegram_bot_token', pattern: re(String.raw`(?:${AT}|(?<=bot))\d{8,10}:AA[A-Za-z0-9_-]{33}`), gate: [':AA'] },
  // Signed (three parts), unsigned (`alg: none`: the third part empty) and encrypted (JWE: five parts, the key may be empty).
  {
    name: 'jwt',
    pattern: re(
      String.raw`${AT}eyJ[A-Za-z0-9_-]{5,}\.(?:[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}|eyJ[A-Za-z0-9_-]{5,}\.(?:[A-Za-z0-9_-]{5,})?|[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,})`,
    ),
    gate: ['eyJ'],
  },
  // Access key ids (AKIA, ASIA temporary) and the other IAM unique-id prefixes.
  // The secret beside its key id, as a credentials CSV or a pasted pair has it (`AKIA…,<40>`, `AKIA… <40>`):
  // before the key id's own rule, which would take the id it is found by.
  {
    name: 'aws_secret_access_key',
    pattern: re(String.raw`${AT}(?:AKIA|ASIA)[A-Z0-9]{16}(?:[ \t]*[,;|\t][ \t]*|[ \t]+)(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`),
    gate: ['AKIA', 'ASIA'],
  },
  {
    name: 'aws_access_key_id',
    pattern: re(String.raw`${AT}(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|A3T[A-Z0-9])[A-Z0-9]{16}\b`),
    gate: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'AGPA', 'AIDA', 'AROA', 'ANPA', 'ANVA', 'AIPA', 'A3T'],
  },
  // A generated token never repeats one character a dozen times: `ghp_xxxx…` is a placeholder.
  { name: 'api_key', pattern: re(`${AT_ALNUM}(?:${VENDOR_TOKENS.join('|')})`), check: (match) => !/(.)\1{11}/.test(match) },
  {
    name: 'api_key',
    pattern: re(`${AT_ALNUM}(?:${GATED_VENDOR_TOKENS.map((t) => t.pattern).join('|')})`),
    check: (match) => !/(.)\1{11}/.test(match),
    gate: GATED_VENDOR_TOKENS.map((t) => t.gate),
  },
  // An AWS secret access key after its name and a space, as `aws configure list` or a table prints it
  // (after `=` or `:` the name rule takes it).
  {
    name: 'aws_secret_access_key',
    pattern: re(String.raw`\b(?:aws_?)?secret_?access_?key["']?\s+\\?["']?(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])`, 'gi'),
    gate: ['ecret', 'ECRET'],
  },
  {
    name: 'webhook_url',
    pattern: /hooks\.slack\.com\/services\/(?<secret>[A-Za-z0-9/]{20,})|discord(?:app)?\.com\/api\/webhooks\/[0-9]+\/[A-Za-z0-9_-]{20,}/g,
    gate: ['hooks.slack.com', 'discord'],
  },
  // Microsoft Teams' incoming webhooks and Zapier's catch hooks: the path is the credential.
  {
    name: 'webhook_url',
    pattern: /(?:webhook\.office\.com\/webhookb2\/|hooks\.zapier\.com\/hooks\/catch\/)(?<secret>[^\s"'<>\\]{8,})/g,
    gate: ['webhook.office.com', 'hooks.zapier.com'],
  },
  // After the vendor shapes, so that `token ghp_…` names the key it is. A credential after the
  // scheme has a digit: "Bearer bonds", "Token usage" are English.
  {
    name: 'bearer_token',
    pattern: re(String.raw`${AT}(?:Bearer|bearer|Token)\s+(?<secret>(?=[A-Za-z0-9\-._~+/]*\d)[A-Za-z0-9\-._~+/]{8,}=*)`),
    gate: ['Bearer', 'bearer', 'Token'],
  },
  { name: 'basic_auth', pattern: re(String.raw`${AT}Basic\s+(?<secret>[A-Za-z0-9+/]{8,}={0,2})`), check: basicCredential, gate: ['Basic'] },
  { name: 'url_password', pattern: re(String.raw`${AT}[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s:/@"']*:(?<secret>[^\s@/"']+)@`), check: notPlaceholder, gate: ['://'] },
  // A header whose whole value is a credential, up to the end of the line (or of a JSON string),
  // its quoted parameters included (`Token token="…"`, Digest's `response="…"`).
  {
    name: 'credential_header',
    pattern: re(
      String.raw`${AT}(?:(?:set-)?cookie\s*:\s*|(?:proxy-)?authorization\s*:\s*(?!(?:\w+\s+)?\[REDACTED)(?:(?:Bearer|Basic|Token|Digest|Bot|Negotiate|ApiKey)\s+)?)(?!\[REDACTED)(?<secret>[^\s"\\](?:[^\r\n"\\]|(?<==)\\?"[^"\r\n\\]*\\?")*)`,
      'gi',
    ),
    // Code that builds the header (a template literal) and placeholders (`Bearer <token>`, `$TOKEN`) hold none.
    check: (_, secret) => secret !== undefined && !secret.startsWith('`') && !isPlaceholder(secret.replace(/^(?:Bearer|Basic|Token)\s+/i, '').trim()),
  },
  {
    name: 'card_number',
    pattern: re(
      String.raw`${AT_NUMBER}(?:4\d{3}|5[0-8]\d{2}|2[2-7]\d{2}|3[47]\d{2}|3[068]\d{2}|35\d{2}|6\d{3})(?:(?:[ -]?\d){9,15}|(?:\.\d{4}){3}(?:\.\d{1,3})?)(?!\w|\.\d)`,
    ),
    check: luhn,
  },
  // A card's magnetic track data (`%B<number>^NAME^…`): its own rule, as a second start condition
  // in the card rule doubled the cost of the alternation every string is scanned with.
  {
    name: 'card_number',
    pattern: re(
      String.raw`%B(?<secret>(?:4\d{3}|5[0-8]\d{2}|2[2-7]\d{2}|3[47]\d{2}|3[068]\d{2}|35\d{2}|6\d{3})(?:(?:[ -]?\d){9,15}|(?:\.\d{4}){3}(?:\.\d{1,3})?))(?!\w|\.\d)`,
    ),
    check: (_, secret) => secret !== undefined && luhn(secret),
    gate: ['%B'],
  },
  // Printed in groups of four (the last one shorter) or written compact; the country's length
  // and the mod-97 check keep order numbers and product codes of the same form.
  {
    name: 'iban',
    pattern: re(String.raw`${AT_ALNUM}[A-Z]{2}\d{2}(?:(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,3})?|(?:-[A-Z0-9]{4}){2,7}(?:-[A-Z0-9]{1,3})?|[A-Z0-9]{11,30})(?![A-Za-z0-9])`),
    check: iban,
  },
  // Any case right after the word IBAN (`iban: de89…`): without the word, a lower-case id of the
  // right length passes mod 97 once in 97.
  {
    name: 'iban',
    pattern: re(String.raw`\biban\b["']?\s*[:=]?\s*["']?(?<secret>[A-Za-z]{2}\d{2}(?:[ -]?[A-Za-z0-9]{1,4}){3,9})(?![A-Za-z0-9])`, 'gi'),
    check: (_, secret) => secret !== undefined && iban(secret),
    gate: ['iban', 'IBAN', 'Iban'],
  },
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
  // Command lines, what an agent's shell tool runs: `--password <v>` / `--db-pass=<v>` (not
  // `--password-stdin` or `--password-file`), keytool's `-storepass <v>`, `sshpass -p <v>`,
  // `az login … -p <v>`, `redis-cli … -a <v>`, the MySQL clients' attached `-p<v>` (`-p` alone prompts).
  {
    name: 'cli_password',
    pattern: re(String.raw`${AT_OPTION}(?:--(?:[A-Za-z]+-)*pass(?:word|wd|phrase)?|-(?:src|dest)?(?:store|key)pass)(?:\s+|=)${CLI_VALUE}`),
    check: notPlaceholder,
    gate: ['pass'],
  },
  // `--token <v>`, `--api-key=<v>`, `--client-secret <v>` (not `--token-file`, not a number: `--max-token 100`).
  {
    name: 'cli_password',
    pattern: re(String.raw`${AT_OPTION}--(?:[A-Za-z]+-)*(?:token|api-?key|secret|secret-key|access-key|auth|account-key|storage-key|sas-token)(?:\s+|=)${CLI_VALUE}`),
    check: (_, secret) => secret !== undefined && !isPlaceholder(secret) && !/^\d+$/.test(secret),
    gate: ['--'],
  },
  {
    name: 'cli_password',
    pattern: re(
      String.raw`${AT}(?:(?:(?:docker|podman|nerdctl|buildah|skopeo|oras)\s+login|helm\s+registry\s+login|mongo(?:sh|dump|restore|import|export)?)\b${SAME_COMMAND}\s-p|sqlcmd\b${SAME_COMMAND}\s-P|ldap(?:search|add|modify|delete|passwd|whoami|compare|modrdn)\b${SAME_COMMAND}\s-w|7za?\b${SAME_COMMAND}\s-p)(?:\s+|=)?${CLI_VALUE}`,
    ),
    check: notPlaceholder,
    gate: ['docker', 'podman', 'nerdctl', 'buildah', 'skopeo', 'oras', 'helm', 'mongo', 'sqlcmd', 'ldap', '7z'],
  },
  {
    name: 'cli_password',
    pattern: re(String.raw`${AT}htpasswd\s+(?:-\w+\s+)*-\w*b\w*\s+(?:-\w+\s+)*\S+\s+\S+\s+${CLI_VALUE}`),
    check: notPlaceholder,
    gate: ['htpasswd'],
  },
  {
    name: 'cli_password',
    pattern: re(String.raw`${AT}(?:echo|printf)\s+(?:-\w+\s+)*${CLI_VALUE}\s*\|(?=[^\n|;&]{0,200}--password-stdin)`),
    check: notPlaceholder,
    gate: ['echo', 'printf'],
  },
  {
    name: 'cli_password',
    pattern: re(
      String.raw`${AT}(?:(?:sshpass\s+-p|az\s+login\b${SAME_COMMAND}\s-p|redis-cli\b${SAME_COMMAND}\s-a)(?:\s+|=)` +
        String.raw`|(?:mysql(?:dump|admin|import|show|check|binlog|sh)?|mariadb(?:-dump|-admin)?)\b${SAME_COMMAND}\s-p)${CLI_VALUE}`,
    ),
    check: notPlaceholder,
    gate: ['sshpass', 'login', 'redis-cli', 'mysql', 'mariadb'],
  },
  // `curl -u user:<v>` / `--user user:<v>` (without the colon, curl asks for it).
  {
    name: 'cli_password',
    pattern: re(String.raw`${AT}curl\b${SAME_COMMAND}\s(?:-u|--user)\s*(?:\\?['"])?[^\s:'"\\]+:(?<secret>${BARE}+)`),
    check: notPlaceholder,
    gate: ['curl'],
  },
  // Windows: `net user <name> <v> /add` (`*` asks for it).
  {
    name: 'cli_password',
    pattern: re(String.raw`${AT}(?:net|NET)\s+(?:user|USER)\s+\S+\s+(?<secret>(?![*/])${BARE}+)\s+\/(?:add|ADD|domain|DOMAIN)\b`),
    check: notPlaceholder,
    gate: ['/add', '/ADD', '/domain', '/DOMAIN'],
  },
  // Config setters: `aws configure set aws_secret_access_key <v>`, `git config --global github.token <v>`,
  // `npm config set //registry/:_authToken <v>`, `yarn config set npmAuthToken <v>`.
  {
    name: 'config_secret',
    pattern: re(
      String.raw`${AT}config(?:ure)?\s+(?:set\s+|--(?:global|local|system|user|project)\s+)+(?:--\w+\s+)*(?<name>[^\s=]{1,200})\s+${CLI_VALUE}`,
    ),
    check: (match, secret) => secret !== undefined && isSecretName(setterName(match)) && !isPlaceholder(secret),
    gate: ['config'],
  },
  // Config files a tool reads or writes. XML elements named as a secret is (Maven's
  // `<password>…</password>`, `<apiKey>`, `<ns:clientSecret>`): the name rules only see `name=value`.
  {
    name: 'config_secret',
    pattern: re(String.raw`<(?<tag>[A-Za-z_][\w.:-]{0,80})(?:\s[^<>]{0,300})?>(?<secret>[^<>]{1,2000})<\/\k<tag>>`),
    check: (match, secret) => secret !== undefined && isSecretName(xmlName(match)) && !isPlaceholder(secret.trim()),
    gate: ['</'],
  },
  // .NET appSettings and the like: `<add key="ApiKey" value="…"/>`, where the key attribute names the secret.
  {
    name: 'config_secret',
    pattern: re(String.raw`\bkey\s*=\s*"(?<name>[^"<>]{1,100})"\s+value\s*=\s*"(?<secret>[^"]{1,2000})"`),
    check: (match, secret) => secret !== undefined && isSecretName(attributeName(match)) && !isPlaceholder(secret),
    gate: ['key'],
  },
  // A secret name and its value as a call's first two arguments: PHP's `define('DB_PASSWORD', '…')`
  // (wp-config.php), `putenv`/`setenv`, `os.environ.setdefault("API_TOKEN", "…")`, a default in
  // `os.getenv("DB_PASSWORD", "…")`, `config.set('secret', '…')`. Only in a call: a list of field
  // names (`"required": ["password", "email"]`) names no value.
  {
    name: 'config_secret',
    pattern: re(
      String.raw`\b(?:define|putenv|setenv|setdefault|set|getenv|get|fetch|env)\s*\(\s*\\?(?<q>['"])(?<name>[\w.-]{1,100})\\?\k<q>\s*,\s*\\?(?<r>['"])(?<secret>(?:(?!\\?\k<r>)[^\n])+)\\?\k<r>`,
      'gi',
    ),
    check: (match, secret) => secret !== undefined && isSecretName(callName(match)) && !isPlaceholder(secret),
    // `set`, `get` and `env` are in `setenv`, `setdefault`, `getenv` and `putenv`.
    gate: ['define', 'set', 'get', 'fetch', 'env'],
  },
  // A Kubernetes Secret's `data:` and `stringData:` (YAML, or JSON as `kubectl get -o json` prints
  // it): every value there is a secret, whatever its key (`db-url: cG9zdGdyZXM6Ly8…`).
  {
    name: 'config_secret',
    pattern: re(
      String.raw`(?<=^|\n)(?:data|stringData):[ \t]*\r?\n(?:[ \t]+\S[^\n]*(?:\n|$))+|"(?:data|stringData)"\s*:\s*\{[^{}]*\}`,
    ),
    gate: ['data'],
    when: (s) => K8S_SECRET.test(s),
    rewrite: secretData,
  },
  // Command lines that take a credential without a password option: a login with a token as its
  // argument (`cargo login <t>`, `wandb login <t>`, `ngrok config add-authtoken <t>`, `snyk auth <t>`),
  // `zip -P`, `ssh-keygen -N`, OpenSSL's `-k`, `-pass pass:` and `passwd`, `smbclient -U user%pw`,
  // `net use … /user:X pw`, FreeRDP's `/p:`, `lftp -u user,pw`, PowerShell's `ConvertTo-SecureString`,
  // and a password piped to `sudo -S`, to `chpasswd`, or read from `<(echo …)`.
  {
    name: 'cli_password',
    pattern: re(String.raw`${AT}(?:(?:cargo|wandb|npm)\s+login|ngrok\s+(?:config\s+)?(?:add-)?authtoken|snyk\s+auth)\s+(?<secret>(?!-)${BARE}{12,})`),
    check: notPlaceholder,
    gate: ['login', 'authtoken', 'snyk'],
  },
  {
    name: 'cli_password',
    pattern: re(
      String.raw`${AT}(?:zip\b${SAME_COMMAND}\s-P\s*|ssh-keygen\b${SAME_COMMAND}\s-N\s+|openssl\b${SAME_COMMAND}(?:\s-k\s+|\s-pass(?:in|out)?\s+pass:|\spasswd(?:\s+-\w+)*\s+)|(?:xfreerdp|wlfreerdp|sdl-freerdp)\b${SAME_COMMAND}\s\/p:)${CLI_VALUE}`,
    ),
    // Not a redirection (`openssl passwd -6 -stdin < pw.txt`).
    check: (_, secret) => secret !== undefined && secret.length >= 4 && !isPlaceholder(secret),
    gate: ['zip', 'ssh-keygen', 'openssl', 'freerdp'],
  },
  {
    name: 'cli_password',
    pattern: re(
      String.raw`${AT}(?:smbclient\b${SAME_COMMAND}\s-U\s*\\?['"]?[^%'"\s]+%|lftp\b${SAME_COMMAND}\s-u\s+\\?['"]?[^,\s'"]+,|net\s+use\b${SAME_COMMAND}\/user:\S+\s+(?![*/]))(?<secret>${BARE}+)`,
      'gi',
    ),
    check: notPlaceholder,
    gate: ['smbclient', 'lftp', 'net use'],
  },
  {
    name: 'cli_password',
    pattern: re(String.raw`ConvertTo-SecureString\s+(?:-String\s+)?\\?(?<q>['"])(?<secret>[^'"\n]+)\\?\k<q>`, 'gi'),
    check: notPlaceholder,
    gate: ['convertto-securestring'],
  },
  {
    name: 'cli_password',
    pattern: re(
      String.raw`${AT}echo\s+(?:-n\s+)?\\?(?<q>['"]?)(?:[^'"\s:|\\[]+:)?(?<secret>[^'"\s|\\[]+)\\?\k<q>\s*\|\s*(?:sudo\s+(?:-\w+\s+)*-S\b|(?:sudo\s+)?chpasswd\b)`,
    ),
    check: notPlaceholder,
    gate: ['echo'],
  },
  {
    name: 'cli_password',
    pattern: re(String.raw`--password-file=<\(\s*echo\s+(?<secret>[^)\s]+)`),
    check: notPlaceholder,
    gate: ['--password-file=<('],
  },
  // Code that passes a credential positionally: a user and a password to a client or a login
  // (`HTTPBasicAuth('u', 'p')`, `auth=("u", "p")`, `getConnection(url, "u", "p")`, `new PDO(dsn, 'u', 'p')`,
  // `new Sequelize('db', 'u', 'p')`, `NetworkCredential("u", "p")`, `SetBasicAuth`, `login("u", "p")`),
  // a signing key (`jwt.encode(payload, "k")`, `jwt.sign(payload, 'k')`), `set_password("…")`,
  // `Fernet(b'…')`, cURL's `CURLOPT_USERPWD, "u:p"`, and a hard-coded fallback after a secret's
  // variable (`process.env.SESSION_SECRET || '…'`).
  {
    name: 'config_secret',
    pattern: re(
      String.raw`\b(?:(?:Sequelize|getConnection|PDO)\s*\(\s*(?:[^()'"\n]{0,200}?,\s*|\\?(?<q0>['"])[^'"\n]{0,300}\\?\k<q0>\s*,\s*)|(?:HTTP(?:Basic|Digest)Auth|BasicAuth|SetBasicAuth|NetworkCredential|PSCredential|login|auth\s*=)\s*\(\s*)\\?(?<q1>['"])[^'"\n]{1,200}\\?\k<q1>\s*,\s*b?\\?(?<q2>['"])(?<secret>[^'"\n\\]{1,200})\\?\k<q2>`,
    ),
    check: notPlaceholder,
    gate: ['auth', 'credential', 'getconnection', 'login', 'pdo', 'sequelize'],
  },
  {
    name: 'config_secret',
    pattern: re(
      String.raw`\b(?:jwt\.(?:encode|sign)\s*\(\s*[^,()\n]{1,100},\s*|set_password\s*\(\s*|Fernet\s*\(\s*|CURLOPT_USERPWD\s*,\s*)b?\\?(?<q>['"])(?<secret>[^'"\n\\]{6,300})\\?\k<q>`,
    ),
    check: notPlaceholder,
    gate: ['jwt.', 'set_password', 'fernet', 'curlopt_userpwd'],
  },
  {
    name: 'config_secret',
    pattern: re(
      String.raw`(?:process\.env\.|os\.environ\.get\(\s*\\?['"]|ENV\[\\?['"]|ENV\.fetch\(\\?['"])(?<name>\w{1,100})(?:\\?['"]\s*[)\]])?\s*(?:\|\||\?\?|\bor\b)\s*\\?(?<q>['"])(?<secret>[^'"\n\\]{4,200})\\?\k<q>`,
    ),
    check: (match, secret) => secret !== undefined && isSecretName(/(?:\.env\.|\(\s*\\?['"]|\[\\?['"])(\w+)/.exec(match)?.[1] ?? '') && !isPlaceholder(secret),
    gate: ['process.env', 'environ', 'env['],
  },
  // An API client built with its key as a literal (`cohere.Client("…")`, `Client(sid, "<token>")`,
  // `algoliasearch(appId, "<key>")`): each argument that reads as generated (24+ letters and digits,
  // both) is replaced; names, URLs and short ids are kept.
  {
    name: 'api_key',
    pattern: re(String.raw`(?:Client|client|search)\s*\([^()\n]{0,400}\)`),
    gate: ['client', 'search'],
    rewrite: (match, marker) =>
      match.replace(/(\\?['"])((?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{24,200})(\1)/g, (_, open: string, __: string, close: string) => `${open}${marker}${close}`),
  },
  // Go's MySQL DSN: `user:password@tcp(host:3306)/db` (no scheme, so not the URL rule's).
  {
    name: 'url_password',
    pattern: re(String.raw`(?<![\w/:])[\w.-]{1,64}:(?<secret>[^\s@/"'()]{1,200})@(?:tcp|unix|udp)\(`),
    check: notPlaceholder,
    gate: ['@tcp(', '@unix(', '@udp('],
  },
  // Terraform: a variable named as a secret is with a default (`variable "db_password" { default = "…" }`).
  {
    name: 'config_secret',
    pattern: re(String.raw`\bvariable\s+\\?"(?<name>[\w-]{1,100})\\?"\s*\{[^{}]{0,500}?\bdefault\s*=\s*\\?"(?<secret>[^"\n\\]+)\\?"`),
    check: (match, secret) => secret !== undefined && isSecretName(/variable\s+\\?"([\w-]+)/.exec(match)?.[1] ?? '') && !isPlaceholder(secret),
    gate: ['variable'],
  },
  // A JSON Web Key's private members (`d`, `p`, `q`, `dp`, `dq`, `qi`, a symmetric key's `k`).
  {
    name: 'private_key',
    pattern: re(String.raw`\\*"(?:d|p|q|dp|dq|qi|k)\\*"\s*:\s*\\*"(?<secret>[A-Za-z0-9_-]{16,})\\*"`),
    when: (s) => JWK.test(s),
    // In the string, not the match: the key's `kty` (its condition above).
    gate: ['kty'],
  },
  // An authenticator's setup key and an app password, spaced in groups of four (`vpam bmrp …`), and
  // recovery codes listed under their heading.
  {
    name: 'config_secret',
    pattern: re(String.raw`\b(?:app\s+password|(?:setup|secret|this)\s+key)\s*:?\s+(?<secret>[a-z2-7]{4}(?:[ \t][a-z2-7]{4}){3,7})\b`, 'gi'),
    gate: ['app password', 'setup key', 'secret key', 'this key'],
  },
  {
    name: 'config_secret',
    pattern: re(String.raw`\b(?:recovery|backup)\s+codes?\s*:?[ \t]*\r?\n(?:[ \t]*[A-Za-z0-9]{4,10}-[A-Za-z0-9]{4,10}[ \t]*(?:\r?\n|$))+`, 'gi'),
    gate: ['recovery code', 'backup code'],
    rewrite: (match, marker) => match.replace(/^([ \t]*)[A-Za-z0-9]{4,10}-[A-Za-z0-9]{4,10}/gm, (_, indent: string) => `${indent}${marker}`),
  },
  // Password hashes of databases and Windows: MySQL's `*<40 hex>`, Postgres' `md5<32 hex>`, a pwdump
  // line's NT hash (usable as it is: pass-the-hash), and a SQL UPDATE of a password column.
  {
    name: 'password_hash',
    pattern: re(String.raw`\bmd5[0-9a-f]{32}\b`),
    gate: ['md5'],
  },
  // Ungated (a one-character gate would slow every string's pre-check): the star first, then what
  // comes before it, so that the scan skips to stars.
  { name: 'password_hash', pattern: re(String.raw`\*(?<![\w*]\*)[0-9A-F]{40}(?![0-9A-Za-z])`) },
  {
    name: 'password_hash',
    pattern: re(String.raw`(?<=^|\n|\\n|["\s])[^:\s"\\]{1,100}:\d{1,10}:[0-9a-fA-F]{32}:(?<secret>[0-9a-fA-F]{32}):::`),
    gate: [':::'],
  },
  {
    name: 'sql_password',
    pattern: re(String.raw`\bUPDATE\b[^;]{1,200}?\bSET\b[^;]{0,400}?\b[\w]*(?:pass|pwd|secret|token)[\w]*\s*=\s*(?:[NnEe](?='))?\\?'(?<secret>(?:[^'\n\\]|'')+)\\?'`, 'gi'),
    check: notPlaceholder,
    gate: ['update'],
  },
  // .netrc (curl, git, ftp): `machine <host> login <user> password <v>`.
  {
    name: 'netrc_password',
    pattern: re(String.raw`${AT}machine\s+\S+(?:\s+login\s+\S+)?\s+password\s+(?<secret>${BARE}+)`),
    check: notPlaceholder,
    gate: ['machine'],
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

/** The element's name, without a namespace prefix, of a match of `<tag …>…</tag>`. */
function xmlName(match: string): string {
  const tag = /^<([^\s>]+)/.exec(match)?.[1] ?? '';
  return tag.slice(tag.lastIndexOf(':') + 1);
}

/** The setting's name (its last `.`, `/` or `:` part) of a config setter's match. */
function setterName(match: string): string {
  const parts = match.split(/\s+/);
  let name = '';
  for (let i = 1; i < parts.length - 1; i++) {
    const p = parts[i] as string;
    if (p === 'set' || p.startsWith('--')) continue;
    name = p;
    break;
  }
  return name.slice(Math.max(name.lastIndexOf('.'), name.lastIndexOf('/'), name.lastIndexOf(':')) + 1);
}

/** The key attribute's value of a match of `key="…" value="…"`. */
function attributeName(match: string): string {
  return /"([^"]*)"/.exec(match)?.[1] ?? '';
}

/** The name in a call's first argument (`define('DB_PASSWORD', …)`). */
function callName(match: string): string {
  return /\(\s*\\?['"]([\w.-]+)/.exec(match)?.[1] ?? '';
}

/**
 * A Secret's data block with each value replaced by `marker`: in YAML each key's value (a block
 * scalar's lines too), in JSON each string value, the keys kept.
 */
function secretData(match: string, marker: string): string {
  if (match.startsWith('"')) return match.replace(/("(?:[^"\\]|\\.)*"\s*:\s*")(?:[^"\\]|\\.)*"/g, (_, head: string) => `${head}${marker}"`);
  const lines = match.split('\n');
  const indent = /^[ \t]+/.exec(lines[1] ?? '')?.[0].length ?? 0;
  return lines
    .map((line, i) => {
      if (i === 0 || !line.trim()) return line;
      const own = /^[ \t]*/.exec(line)?.[0] ?? '';
      if (own.length > indent) return `${own}${marker}`;
      const kv = /^([ \t]+[^:]+:[ \t]*)(\S.*)$/.exec(line);
      if (!kv || /^[|>][-+]?\s*$/.test(kv[2] as string)) return line;
      return `${kv[1]}${marker}${(kv[2] as string).endsWith('\r') ? '\r' : ''}`;
    })
    .join('\n');
}
