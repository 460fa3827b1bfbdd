/**
 * Secrets in prose and statements: a password in a log line or SQL, a token in an error
 * message, names and values apart, SQL INSERT values. (Redis, protocol transcripts, .pgpass lines
 * and password hashes: server-rules.ts.)
 */
import { isPlaceholder, isSecretName } from './names.ts';
import { AT, AT_ALNUM, LINE_START, looksGenerated, notPlaceholder, QUOTED, re, type ShapeRule } from './rule-kit.ts';

/**
 * Password and API key in other languages (French, German, Spanish, Portuguese, Italian, Dutch,
 * Polish, Turkish, Swedish, Danish, Norwegian, Finnish, Czech, Hungarian, Russian, Chinese,
 * Japanese, Korean, Vietnamese, Thai, Hebrew, Arabic); English's `password` only before one of
 * those languages' verbs (`La password dell'account è: …`).
 */
const PASSWORD_WORD_LIST = [
  // Spanish's and German's word for a key (`La clave del wifi es …`, `API-Schlüssel: …`).
  'clave',
  'schlüssel',
  'mot de passe',
  'passwort',
  'kennwort',
  'contraseña',
  'contrasena',
  'senha',
  'wachtwoord',
  'hasło',
  'haslo',
  'şifre',
  'sifre',
  'parola',
  'lösenord',
  'losenord',
  'adgangskode',
  'passord',
  'salasana',
  'heslo',
  'jelszó',
  'jelszo',
  'пароль',
  '密码',
  '密碼',
  'パスワード',
  '비밀번호',
  'mật khẩu',
  'รหัสผ่าน',
  'סיסמה',
  'كلمة المرور',
  'api-schlüssel',
  'api-schluessel',
  'clé api',
  'cle api',
  "clé d'api",
  'clave de api',
  'clave api',
  'chave de api',
  'chave api',
  'api密钥',
  'api 密钥',
  'apiキー',
  'api 키',
  'ключ api',
  'api-ключ',
  'पासवर्ड',
  'kata sandi',
  'kata laluan',
  'κωδικός πρόσβασης',
  'κωδικός',
  'رمز عبور',
  'nenosiri',
  'পাসওয়ার্ড',
  'كلمة السر',
];
const PASSWORD_WORDS = PASSWORD_WORD_LIST.join('|');

/** After the word: a few words, then a colon or a verb, then the value (group `secret`). */
const WORDS_THEN_VALUE = String.raw`(?:[^\n:：=[]{0,40}?)(?:[ \t]*[:：=][ \t]*|[ \t]+(?:lautet|ist|est|es|é|è|is|wynosi|jest|je|to|är|er|on|это|este|là|adalah|ialah|είναι|هي|היא|ay|ni|হল|है)(?![\p{L}\p{N}])[ \t]*[:：]?[ \t]*|[ \t]*(?:是|为|為|は|는|은|คือ)[ \t]*[:：]?[ \t]*|(?<=(?:ş|s)ifresi|パスワード|पासवर्ड|비밀번호)[ \t]+)[«"'“„]?(?<secret>(?:[^\s'"«»“”„,;，。、）)&<>[\]\\]|&(?![\w.-]*=)){6,}(?<![.!?:]))`;
/** A value in prose that reads as a password: letters with a digit or a symbol, not a placeholder or a URL. */
const prosePassword = (_: string, secret: string | undefined) =>
  secret !== undefined && /\p{L}/u.test(secret) && /[\d!#$%&*+@^~_-]/.test(secret) && !isPlaceholder(secret) && !/^(?:https?|file):/i.test(secret);

export const TEXT_RULES: readonly ShapeRule[] = [
  // A quoted password after its keyword: log lines (`login failed … with password '…'`,
  // `password is "…"`) and SQL (`ALTER ROLE … PASSWORD '…'`, `CREATE USER … WITH ENCRYPTED
  // PASSWORD '…'`, `CREATE LOGIN … WITH PASSWORD = '…'`).
  {
    name: 'quoted_password',
    pattern: re(
      String.raw`${AT_ALNUM}(?<!wpa_)(?:pass(?:word|wd|phrase|code)|pwd|(?<=\b(?:with|using)\s+)pass)\s+(?:(?:for\s+(?:the\s+)?(?:user\s+)?(?:\S{1,64}\s+){1,4})?(?:is|was|of|to|set\s+to|changed\s+to|reset\s+to)\s+|=\s*)?${QUOTED}`,
      'gi',
    ),
    check: notPlaceholder,
    gate: ['pass', 'Pass', 'PASS', 'pwd', 'Pwd', 'PWD'],
  },
  // The same unquoted, in a log line's prose (`with password Qz-26`, `password for alice is x7…`,
  // `password for the elastic built-in superuser is : x7…`, `password Qz-30 rejected`): only a value with letters and digits, 6 characters or more, so that
  // `password reset link sent`, `password is required` and `password must change` stay. On one
  // line: a word that ends one (a `.pgpass` comment's `…:password`, a path's `db-password`) is not
  // followed by its value on the next.
  {
    name: 'log_password',
    pattern: re(
      String.raw`${AT_ALNUM}(?:pass(?:word|wd|phrase)|pwd)[ \t]+(?:(?:(?:for|on|in|of|at)[ \t]+(?:the[ \t]+)?(?:user[ \t]+)?(?:[^\s:]{1,64}[ \t]+){1,4})?(?:is|was|to|set[ \t]+to|changed[ \t]+to|reset[ \t]+to)[ \t]*:?[ \t]+)?(?<secret>[^\s'"\\,;)]{6,})`,
      'gi',
    ),
    // (Not the log line's next pair: `reason=bad_password attempts=3`.)
    check: (_, secret) => secret !== undefined && looksGenerated(secret, 6) && !/^[A-Za-z_][\w.-]*=./.test(secret),
    gate: ['pass', 'Pass', 'PASS', 'pwd', 'PWD'],
  },
  // English phrasings with a separator after a few words (`password for the staging db: …`, `pw for
  // prod is …`, `the pass is …`, `admin password -> …`, `password was changed to '…'`, `my password's
  // …`, Italian's `Password di accesso: …`): a value with letters and digits, 6 characters or more.
  {
    name: 'log_password',
    pattern: re(
      String.raw`${AT_ALNUM}(?:pass(?:word|wd|phrase)?|pwd|pw)(?:[ \t]+(?:the[ \t]+)?[^\s:>'"]{1,40}(?:[ \t]+[^\s:>'"]{1,40}){0,4})?(?:[ \t]*(?::|->|=>|→)[ \t]*|[ \t]+(?:is|(?:was|were|got|has[ \t]+been)[ \t]+(?:changed|set|reset|updated)[ \t]+to)[ \t]+|'s[ \t]+)(?:\\?['"])?(?<secret>[^\s'"\\,;)[\]]{6,})(?![[])`,
      'gi',
    ),
    check: (_, secret) => secret !== undefined && looksGenerated(secret, 6),
    gate: ['pass', 'pw'],
  },
  // The same in other languages (a chat message or a ticket an agent reads): the word for password or
  // API key, a few words (`für die Datenbank`, `do konta`), then a colon or the verb (`lautet`, `est`,
  // `é`, `è`, `is`), then a value with letters and a digit or a symbol.
  {
    name: 'log_password',
    pattern: re(String.raw`(?<![A-Za-z\u00C0-\u024F\u0400-\u04FF0-9_\\])(?:${PASSWORD_WORDS})${WORDS_THEN_VALUE}`, 'giu'),
    check: prosePassword,
    // The words themselves: one of them is in every match.
    gate: PASSWORD_WORD_LIST,
  },
  // English's `password` in those languages' sentences (`La password del database è …`): a rule of
  // its own, which starts with the literal (the scan looks for it alone), as the word is common.
  {
    name: 'log_password',
    pattern: re(String.raw`(?<![A-Za-z0-9_\\])password(?=[^\n:：=[]{0,40}?[ \t](?:è|é|es|est|ist|lautet|wynosi|jest|ay|este|adalah|là)[ \t:])${WORDS_THEN_VALUE}`, 'giu'),
    check: prosePassword,
    gate: ['password'],
  },
  // A token, key or secret in an error message or a log line (`invalid auth token X…`, `token 'X…'
  // has expired`, `api key: X…`, DuckDB's `SECRET '…'`): 16 characters or more, letters and digits.
  // Not the end of a name (`client_secret=…`, `aws_secret_access_key = …`): the name rule's.
  {
    name: 'text_token',
    pattern: re(
      String.raw`(?:(?<![A-Za-z0-9_.-])|(?<=\\[nrtbf]))(?:(?:auth|access|refresh|api|bot|session|bearer)[_-])?(?:token|api[ _-]?key|secret|credential|access[ _-]?key)s?(?:\s*:\s+|\s+(?:is\s+|was\s+)?)(?:\\?['"]|${'`'})?(?<secret>[A-Za-z0-9][A-Za-z0-9._~+/=:$-]{14,}[A-Za-z0-9_~+/=$-])`,
      'gi',
    ),
    check: (_, secret) => secret !== undefined && looksGenerated(secret, 16),
    gate: ['token', 'api', 'secret', 'credential', 'access'],
  },
  // A login given as `user / password` in prose (`the staging login is admin / Qz…`).
  {
    name: 'log_password',
    pattern: re(String.raw`${AT_ALNUM}(?:login|credentials?|creds)\s+(?:(?:for|to|on|of)\s+[^\n]{1,40}?\s+)?(?:is|are)\s*:?\s*[^\s/]{1,64}\s+\/\s+(?<secret>[^\s'",;)]{6,})`, 'gi'),
    check: (_, secret) => secret !== undefined && looksGenerated(secret, 6),
    gate: ['login', 'cred'],
  },
  // A password typed at a prompt and shown (a terminal transcript): `Enter new password for user
  // "app": …`, `Retype password: …`, psql's `Enter it again: …`.
  {
    name: 'log_password',
    pattern: re(
      String.raw`(?:(?:Enter|Retype|Re-enter|Confirm|Verify)\s+(?:(?:new|the|your)\s+)?(?:password|passphrase)(?:\s+(?:for|of)\s+[^:\n]{1,60})?(?:\s+again)?|Enter it again):[ \t]*(?<secret>[^\s'"\\]{4,})`,
      'gi',
    ),
    check: notPlaceholder,
    gate: ['password', 'passphrase', 'enter it again'],
  },
  // A file named for a secret, printed by `cat` (its one line on the next: `cat config/master.key`).
  {
    name: 'config_secret',
    pattern: re(
      String.raw`\bcat\s+[^\s|;&\\]*(?:master\.key|\.key|vault[_-]?pass[\w.-]*|secret[\w.-]*|token[\w.-]*|api[_-]?key[\w.-]*|passw(?:or)?d[\w.-]*)[ \t]*(?:\r?\n|(?:\\+r)?\\+n)(?<secret>[^\s\\"'<>]{8,})(?=[ \t]*(?:\r?\n|$|\\+[rn]|\\?"))`,
    ),
    check: notPlaceholder,
    gate: ['cat '],
  },
  // A secret printed on the line after the command that makes or reads it: a generator (`pwgen`,
  // `openssl rand`, `head -c … /dev/urandom | base64`, `secrets.token_…`, `wg genkey`), a store
  // (`pass show`, `security find-generic-password -w`, `secret-tool lookup`, `argocd admin
  // initial-password`, `kubectl get secret … {.data.…}`), also `cat privatekey`.
  {
    name: 'config_secret',
    pattern: re(
      String.raw`(?:\bpwgen\b|\bopenssl\s+rand\b|\/dev\/u?random\b[^\n]{0,40}\|\s*(?:base64|xxd|od)\b|\bsecrets\.token_\w+\(|\bwg\s+genkey\b|\bpass\s+show\b|\bfind-(?:generic|internet)-password\b[^\n]{0,200}\s-w\b|\bsecret-tool\s+lookup\b|\bargocd\s+admin\s+initial-password\b|\bkubectl\b[^\n]{0,200}\{\.data\.[^}\n]*\}|\bcat\s+[^\s|;&\\]*private[_-]?key\b)(?:[^\n\\]|\\+[^\\nr\n]){0,200}(?:\r?\n|(?:\\+r)?\\+n)(?<secret>[^\s\\"'<>]{8,})(?=[ \t]*(?:\r?\n|$|\\+[rn]|\\?"))`,
    ),
    check: (_, secret) => secret !== undefined && !isPlaceholder(secret) && /\d|[+/=]/.test(secret) && /[A-Za-z]/.test(secret) && !/^\$\s/.test(secret),
    gate: ['pwgen', 'openssl rand', '/dev/urandom', '/dev/random', 'secrets.token_', 'genkey', 'pass show', 'find-generic-password', 'find-internet-password', 'secret-tool', 'initial-password', '{.data.', 'privatekey', 'private_key', 'private-key'],
  },
  // A secret a tool prints after its label: Elasticsearch's `New value: …` after a password reset, a
  // CLI's prompt for a secret's value with the value typed after it (`? What's the value of
  // STRIPE_SECRET? …`, `Enter a secret value: … …`), Jenkins' initial password after its sentence.
  {
    name: 'config_secret',
    pattern: re(
      String.raw`(?:reset-password\b[\s\S]{0,200}?New value:|What's the value of [A-Z0-9_]*(?:SECRET|TOKEN|KEY|PASSWORD|PASS)[A-Z0-9_]*\?|Enter a secret value:(?:[ \t]*…)?|use the following password to proceed to installation:\s*)[ \t]*(?<secret>[^\s\\"'<>]{8,})`,
    ),
    check: notPlaceholder,
    gate: ['new value:', "what's the value of", 'enter a secret value', 'following password'],
  },
  // An email address and a token (`"ops@acme.example:<token>"`, as Atlassian's APIs take them):
  // not a path (`git@github.com:acme/api.git`), a port, or a word.
  {
    name: 'config_secret',
    pattern: re(String.raw`(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+:(?<secret>[^\s"'\/@:,;)]{16,})(?=$|[\s"',;)])`),
    check: (_, secret) => secret !== undefined && looksGenerated(secret, 16),
    gate: ['@'],
  },
  // A wallet's private key given to the library that signs with it (ethers, viem, web3, Solana).
  {
    name: 'config_secret',
    pattern: re(
      String.raw`(?:new\s+(?:ethers\.)?Wallet|privateKeyToAccount|Account\.from_key|from_key|Keypair\.fromSecretKey)\(\s*\\?["'](?<secret>(?:0x)?[0-9a-fA-F]{64})\\?["']`,
      'gi',
    ),
    gate: ['wallet', 'privatekeytoaccount', 'from_key', 'fromsecretkey'],
  },
  // OpenWeatherMap's API key, a query parameter named for the app (`appid=`).
  {
    name: 'config_secret',
    pattern: re(String.raw`[?&]appid=(?<secret>[0-9a-f]{32})(?![0-9a-f])`),
    gate: ['appid='],
  },
  // Session cookies by the names frameworks give them, outside a Cookie header (a log line, a dict,
  // a curl `-b`): Rack's `rack.session`, Express's `connect.sid`, PHP, Java, ASP.NET, Django's
  // `sessionid`, Rails' and Laravel's `_<app>_session`, `remember_token`. 16 characters or more.
  {
    name: 'credential_header',
    pattern: re(
      String.raw`(?<![\w.-])(?:rack\.session|connect\.sid|PHPSESSID|JSESSIONID|ASP\.NET_SessionId|ASPSESSIONID\w*|sessionid|laravel_session|_[a-z0-9]+_session|remember_(?:user_)?token|remember_web_\w+)\\?['"]?[ \t]*[=:][ \t]*\\?['"]?(?<secret>[^\s;,'"\\&]{16,})`,
      'gi',
    ),
    check: notPlaceholder,
    gate: ['session', 'connect.sid', 'sessid', 'remember_'],
  },
  // A Netscape cookie file (curl's `-c`, a browser's export): the value, the last of seven tab-separated fields.
  {
    name: 'credential_header',
    pattern: re(String.raw`${LINE_START}#?(?:HttpOnly_)?[^\t\n\\]+(?:\t|\\t)(?:TRUE|FALSE)(?:\t|\\t)[^\t\n\\]*(?:\t|\\t)(?:TRUE|FALSE)(?:\t|\\t)\d+(?:\t|\\t)[^\t\n\\]+(?:\t|\\t)(?<secret>[^\t\r\n\\]{8,})`),
    check: notPlaceholder,
    gate: ['\tTRUE\t', '\tFALSE\t', '\\tTRUE\\t', '\\tFALSE\\t'],
  },
  // A secret printed alone by the command that reads it (the line after it): a Secret's key decoded
  // (`kubectl get secret … | base64 -d`), `terraform output -raw <name>`, 1Password's `op read`,
  // `vault kv get -field=<name>`, `gcloud secrets versions access`, `aws secretsmanager
  // get-secret-value … --output text`, a new key (`wg genkey`, `openssl rand -hex 32`). A named
  // output is a secret when its name is one (`-raw bucket_name` prints a bucket).
  {
    name: 'config_secret',
    pattern: re(
      String.raw`(?:kubectl\b[^\n|]*\bget\s+secrets?\b[^\n|]*\|\s*base64\s+(?:-d|-D|--decode)|terraform\s+output\s+-raw\s+[^\s\\]+|op\s+read\s+[^\s\\]+|vault\s+(?:kv\s+get|read)\s+(?:-\S+\s+)*-field=[^\s\\]+|gcloud\s+secrets\s+versions\s+access|aws\s+secretsmanager\s+get-secret-value\b[^\n|]*--output\s+text|wg\s+genkey|openssl\s+rand\s+-(?:hex|base64)\s+\d+)[^\n\\]*(?:\r?\n|(?:\\+r)?\\+n)(?<secret>[^\s\\"'<>]{8,})`,
    ),
    check: (match, secret) => secret !== undefined && !isPlaceholder(secret) && printedName(match),
    gate: ['base64', 'terraform', 'op read', 'vault', 'gcloud', 'secretsmanager', 'wg genkey', 'openssl rand'],
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
      String.raw`\\?"(?:name|key|Name|Key|ParameterKey|id|label)\\?"\s*:\s*\\?"[^"\\\n]{1,100}\\?"\s*,(?:\s*\\?"[A-Za-z_]{1,20}\\?"\s*:\s*\\?"[^"\\\n]{0,100}\\?"\s*,){0,3}\s*\\?"(?:value|Value|ParameterValue)\\?"\s*:\s*\\?"(?<secret>(?:[^"\\\n]|\\[^"])+)\\?"`,
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
  // KeePass' XML export (`<Key>Password</Key><Value ProtectInMemory="True">…</Value>`), and a variable set
  // by name (`[Environment]::SetEnvironmentVariable("DB_PASSWORD", "…")`, `setx DB_PASS "…"`).
  {
    name: 'config_secret',
    pattern: re(String.raw`<Key>(?<name>[^<\n]{1,100})<\/Key>\s*<Value\b[^>]{0,100}>(?<secret>[^<\n]+)<\/Value>`),
    check: (match, secret) => secret !== undefined && isSecretName(/<Key>([^<]+)</.exec(match)?.[1] ?? '') && !isPlaceholder(secret),
    gate: ['</key>'],
  },
  {
    name: 'config_secret',
    pattern: re(String.raw`(?:SetEnvironmentVariable\(\s*|\bsetx\s+(?:\/[mM]\s+)?)\\?["']?(?<name>[\w.-]{1,100})\\?["']?\s*,?\s*\\?["'](?<secret>[^"'\\\n]+)`, 'gi'),
    check: (match, secret) => secret !== undefined && isSecretName(/(?:\(\s*|setx\s+(?:\/m\s+)?)\\?["']?([\w.-]+)/i.exec(match)?.[1] ?? '') && !isPlaceholder(secret),
    gate: ['setenvironmentvariable', 'setx'],
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

/** Whether a printed value's command names a secret (`-raw admin_token`, `op://vault/item/password`, `-field=token`), or prints only secrets. */
function printedName(match: string): boolean {
  const named = /terraform\s+output\s+-raw\s+([^\s\\]+)|op\s+read\s+\\?["']?([^\s"'\\]+)|-field=([^\s\\]+)/.exec(match);
  if (named === null) return true;
  const name = (named[1] ?? named[2] ?? named[3] ?? '').replace(/["']/g, '');
  return isSecretName(name.slice(name.lastIndexOf('/') + 1));
}

/** The name of a match of a name and its value apart (`"name": "…"`, `name: …`). */
function pairName(match: string): string {
  return /\b(?:name|key|parameterkey|id|label)\\?["']?\s*:\s*\\?["']?([^"'\\\r\n,]+)/i.exec(match)?.[1] ?? '';
}
