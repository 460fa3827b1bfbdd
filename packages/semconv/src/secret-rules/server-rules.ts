/**
 * Secrets in what servers and their clients print or read: Redis (its config, `AUTH` at a prompt or
 * as a line, `CONFIG GET`, MONITOR), mail and file protocol transcripts (FTP, POP3, SMTP, IMAP), a
 * Wi-Fi QR payload, an environment listed as a table, a .pgpass line, password hashes. After the
 * text rules in SHAPE_RULES (shapes.ts), in the order they had at the end of them.
 */
import { isPlaceholder, isSecretName } from './names.ts';
import { AT, CLI_VALUE, LINE_END, LINE_START, notPlaceholder, re, type ShapeRule } from './rule-kit.ts';

export const SERVER_RULES: readonly ShapeRule[] = [
  // A Redis ACL user's password (`user app on >…` in users.acl, `ACL SETUSER app on >…`), and Neo4j's
  // `ALTER CURRENT USER SET PASSWORD FROM '…' TO '…'` / `ALTER USER … SET PASSWORD '…'` (both quoted values).
  {
    name: 'config_secret',
    pattern: re(String.raw`\b(?:ACL\s+SETUSER|user)\s+[\w.@-]+\s+(?:(?:on|off|nopass|resetpass|reset|allkeys|allchannels|allcommands|[~&%]\S*|[+-]@?\S*)\s+)*>(?<secret>[^\s"'\\]+)`, 'gi'),
    check: notPlaceholder,
    gate: [' on >', 'setuser'],
  },
  {
    name: 'sql_password',
    pattern: re(String.raw`\bSET\s+PASSWORD\s+(?:FROM\s+'(?<old>(?:[^'\n]|'')*)'\s+TO\s+)?'(?<secret>(?:[^'\n]|'')+)'`, 'gi'),
    check: notPlaceholder,
    rewrite: (match, marker) => match.replace(/'(?:[^'\n]|'')+'/g, `'${marker}'`),
    gate: ['set password'],
  },
  // Secrets printed after their label by admin tools: Windows' `netsh wlan show profile … key=clear`
  // (`Key Content : …`), Vault's `vault operator init` (`Unseal Key 1: …`) and `vault operator unseal
  // <key>`, Consul's and Nomad's ACL bootstrap (`SecretID: <uuid>`, `Secret ID = <uuid>`), crackmapexec's
  // `[+] DOMAIN\user:password`, net-snmp's `rocommunity`/`rwcommunity` lines, sendmail's
  // `AuthInfo:… "P:…"`, wpa_passphrase's second argument.
  {
    name: 'config_secret',
    pattern: re(
      String.raw`(?:Key Content[ \t]*:|Unseal Key \d+:|vault[ \t]+operator[ \t]+unseal(?:[ \t]+-\S+)*|Secret[ \t]?ID[ \t]*[:=]|\[\+\][ \t]+[\w.-]+\\[\w.$-]+:|(?:^|\n|\\n)[ \t]*r[ow]community6?|"P:|wpa_passphrase[ \t]+(?:"[^"\n]*"|'[^'\n]*'|[^\s"']+)[ \t])[ \t]*\\?["']?(?<secret>[^\s"'\\]{6,})`,
    ),
    check: (_, secret) => secret !== undefined && !isPlaceholder(secret) && !/^(?:public|private)$/.test(secret) && !/^\(Pwn3d!?\)$/.test(secret),
    gate: ['key content', 'unseal', 'secret id', 'secretid', '[+]', 'community', '"p:', 'wpa_passphrase'],
  },
  // Redis: `requirepass` / `masterauth` in redis.conf or `CONFIG SET`, and `AUTH [user] <password>` as a line.
  {
    name: 'config_secret',
    pattern: re(String.raw`${AT}(?:requirepass|masterauth)[ \t]+${CLI_VALUE}`, 'gi'),
    check: notPlaceholder,
    gate: ['requirepass', 'masterauth', 'REQUIREPASS', 'MASTERAUTH'],
  },
  // A mail or file server's login in a protocol transcript: FTP's and POP3's `PASS <password>` after a
  // client marker (`> `, `C: `, `-->`; Jest's `PASS  src/…` has none), SMTP's `AUTH PLAIN <base64 of
  // \0user\0password>`.
  {
    name: 'config_secret',
    pattern: re(String.raw`(?<=^|\n|\\n)[ \t]*(?:>|C:|-->)[ \t]*PASS[ \t]+(?<secret>[^\s\\'"]+)`),
    check: notPlaceholder,
    gate: ['PASS '],
  },
  // The same transcript without client markers: a `PASS` line in text that also has a `USER` line and
  // a server's reply (`331 Password required`, POP3's `+OK`), which test runners' output has not.
  {
    name: 'config_secret',
    pattern: re(String.raw`(?<=^|\n|\\n)[ \t]*PASS[ \t]+(?<secret>[^\s\\'"]+)`),
    when: (s) => /(?:^|\n|\\n)[ \t]*USER[ \t]+\S/.test(s) && /(?:^|\n|\\n)(?:[23]\d\d[ \t-]|\+OK\b)/.test(s),
    check: notPlaceholder,
    gate: ['PASS '],
  },
  {
    name: 'config_secret',
    pattern: re(String.raw`\bAUTH[ \t]+PLAIN[ \t]+(?<secret>[A-Za-z0-9+/]{8,}={0,2})`),
    gate: ['AUTH PLAIN'],
  },
  // SMTP's `AUTH LOGIN`: the line after the server's `334 UGFzc3dvcmQ6` (base64 of `Password:`).
  {
    name: 'config_secret',
    pattern: re(String.raw`\b334[ \t]+UGFzc3dvcmQ6[ \t]*(?:\r?\n|(?:\\r)?\\n)(?:C:[ \t]*)?(?<secret>[A-Za-z0-9+/]{4,}={0,2})`),
    gate: ['UGFzc3dvcmQ6'],
  },
  // Postfix's sasl_passwd: `[smtp.example.com]:587 user:password`, the relay in brackets (the user
  // may be a key id another rule took: `[REDACTED:aws_access_key_id]`).
  {
    name: 'config_secret',
    pattern: re(String.raw`${LINE_START}[ \t]*\[[\w.-]+\]:\d{2,5}[ \t]+(?:\[REDACTED[^\]\n]*\]|[^\s:"\\]+):(?<secret>[^\s"\\]{4,})${LINE_END}`),
    check: notPlaceholder,
    gate: [']:25 ', ']:465 ', ']:587 ', ']:2525 ', ']:25\t', ']:465\t', ']:587\t', ']:2525\t'],
  },
  // redis-cli's answer to `CONFIG GET requirepass`: the name, then the value on the next line (`1) "requirepass"`, `2) "…"`).
  {
    name: 'config_secret',
    // (In JSON, at any depth: `\"`, `\\n`.)
    pattern: re(String.raw`\\*"(?:requirepass|masterauth)\\*"[ \t]*(?:\r?\n|\\+n)(?:[ \t]*\d+\)[ \t]+)?\\*"(?<secret>[^"\n\\]+)\\*"`, 'gi'),
    check: notPlaceholder,
    gate: ['requirepass', 'masterauth', 'REQUIREPASS', 'MASTERAUTH'],
  },
  // Redis MONITOR's lines (`<time> [0 <addr>] "AUTH" "default" "…"`): AUTH's last argument, and the
  // value after a field named for a secret (`"HSET" "integration:42" "api_key" "…"`).
  {
    name: 'config_secret',
    pattern: re(String.raw`"AUTH"(?:[ \t]+"[^"\n]*")?[ \t]+"(?<secret>[^"\n]+)"(?![ \t]+")`, 'gi'),
    check: notPlaceholder,
    gate: ['"AUTH"', '"auth"'],
  },
  {
    name: 'config_secret',
    pattern: re(String.raw`(?<=[ \t])"(?<name>[^"\n]{1,60})"[ \t]+"(?<secret>[^"\n]+)"`),
    // (AUTH is the command, not a field: its own rule above.)
    check: (match, secret) => {
      const name = match.slice(1, match.indexOf('"', 1));
      return secret !== undefined && !/^auth$/i.test(name) && isSecretName(name) && !isPlaceholder(secret);
    },
    gate: ['" "'],
    when: (s) => /\[\d+ [^\]\n]{1,60}\] "[A-Za-z]+"/.test(s),
  },
  {
    name: 'config_secret',
    // (Also after redis-cli's prompt: `cache.internal:6379> AUTH default …`.)
    pattern: re(String.raw`${LINE_START}[ \t]*(?:[\w.-]+:\d+(?:\[\d+\])?>[ \t]*)?AUTH[ \t]+(?:[^\s'"\\]+[ \t]+)?(?<secret>[^\s'"\\]+)${LINE_END}`),
    check: notPlaceholder,
    gate: ['AUTH '],
  },
  // IMAP's `LOGIN <user> <password>` in a transcript (`a1 LOGIN ops@example.org "…"`): after its tag,
  // at the start of a line or after a client marker (`C: a1 LOGIN …`, quoted in a message).
  {
    name: 'config_secret',
    pattern: re(String.raw`(?:${LINE_START}[ \t]*|(?:C:|>|-->)[ \t]*)[A-Za-z0-9.]{1,10}[ \t]+LOGIN[ \t]+(?:"[^"\n\\]*"|[^\s"\\]+)[ \t]+"?(?<secret>[^\s"\\]+)"?${LINE_END}`),
    check: notPlaceholder,
    gate: ['LOGIN '],
  },
  // SQL Server's stored procedures that set a login's password (`EXEC sp_addlogin 'name', '…'`, with
  // or without `@loginame =`/`@passwd =`; `sp_password 'old', '…', 'login'`, the new one second), and
  // MongoDB's shell (`db.changeUserPassword("name", "…")`, `db.auth("name", "…")`).
  {
    name: 'sql_password',
    pattern: re(
      String.raw`\bsp_(?:addlogin|password)\s+(?:@\w+\s*=\s*)?(?:NULL|N?'(?:[^'\n]|'')*')\s*,\s*(?:@\w+\s*=\s*)?N?'(?<secret>(?:[^'\n]|'')+)'`,
      'gi',
    ),
    check: notPlaceholder,
    gate: ['sp_addlogin', 'sp_password'],
  },
  {
    name: 'sql_password',
    pattern: re(String.raw`\b(?:changeUserPassword|auth)\(\s*\\?(["'])[^"'\n\\]*\\?\1\s*,\s*\\?(["'])(?<secret>[^"'\n\\]+)\\?\2\s*\)`),
    check: notPlaceholder,
    gate: ['changeuserpassword(', 'auth('],
  },
  // A Wi-Fi network's QR code payload (`WIFI:T:WPA;S:<ssid>;P:<password>;;`): its `P:` field.
  {
    name: 'config_secret',
    pattern: re(String.raw`WIFI:(?:[^;\n]*;)*?P:(?<secret>(?:\\[;,:"\\]|[^;\n\\])+)`),
    check: notPlaceholder,
    gate: ['WIFI:'],
  },
  // An environment listed as a table or by fish's `set -x` (`AUTH0_CLIENT_SECRET    P7tn…`,
  // `SNYK_TOKEN 0012…`): a variable named for a secret, spaces, then its value alone on the line.
  {
    name: 'config_secret',
    pattern: re(String.raw`${LINE_START}(?<name>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)[ \t]+(?<secret>[^\s'"\\]{8,})${LINE_END}`),
    check: (match, secret) => secret !== undefined && isSecretName(match.trim().split(/[ \t]/)[0] ?? '') && !isPlaceholder(secret),
    gate: ['token', 'secret', 'key', 'pass', 'pwd', 'auth', 'cred'],
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
