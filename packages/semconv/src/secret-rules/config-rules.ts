/**
 * Secrets in configuration and code: config setters, XML and appSettings, a name and value as a
 * call's arguments, a Kubernetes Secret's data, credentials passed positionally in code, API
 * clients built with a key, DSNs, Terraform defaults, JSON Web Keys, setup keys and recovery
 * codes, database and Windows hashes, SQL UPDATE of a password column, .netrc.
 */
import { isPlaceholder, isSecretName } from './names.ts';
import { AT, BARE, CLI_VALUE, LINE_START, notPlaceholder, re, type ShapeRule } from './rule-kit.ts';

/** A JSON Web Key (`"kty": …`), whose private members are secrets. */
const JWK = /\\*"kty\\*"\s*:/;
/** A Kubernetes Secret's manifest, as YAML or JSON: its `kind`. */
const K8S_SECRET = /\bkind:[ \t]*["']?Secret\b|"kind"\s*:\s*"Secret"/;

export const CONFIG_RULES: readonly ShapeRule[] = [
  // An LDAP client's or server's bind password, a space after its name (nslcd.conf's `bindpw`,
  // slapd.conf's `rootpw`, pam_ldap's `bindpw`).
  {
    name: 'config_secret',
    pattern: re(String.raw`${LINE_START}[ \t]*(?:bindpw|rootpw)[ \t]+(?<secret>[^\s"'\\]+)`),
    check: notPlaceholder,
    gate: ['bindpw', 'rootpw'],
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
  // An HTML form's field named for a secret (`<input type="hidden" name="api_key" value="…">`), and an
  // Apple property list's key and the string after it (`<key>RevenueCatSecretKey</key><string>…</string>`).
  {
    name: 'config_secret',
    pattern: re(String.raw`\bname\s*=\s*"(?<name>[^"<>]{1,100})"[^<>]{0,200}?\bvalue\s*=\s*"(?<secret>[^"]{1,2000})"`),
    check: (match, secret) => secret !== undefined && isSecretName(attributeName(match)) && !isPlaceholder(secret),
    gate: ['value='],
  },
  {
    name: 'config_secret',
    pattern: re(String.raw`<key>(?<name>[^<>]{1,100})<\/key>\s*<string>(?<secret>[^<>]{1,2000})<\/string>`),
    check: (match, secret) => secret !== undefined && isSecretName(/^<key>([^<>]*)/.exec(match)?.[1] ?? '') && !isPlaceholder(secret.trim()),
    gate: ['<key>'],
  },
  // Gradle's and Groovy's DSL: a name and its quoted value alone on a line (`storePassword "…"`, `keyPassword '…'`).
  {
    name: 'config_secret',
    pattern: re(
      String.raw`(?<=^|\n|\\n)[ \t]*(?<name>[A-Za-z_]\w{0,40}?(?:password|secret|token|api_?key)\w{0,20})[ \t]+\\?(?<q>["'])(?<secret>[^"'\n\\]{1,300})\\?\k<q>[ \t]*(?=\r?\n|$|\\n)`,
      'gi',
    ),
    check: (match, secret) => secret !== undefined && isSecretName(match.trim().split(/[ \t]/)[0] ?? '') && !isPlaceholder(secret),
    gate: ['password', 'secret', 'token', 'apikey', 'api_key'],
  },
  // A secret name and its value as a call's first two arguments: PHP's `define('DB_PASSWORD', '…')`
  // (wp-config.php), `putenv`/`setenv`, `os.environ.setdefault("API_TOKEN", "…")`, a default in
  // `os.getenv("DB_PASSWORD", "…")`, `config.set('secret', '…')`. Only in a call: a list of field
  // names (`"required": ["password", "email"]`) names no value. A request's header set in code too:
  // `DefaultRequestHeaders.Add("X-Api-Key", "…")`, `xhr.setRequestHeader('Authorization', '…')`,
  // `headers.append("x-api-key", "…")`.
  {
    name: 'config_secret',
    pattern: re(
      String.raw`\b(?:define|putenv|setenv|setdefault|set|getenv|get|fetch|env|setProperty|put|putString|setString|add|append|setHeader|setRequestHeader|addHeader|header|TryAddWithoutValidation)\s*\(\s*\\?(?<q>['"])(?<name>[\w.-]{1,100})\\?\k<q>\s*,\s*\\?(?<r>['"])(?<secret>(?:(?!\\?\k<r>)[^\n])+)\\?\k<r>`,
      'gi',
    ),
    check: (match, secret) => secret !== undefined && isSecretName(callName(match)) && !isPlaceholder(secret),
    // `set`, `get` and `env` are in `setenv`, `setdefault`, `getenv`, `putenv` and `setProperty`; `put`
    // alone would be in every `output` and `input`.
    gate: ['define', 'set', 'get', 'fetch', 'env', 'put(', 'put (', 'putstring', 'add(', 'add (', 'append(', 'header(', 'withoutvalidation('],
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
  // Code that passes a credential positionally: a user and a password to a client or a login
  // (`HTTPBasicAuth('u', 'p')`, `auth=("u", "p")`, `getConnection(url, "u", "p")`, `new PDO(dsn, 'u', 'p')`,
  // `new Sequelize('db', 'u', 'p')`, `NetworkCredential("u", "p")`, `SetBasicAuth`, `login("u", "p")`),
  // a signing key (`jwt.encode(payload, "k")`, `jwt.sign(payload, 'k')`), `set_password("…")`,
  // `Fernet(b'…')`, cURL's `CURLOPT_USERPWD, "u:p"`, and a hard-coded fallback after a secret's
  // variable (`process.env.SESSION_SECRET || '…'`).
  {
    name: 'config_secret',
    pattern: re(
      String.raw`\b(?:(?:Sequelize|getConnection|PDO(?:->__construct)?)\s*\(\s*(?:[^()'"\n]{0,200}?,\s*|\\?(?<q0>['"])[^'"\n]{0,300}\\?\k<q0>\s*,\s*)|(?:HTTP(?:Basic|Digest)Auth|BasicAuth|SetBasicAuth|NetworkCredential|PSCredential|login|auth\s*=)\s*\(\s*)\\?(?<q1>['"])[^'"\n]{1,200}\\?\k<q1>\s*,\s*b?\\?(?<q2>['"])(?<secret>[^'"\n\\]{1,200})\\?\k<q2>`,
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
  // An API client built with its key as a literal (`cohere.Client("…")`, `cohere.ClientV2("…")`, `Client(sid, "<token>")`,
  // `algoliasearch(appId, "<key>")`, Azure's `AzureKeyCredential("…")`, PayPal's `LiveEnvironment(id, "<secret>")`, a
  // credentials provider or profile): each argument that reads as generated (24+ letters and digits,
  // both) is replaced; names, URLs and short ids are kept.
  {
    name: 'api_key',
    pattern: re(String.raw`(?:Client|client|search|KeyCredential|Environment|Provider|Profile)(?:V\d)?\s*\([^()\n]{0,400}\)`),
    gate: ['client', 'search', 'keycredential', 'environment', 'provider', 'profile'],
    rewrite: (match, marker) =>
      match.replace(/(\\?['"])((?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{24,200})(\1)/g, (_, open: string, __: string, close: string) => `${open}${marker}${close}`),
  },
  // Android's `buildConfigField("String", "MAPS_SECRET", "\"…\"")` (the value a quoted literal in a
  // string), and Perl's `DBI->connect($dsn, $user, $password)` with a literal password.
  {
    name: 'config_secret',
    pattern: re(
      String.raw`\bbuildConfigField\s*\(\s*\\?"[^"\\\n]{1,40}\\?"\s*,\s*\\?"(?<name>\w{1,100})\\?"\s*,\s*\\?"(?:\\{1,3}")?(?<secret>[^"\\\n]{4,300})(?:\\{1,3}")?\\?"\s*\)`,
    ),
    check: (match, secret) => secret !== undefined && isSecretName(/\\?"\s*,\s*\\?"(\w+)\\?"\s*,/.exec(match)?.[1] ?? '') && !isPlaceholder(secret),
    gate: ['buildconfigfield'],
  },
  {
    name: 'config_secret',
    pattern: re(String.raw`DBI->connect\s*\(\s*[^,()\n]{1,300},\s*[^,()\n]{1,100},\s*\\?(?<q>['"])(?<secret>[^'"\n\\]{1,200})\\?\k<q>`),
    check: notPlaceholder,
    gate: ['dbi->connect'],
  },
  // A parameter of AWS' Parameter Store of type SecureString, as `get-parameter --with-decryption`
  // prints it (its `Value`, whatever its name), and a storage account's keys as `az storage account
  // keys list` prints them (`"keyName": "key1", …, "value": "…"`).
  {
    name: 'config_secret',
    pattern: re(
      String.raw`\\?"Type\\?"\s*:\s*\\?"SecureString\\?"[^{}]{0,300}?\\?"Value\\?"\s*:\s*\\?"(?<secret>(?:[^"\\\n]|\\[^"])+)\\?"|\\?"Value\\?"\s*:\s*\\?"(?<secret2>(?:[^"\\\n]|\\[^"])+)\\?"(?=[^{}]{0,300}?\\?"Type\\?"\s*:\s*\\?"SecureString\\?")`,
    ),
    gate: ['securestring'],
    rewrite: (match, marker) => match.replace(/(\\?"Value\\?"\s*:\s*\\?")((?:[^"\\\n]|\\[^"])+)(\\?")/, (_, head: string, __: string, tail: string) => `${head}${marker}${tail}`),
  },
  {
    name: 'config_secret',
    pattern: re(String.raw`\\?"keyName\\?"\s*:\s*\\?"[^"\\\n]{1,100}\\?"[^{}]{0,300}?\\?"value\\?"\s*:\s*\\?"(?<secret>[A-Za-z0-9+/=]{20,})\\?"`),
    gate: ['keyname'],
  },
  // Terraform's sensitive output as `terraform output -json` prints it (`"sensitive": true, …,
  // "value": "…"`, either order), a generated password in its state (`random_password`'s
  // `"result"`), and an Azure storage account's keys as `az storage account keys list -o table`
  // prints them (`key1  FULL  <key>`).
  {
    name: 'config_secret',
    pattern: re(
      String.raw`\\?"sensitive\\?"\s*:\s*true[^{}]{0,300}?\\?"value\\?"\s*:\s*\\?"(?<secret>(?:[^"\\\n]|\\[^"])+)\\?"|\\?"value\\?"\s*:\s*\\?"(?<secret2>(?:[^"\\\n]|\\[^"])+)\\?"(?=[^{}]{0,300}?\\?"sensitive\\?"\s*:\s*true)`,
    ),
    gate: ['sensitive'],
    rewrite: (match, marker) =>
      match.replace(/(\\?"value\\?"\s*:\s*\\?")((?:[^"\\\n]|\\[^"])+)(\\?")/, (all, head: string, value: string, tail: string) =>
        isPlaceholder(value) ? all : `${head}${marker}${tail}`,
      ),
  },
  {
    name: 'config_secret',
    pattern: re(String.raw`random_password\b[^]{0,600}?\\?"result\\?"\s*:\s*\\?"(?<secret>(?:[^"\\\n]|\\[^"])+)\\?"`),
    check: notPlaceholder,
    gate: ['random_password'],
  },
  {
    name: 'config_secret',
    pattern: re(String.raw`(?<![\w-])key[12][ \t]+(?:FULL|Full|full)[ \t]+(?<secret>[A-Za-z0-9+/]{40,}={0,2})`),
    gate: ['key1 ', 'key2 '],
  },
  // A Markdown table with a column named for a secret (`| env | user | password |`): that column's
  // cells in the rows under it (a placeholder, `***` or `(in vault)`, stays). Lines end in a newline,
  // or in its JSON escape (the table inside a tool's JSON arguments).
  {
    name: 'config_secret',
    pattern: re(String.raw`(?<=^|\n|\\n)[^\n\\|]*\|[^\n\\]*\|[ \t]*(?:\r?\n|(?:\\+r)?\\+n)[ \t]*\|[ \t]*:?-{3,}[-:| \t]*\|?[ \t]*(?:(?:\r?\n|(?:\\+r)?\\+n)[ \t]*\|(?:[^\n\\|]|\|)*)+`),
    gate: ['|---', '| ---', '|:--', '| :--'],
    rewrite: (match, marker) => {
      // Lines at even indices, their separators at odd ones.
      const parts = match.split(/(\r?\n|(?:\\+r)?\\+n)/);
      const cells = (line: string) => line.trim().replace(/^\||\|$/g, '').split('|');
      // (The header may follow other text on its line: `execute_tool | env | password |`.)
      const header = parts[0] ?? '';
      const secret = cells(header.slice(header.indexOf('|'))).map((c) => isSecretName(c.trim().replace(/\s+/g, '_')));
      if (!secret.includes(true)) return match;
      return parts
        .map((line, i) => {
          if (i % 2 === 1 || i < 4) return line;
          const lead = /^[ \t]*\|/.exec(line)?.[0] ?? '';
          const trail = /\|[ \t]*$/.exec(line)?.[0] ?? '';
          const body = line.slice(lead.length, line.length - trail.length).split('|');
          const out = body.map((c, j) => {
            const v = c.trim();
            if (!secret[j] || !v || v.startsWith('[REDACTED') || isPlaceholder(v) || /^\(.*\)$/.test(v)) return c;
            return c.replace(v, marker);
          });
          return lead + out.join('|') + trail;
        })
        .join('');
    },
  },
  // A HAR file's cookies (`"cookies": [{"name": "sid", "value": "…"}]`): each value, as the Cookie header's.
  {
    name: 'credential_header',
    // (Another rule's marker inside, `[REDACTED:…]`, does not end the list.)
    pattern: re(String.raw`\\?"cookies\\?"\s*:\s*\[(?:[^\][]|\[REDACTED[^\]]*\])*\]`),
    gate: ['cookies'],
    rewrite: (match, marker) =>
      match.replace(/(\\?"value\\?"\s*:\s*\\?")((?:[^"\\\n]|\\[^"])+)(\\?")/g, (all, head: string, value: string, tail: string) =>
        value.startsWith('[REDACTED') || isPlaceholder(value) ? all : `${head}${marker}${tail}`,
      ),
  },
  // PagerDuty's Events API `routing_key` (32 hex characters; an AMQP routing key is a queue's name, not a secret).
  {
    name: 'config_secret',
    pattern: re(String.raw`\b(?:routing|integration)_?key\\?["']?\s*[:=]\s*\\?["']?(?<secret>[a-f0-9]{32})(?![a-f0-9])`, 'gi'),
    gate: ['routing', 'integration'],
  },
  // Bundler's credentials for a gem source: `BUNDLE_GEMS__EXAMPLE__COM: "user:password"` (the host in the name).
  {
    name: 'config_secret',
    pattern: re(String.raw`\bBUNDLE_[A-Z0-9_]*__[A-Z0-9_]+\\?["']?[ \t]*[:=][ \t]*\\?["']?[^:\s"'\\]{1,100}:(?<secret>[^\s"'\\]+)`),
    check: notPlaceholder,
    gate: ['bundle_'],
  },
  // `aws configure`'s prompt, answered: `AWS Secret Access Key [None]: <key>`.
  {
    name: 'aws_secret_access_key',
    pattern: re(String.raw`\bSecret Access Key \[[^\]\n]{0,40}\]:[ \t]*(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])`, 'gi'),
    gate: ['secret access key'],
  },
  // Go's MySQL DSN: `user:password@tcp(host:3306)/db` (no scheme, so not the URL rule's); the
  // password up to the last `@` before the protocol (it may hold one).
  {
    name: 'url_password',
    pattern: re(String.raw`(?<![\w/:])[\w.-]{1,64}:(?<secret>[^\s/"'()]{1,200})@(?:tcp|unix|udp)\(`),
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
      // A quoted value keeps its quotes (`KEY: "[REDACTED]"`: a bare `[…]` is a YAML list).
      const value = (kv[2] as string).replace(/\r$/, '');
      const q = /^(["'])[\s\S]*\1$/.exec(value)?.[1] ?? '';
      return `${kv[1]}${q}${marker}${q}${(kv[2] as string).endsWith('\r') ? '\r' : ''}`;
    })
    .join('\n');
}
