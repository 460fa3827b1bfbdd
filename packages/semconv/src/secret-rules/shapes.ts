/**
 * Secret shapes: secrets found by their form anywhere in a string, whatever name they sit
 * under. Each rule has a name (the collector writes `[REDACTED:<name>]`), a global regex and
 * an optional second look at the match. Order matters: a rule sees what earlier ones left.
 */
import { basicCredential, iban, luhn } from './checks.ts';
import { isPlaceholder, isSecretName } from './names.ts';

export interface ShapeRule {
  name: string;
  /** Global regex; a named group `secret` limits the replacement to that part of the match. */
  pattern: RegExp;
  /** A second look at a match (e.g. the Luhn check of a card number): false keeps it. */
  check?: (match: string, secret: string | undefined) => boolean;
  /**
   * Substrings one of which every match contains: the "could anything match" pre-check
   * (index.ts) tries the rule alone, only on a string holding one, instead of adding it to the
   * alternation every string is scanned with (rules that begin with a lookbehind or a common
   * character slow that scan down for every string).
   */
  gate?: readonly string[];
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
/** A quoted value after a keyword: the quote is consumed, the group `secret` is what it encloses. */
const QUOTED = String.raw`\\?['"](?<secret>(?<=')[^'\n]+(?=')|(?<=")[^"\n\\]+(?=\\?"))`;

/** Vendor token shapes, recognisable by their prefix and length alone. */
const VENDOR_TOKENS = [
  'sk-(?:ant-(?:api|admin|sid)\\d\\d-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}',
  'gh[pousr]_[A-Za-z0-9]{30,}',
  'github_pat_[A-Za-z0-9_]{40,}',
  'gl(?:pat|dt|rt|ptt|ft|cbt|oas)-[A-Za-z0-9_-]{20,}',
  'GR1348941[A-Za-z0-9_-]{20,}',
  'xox[abposre]-[A-Za-z0-9-]{10,}',
  'xapp-\\d-[A-Za-z0-9-]{20,}',
  '(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}',
  'whsec_[A-Za-z0-9+/=]{24,}',
  'AIza[0-9A-Za-z_-]{35}',
  'GOCSPX-[A-Za-z0-9_-]{20,}',
  'ya29\\.[A-Za-z0-9_-]{20,}',
  'hf_[A-Za-z0-9]{30,}',
  'gsk_[A-Za-z0-9]{40,}',
  'r8_[A-Za-z0-9]{30,}',
  'pplx-[A-Za-z0-9]{40,}',
  'xai-[A-Za-z0-9]{60,}',
  'npm_[A-Za-z0-9]{36}',
  'pypi-AgE[A-Za-z0-9_-]{50,}',
  'SG\\.[A-Za-z0-9_-]{16,}\\.[A-Za-z0-9_-]{16,}',
  'SK[0-9a-f]{32}',
  'key-[0-9a-f]{32}',
  'shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}',
  'lin_api_[A-Za-z0-9]{40}',
  'ntn_[A-Za-z0-9]{40,}',
  'PMAK-[a-f0-9]{24}-[a-f0-9]{34}',
  'glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}',
  'glc_[A-Za-z0-9+/]{32,}={0,2}',
  'NRAK-[A-Z0-9]{27}',
  'sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}',
  'sk\\.eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}',
  'AGE-SECRET-KEY-1[0-9A-Z]{58}',
  'do[por]_v1_[a-f0-9]{64}',
  'hv[sb]\\.[A-Za-z0-9_-]{24,}',
  '[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{60,}',
  'pul-[a-f0-9]{40}',
  'dp\\.(?:st|ct|sa|scim|audit)\\.[A-Za-z0-9_.-]{40,}',
  'fo1_[A-Za-z0-9_-]{40,}',
  'tskey-[a-z]+-[A-Za-z0-9]{8,}-[A-Za-z0-9]{20,}',
  'sbp_[a-f0-9]{40}',
  'dapi[a-f0-9]{32}',
  'dckr_pat_[A-Za-z0-9_-]{27,}',
  'gt_[A-Za-z0-9_-]{30,}',
  // Discord bot token and Azure AD client secret: three dotted parts, and `~` after `Q`.
  '[MN][A-Za-z0-9]{23,25}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,38}',
  '[A-Za-z0-9_~.]{3}\\dQ~[A-Za-z0-9_~.-]{31,34}',
];

/** The value after a password keyword in a log line or SQL is a secret unless it is a placeholder. */
const notPlaceholder = (_: string, secret: string | undefined) => secret === undefined || !isPlaceholder(secret);

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

export const SHAPE_RULES: readonly ShapeRule[] = [
  {
    name: 'private_key',
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?=")|$)|PuTTY-User-Key-File-\d:[\s\S]*?(?:Private-MAC: [0-9a-f]+|(?=")|$)/g,
    gate: ['-----BEGIN ', 'PuTTY-User-Key-File-'],
  },
  // Before `Token <value>` (below), which would take the digits before the colon and leave the rest.
  { name: 'telegram_bot_token', pattern: re(String.raw`${AT}\d{8,10}:AA[A-Za-z0-9_-]{33}`), gate: [':AA'] },
  { name: 'jwt', pattern: re(String.raw`${AT}eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}`), gate: ['eyJ'] },
  // Access key ids (AKIA, ASIA temporary) and the other IAM unique-id prefixes.
  {
    name: 'aws_access_key_id',
    pattern: re(String.raw`${AT}(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|A3T[A-Z0-9])[A-Z0-9]{16}\b`),
    gate: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'AGPA', 'AIDA', 'AROA', 'ANPA', 'ANVA', 'AIPA', 'A3T'],
  },
  { name: 'api_key', pattern: re(`${AT_ALNUM}(?:${VENDOR_TOKENS.join('|')})`) },
  {
    name: 'webhook_url',
    pattern: /hooks\.slack\.com\/services\/(?<secret>[A-Za-z0-9/]{20,})|discord(?:app)?\.com\/api\/webhooks\/[0-9]+\/[A-Za-z0-9_-]{20,}/g,
    gate: ['hooks.slack.com', 'discord'],
  },
  // After the vendor shapes, so that `token ghp_…` names the key it is. A credential after the
  // scheme has a digit: "Bearer bonds", "Token usage" are English.
  {
    name: 'bearer_token',
    pattern: re(String.raw`${AT}(?:Bearer|bearer|Token)\s+(?<secret>(?=[A-Za-z0-9\-._~+/]*\d)[A-Za-z0-9\-._~+/]{8,}=*)`),
    gate: ['Bearer', 'bearer', 'Token'],
  },
  { name: 'basic_auth', pattern: re(String.raw`${AT}Basic\s+(?<secret>[A-Za-z0-9+/]{8,}={0,2})`), check: basicCredential, gate: ['Basic'] },
  { name: 'url_password', pattern: re(String.raw`${AT}[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s:/@"']*:(?<secret>[^\s@/"']+)@`), gate: ['://'] },
  // A header whose whole value is a credential, up to the end of the line (or of a JSON string).
  {
    name: 'credential_header',
    pattern: re(
      String.raw`${AT}(?:(?:set-)?cookie\s*:\s*|(?:proxy-)?authorization\s*:\s*(?!(?:\w+\s+)?\[REDACTED)(?:(?:Bearer|Basic|Token|Digest|Bot|Negotiate|ApiKey)\s+)?)(?!\[REDACTED)(?<secret>[^\s"\\][^\r\n"\\]*)`,
      'gi',
    ),
  },
  {
    name: 'card_number',
    pattern: re(
      String.raw`${AT_NUMBER}(?:4\d{3}|5[1-5]\d{2}|2[2-7]\d{2}|3[47]\d{2}|3[068]\d{2}|35\d{2}|6(?:011|5\d{2}|4[4-9]\d|2\d{2}))(?:[ -]?\d){9,15}(?!\w|\.\d)`,
    ),
    check: luhn,
  },
  // Printed in groups of four (the last one shorter) or written compact; the country's length
  // and the mod-97 check keep order numbers and product codes of the same form.
  {
    name: 'iban',
    pattern: re(String.raw`${AT_ALNUM}[A-Z]{2}\d{2}(?:(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,3})?|[A-Z0-9]{11,30})(?![A-Za-z0-9])`),
    check: iban,
  },
  // A quoted password after its keyword: log lines (`login failed … with password '…'`,
  // `password is "…"`) and SQL (`ALTER ROLE … PASSWORD '…'`, `CREATE USER … WITH ENCRYPTED
  // PASSWORD '…'`, `CREATE LOGIN … WITH PASSWORD = '…'`).
  {
    name: 'quoted_password',
    pattern: re(String.raw`${AT_ALNUM}(?:pass(?:word|wd|phrase|code)|pwd)\s+(?:(?:is|was|of|set\s+to|changed\s+to|reset\s+to)\s+|=\s*)?${QUOTED}`, 'gi'),
    check: notPlaceholder,
  },
  // SQL that sets a password without the word before its value: MySQL/Oracle `IDENTIFIED BY`
  // (quoted, or bare after CREATE/ALTER USER as Oracle allows), `SET PASSWORD … = '…'`,
  // MySQL's old `PASSWORD('…')`.
  {
    name: 'sql_password',
    pattern: re(
      String.raw`\b(?:IDENTIFIED(?:\s+WITH\s+['"${'`'}]?\w+['"${'`'}]?)?\s+BY(?:\s+PASSWORD)?\s*(?:\\?['"]|(?<=\b(?:CREATE|ALTER)\s+(?:USER|ROLE|LOGIN)\b[^;\n]{1,160}))|SET\s+PASSWORD(?:\s+FOR\s+[^=;\n]{1,80}?)?\s*=\s*(?:PASSWORD\s*\(\s*)?\\?['"]|PASSWORD\s*\(\s*\\?['"])` +
        String.raw`(?<secret>(?<=')[^'\n]+(?=')|(?<=")[^"\n\\]+(?=\\?")|(?<=\s)[^\s'"();,\\]+)`,
      'gi',
    ),
    check: notPlaceholder,
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
  // .netrc (curl, git, ftp): `machine <host> login <user> password <v>`.
  {
    name: 'netrc_password',
    pattern: re(String.raw`${AT}machine\s+\S+(?:\s+login\s+\S+)?\s+password\s+(?<secret>${BARE}+)`),
    check: notPlaceholder,
    gate: ['machine'],
  },
];

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
