/**
 * Secret names: a name (attribute key, JSON key, query parameter, config or .env line) whose
 * value is a secret whatever it looks like, and how to find `name=value` pairs in free text.
 */

/**
 * Words after a secret word that still name the secret: `secret_value`, `SECRET_KEY_BASE`,
 * `client_secret_value`, AWS's `SecretString`, `token_b64`, `secret_text`, a form's
 * `password_confirmation`, `password_new`, `password1`. (`password_hash`, `password_policy`,
 * `secret_name`, `token_count` are not among them: they name something else.)
 */
const QUALIFIERS =
  'value|val|base|b64|base64|b32|base32|hex|raw|plain|plaintext|str|string|text|data|bytes|confirm|confirmation|again|repeat|retype|verify|new|old|current|prod|production|live|staging|\\d{1,2}';

/**
 * A name whose value is a secret, tested on the name lower-cased with everything but letters
 * and digits removed (`userPassword`, `user_password`, `X-User-Password` all end in
 * `password`). The name must end in the word (or the word and a qualifier above):
 * `input_tokens` and `password_policy` are kept.
 */
const SECRET_NAME = new RegExp(
  // `…pass` (KEYSTORE_PASS, RABBITMQ_DEFAULT_PASS), not the English words that end so; `…pw` (LDAP_BIND_PW).
  '(?:password|passwd|passphrase|passcode|passkey|pwd|(?<!by|com|sur|tres|under|over)pass|(?:^|db|bind|user|admin|root|mail|smtp|ftp)pw|' +
    '(?<!existing)secrets?|(?<!page|next|continuation|cursor|sync|max)token|apikey|' +
    '(?:access|secret|private|account|signing|encryption|master|subscription|license|hmac|jwt|auth|session|client|consumer|' +
    'servicerole|app|application|storage|admin|root|totp|mfa|otp|recovery|sdk|aes|des|wifi|write|functions|master|host|preshared|network|' +
    // Fernet's (Airflow's `FERNET_KEY`), a webhook's, a shared one, a cipher's, an unlock or a wrapping key.
    'fernet|decryption|webhook|shared|cipher|unlock|wrapping|ingestion)key|psk|tempauth|authtok|bearer(?:token)?|' +
    // Honeycomb's header (`x-honeycomb-team`), a JWT's or a cookie's signing secret (`JWT_SIGNING`).
    'honeycombteam|(?:jwt|token|cookie|session)signing|' +
    '(?:basic|http|proxy)auth|authorization|^auth|cookie|credentials?|creds|connectionstrings?[a-z0-9]*|dsn|signature|^sig|' +
    // A wallet's recovery words, an app's pepper and salts (WordPress' `AUTH_SALT`), a one-time-password seed, a card's check code and PIN.
    'mnemonic|seedphrase|recoveryphrase|recoverycodes?|backupcodes?|pepper|salt|(?:mfa|totp|otp)seed|cvv2?|cvc2?|^pin|^pincode|' +
    // OAuth PKCE's verifier (`code_verifier=`): it redeems the authorization code.
    'codeverifier|' +
    // The word in other languages, as a key (`"mot_de_passe"`, `contrasena`, `Passwort`, `senha`, `wachtwoord`, `haslo`, `sifre`).
    // (Lower-cased to a-z and digits first: `contraseña` reads `contrasea`, `hasło` `haso`.)
    'motdepasse|contrase?n?a|passwort|kennwort|senha|wachtwoord|hasl?o|sifre|losenord|adgangskode|passord|salasana|' +
    // SonarQube's token (`SONAR_LOGIN`, `sonar.login`: its documented name for it).
    'sonarlogin)' +
    `(?:${QUALIFIERS})?$`,
);

const PAT_NAME = /(?:^|[_.-])pat$/i;
/** `…_PW` after any word (`REDIS_PW`, `MYSQL_ROOT_PW`): a separator before it, not a word that ends so. */
const PW_NAME = /(?:^|[_.-])pw$/i;

const nameCache = new Map<string, boolean>();

/** True when `name` (an attribute key, a JSON key, a query parameter, a config key) names a secret. */
export function isSecretName(name: string): boolean {
  let hit = nameCache.get(name);
  if (hit === undefined) {
    // `…_PAT` (a personal access token: ASANA_PAT, AZURE_DEVOPS_EXT_PAT), not a word that ends so (`compat`).
    hit = SECRET_NAME.test(name.toLowerCase().replace(/[^a-z0-9]/g, '')) || PAT_NAME.test(name) || PW_NAME.test(name);
    // Names repeat across spans: remember them, up to a bound (any name is allowed in).
    if (nameCache.size > 50_000) nameCache.clear();
    nameCache.set(name, hit);
  }
  return hit;
}

const SECRET_WORDS = /pass|pw|secret|token|key|auth|cookie|cred|dsn|sig|connection|mnemonic|phrase|codes|pepper|salt|seed|psk|cvv|cvc|pin|verifier|bearer|[_.-]pat\b|sonar.login/;

/**
 * Whether `s` holds any of the words a secret name ends in: strings without one skip the
 * name-based pass. (The string lower-cased once and one case-sensitive alternation: four times
 * faster than looking for each word in turn, and than a case-insensitive alternation.)
 */
export function hasSecretWord(s: string): boolean {
  return SECRET_WORDS.test(s.toLowerCase());
}

/**
 * `name=value`, `name: value`, `"name": "value"` (also JSON-escaped, `\"name\":\"value\"`), Markdown's `**name**: value`,
 * Makefile's `name ?= value` and `:=`, PHP's and Ruby's `'name' => 'value'`, an
 * index (`os.environ["API_TOKEN"] = "…"`, `$_ENV['DB_PASSWORD'] = '…'`): the value of a name in free text (query strings, config
 * and .env lines, headers, JSON). The name is then checked with isSecretName; a value that opens
 * an object or array is left to the pass over its own parts. Groups: `name`, `sep`, and the value
 * as `edq` (escaped double quotes), `dq`, `sq` (also SQL's `N'…'`, `E'…'` and `''` inside), `br`
 * (ODBC's `PWD={…}`), `block` (a YAML block scalar: `key: |` and its indented lines) or `bare`
 * (a `${VAR}` in it stays whole: a placeholder, not a secret; after `: ` an `&name=` in it is the
 * value's, as in YAML's `POSTGRES_PASSWORD: xgJz&37=s_Ao`, when what comes before it in the value
 * has no `=` or `?` (`url: https://…?token=…&next=1`, `body: a=b&password=…&c=d` are query strings); not a comparison's second `=` or a
 * template literal's backquote: code; it ends at a JSON escape, `\n`, `\t`, `\r`, `\"`, `\\`, as a line of
 * raw JSON text does: else `DB_PASSWORD=${X}\nNEXT=1` read as one value took the next line).
 */
const NAMED_VALUE_SOURCE =
  String.raw`(?<name>[A-Za-z0-9_.-]*(?:pass(?:word|wd|phrase|code|key|e)?|pwd|pw|secrets?|token|key|auth(?:orization|tok)?|(?<=[_.-])pat|cookie|credentials?|creds|connection[_.-]?strings?(?:__\w+)?|dsn|signature|sig|(?<=(?:jwt|token|cookie|session)[_.-]?)signing|mnemonic|phrase|codes?|verifier|pepper|salt|seed|psk|cvv2?|cvc2?|pin(?:code)?|bearer|(?<=sonar[_.])login)` +
  `(?:[_.-]?(?:${QUALIFIERS}))?)` +
  String.raw`(?<sep>\*{0,2}\\?["']?\]?[ \t]*(?::[ \t]*&?(?:'static[ \t]+)?(?:[A-Z][\w.]*|str|string|number|bigint|any|unknown|bytes|int|float|bool|boolean|char|usize|[iu](?:8|16|32|64|128)|object)(?:<[^<>\n]{0,80}>)?(?:\[\])?(?:[ \t]+=(?![=>])|=(?=[ \t]*\\?["'\x60]))|[?:+]=|=>|[:=])[ \t]*)` +
  String.raw`(?:(?<epre>[fFrRbBuU]{1,2})?\\"(?<edq>(?:[^"\\\n]|\\[^"nr])*)\\"|(?<pre>[fFrRbBuU]{1,2})?"(?<dq>(?:[^"\\\n]|\\.)*)"|(?:[NnEe]|[fFrRbBuU]{1,2})?'(?<sq>(?:[^'\n]|'')*)'|\{(?<br>[^{}"'\n:]{1,200})\}|(?<block>[|>][-+]?[ \t]*(?:\r?\n[ \t]+[^\n]*)+)|` +
  String.raw`(?<bare>\[REDACTED[^\]\n]*\][^\s&;,"'<>)}\]\\]*|%\([\w.]+\)[sdr]|(?![[{\\=\x60(])(?:\$\{\{[^}\n]*\}\}|\$\{[^}\s]*\}|\[REDACTED[^\]\n]*\]|[^\s&;,"'<>)}\]\\]|&(?![\w.[\]-]+=|[a-z]+;|#)|(?<=:[ \t]+[^\s?=&]+(?:&[^\s?&]*)*)&(?![a-z]+;|#)|\\(?![nrt"\\]))+))`;
/**
 * A name is a run of these characters followed by its separator: a word with none after it is
 * passed over at once, instead of each secret word being tried at each of its positions. (Every
 * name of the pattern is such a run, and a separator starts with none of them: the same matches.)
 */
const FOLLOWED_BY_SEPARATOR = String.raw`(?=[A-Za-z0-9_.-]+\*{0,2}\\?["']?\]?\s*(?:[?:+]=|=>|[:=]))`;
// (Not the rule's name in another rule's marker: `[REDACTED:api_key]:x-oauth-basic@…` names nothing.)
const NAMED_VALUE = new RegExp(`(?<![A-Za-z0-9_.-])(?<!\\[REDACTED:)${FOLLOWED_BY_SEPARATOR}${NAMED_VALUE_SOURCE}`, 'gi');
/** The same, also right after a JSON escape (`\npassword=…` in raw JSON text): slower, so only for text with a backslash. */
const NAMED_VALUE_AFTER_ESCAPE = new RegExp(String.raw`(?:(?<![A-Za-z0-9_.-])(?<!\[REDACTED:)|(?<=\\[nrtbf]))${FOLLOWED_BY_SEPARATOR}${NAMED_VALUE_SOURCE}`, 'gi');

/**
 * Values that are not secrets where a secret could stand: literals, a state (`auth: ok`,
 * `password: missing`), code (`= await ...`,
 * `= process.env.X`), placeholders (`$DB_PASSWORD`, `${TOKEN}`, `<token>`, `***`, `%s`,
 * `{{x}}`, GitHub Actions' `${{ secrets.X }}`, `$(command)`, Python's `%(name)s`, cmd's `%API_KEY%`, an
 * option's metavariable (`--secret-key SECRET_KEY`), YAML's null `~`, a redirect (`--with-token < file`),
 * fetch's `credentials: "include"`, YAML tags
 * (`!ENV X`, `!vault`), Terraform's `var.x`, SQL parameters `?`, `$1`, `:name`), types, and the
 * scheme word of an `Authorization` value whose credential another rule took; and what
 * examples write (`your_api_key_here`, `REPLACE_ME`, `changeme`, `sk-...`, `user:password@`, a
 * vendor's prefix with a filler: `sk_live_xxxxxxxx`, `ghp_XXXXXXXX`, `gho_********`); Rust's
 * `NotPresent`, SASL's mechanism names (`AUTH LOGIN`, `AUTH=PLAIN`), masked characters (`••••`),
 * Terraform's `data.x.y.z` and `module.x.y`, Mapbox's public `pk.eyJ…` token.
 */
const PLACEHOLDER =
  /^(?:true|false|null|none|nil|undefined|ok|yes|no|on|off|enabled|disabled|valid|invalid|missing|expired|unset|empty|hidden|n\/a|read|write|read-all|write-all|await|new|this|self|string|number|boolean|required|optional|bearer|basic|token|digest|bot|negotiate|apikey|\*+|x{3,}|\.{3}|\?|\$\d+|:[A-Za-z_]\w*|<[^>]*>|[<>|~]|%[A-Za-z_][A-Za-z0-9_]*%|\$env:[A-Za-z_][A-Za-z0-9_]*|include|omit|same-origin|\$(?:\{[A-Za-z_][\w.:-]*\}|[A-Za-z_][A-Za-z0-9_]*)|%[sd]|%\([\w.]+\)[sdr]|\{\{.*\}\}|\$\{\{.*\}\}|\$\(.*|![A-Za-z][\w-]*(?:[ \t].*)?|op:\/\/\S+|vault:[\w/.-]+(?:#\w+)?|str|int|bytes|float|bool|any|unknown|object|char|password|passwd|pass|secret|change[_-]?me|change[_-]?it|example|notpresent|notunicode|plain|login|cram-md5|digest-md5|scram-sha-(?:1|256|512)(?:-plus)?|xoauth2?|oauthbearer|gssapi|external|anonymous|ntlm|[\u2022\u25CF\u2219\u00B7*]+|(?:data|module)\.[a-z_][\w-]*(?:\.[\w[\]"-]+)+|pk\.eyJ[\w-]+\.[\w-]+|sample|dummy|redacted|placeholder|todo|tbd|your[_-].+|.+[_-]here|replace[_-]?me|.*\.\.\.|[A-Za-z0-9]{1,12}(?:[_-][A-Za-z0-9]{1,8}){0,2}[_-](?:x{6,}|X{6,}|\*{6,})|(?:process\.env|os\.environ|env|config|settings|req|request|input|args|params|options|opts|var|vars|local|secrets|inputs|steps|needs)\b.*)$/i;

/** True when `value` (after a secret name or keyword) is a placeholder, a literal or code, not a secret. */
export function isPlaceholder(value: string): boolean {
  // (Trimmed: a model's token `" secret"` in a logprobs list is the word.)
  const v = value.trim();
  return (PLACEHOLDER.test(v) && !GENERATED_AFTER_DOLLAR.test(v)) || METAVARIABLE.test(v);
}

/** An option's metavariable or an environment variable's name (`SECRET_KEY`): capitals, digits and an underscore, in this case only. */
const METAVARIABLE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+[\])]?$/;

/**
 * A `$` then 10 or more letters of both cases and digits, with a digit before a letter
 * (`$rW6ySP3a9wSp5`): a generated password that starts with `$`, not a variable (`$DB_PASSWORD`,
 * `$password`, `$dbPassword2`).
 */
const GENERATED_AFTER_DOLLAR = /^\$(?=[A-Za-z0-9]{10,}$)(?=.*[a-z])(?=.*[A-Z])(?=.*\d[A-Za-z])/;

/** The text before a name that is inside an ARN. */
const IN_ARN = /\barn:[^\s"']*$/;

/**
 * A value a shape rule already replaced whole (`Bearer [REDACTED…]`). A marker with more after it
 * (a vendor shape that took only the start of `GRAFANA_TOKEN=glc_…-…`) is not: the value goes whole.
 */
const ALREADY_REDACTED = /^(?:Bearer|Basic|Token|Digest|Bot|Negotiate|ApiKey)?\s*\[REDACTED[^\]]*\]$/i;

/** A bare value that is a call or an index (`getpass.getpass(`, `os.Getenv(`, `configuration[`): code, not a secret. */
const CALL = /^[A-Za-z_$][\w$.:]*[([]/;
/**
 * An identifier passed on as a call's named argument or an object's member (`NotionClient(token:
 * notionToken)`, `Client(api_key=settings_key)`, `{ token: userToken }`): camel case, snake case or a
 * member (`self.token`), no digit, and a `)`, `,` or `}` right after it. Code, not a secret.
 */
const IDENTIFIER_ARGUMENT = /^[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][A-Za-z_$]*)*$/;
const CODE_IDENTIFIER = /[a-z][A-Z]|_|\./;
const CLOSES_ARGUMENT = /^[ \t]*[),}]/;
/** A credential and its scope: a date of eight digits after a `/` (or `%2F`). */
const CREDENTIAL_SCOPE = /^(\[REDACTED[^\]\n]*\]|(?:[^/%\s]|%40)+)(?:\/|%2F)\d{8}(?:\/|%2F)/i;
/** Headers whose values the shape rules take apart (token-rules.ts: cookies one by one, an Authorization's scheme kept). */
const HEADER_NAME = /^(?:set-)?cookie$|^(?:proxy-)?authorization$/i;
const COOKIE_NAME = /^(?:set-)?cookie$/i;
/** A PowerShell cmdlet (`$secpasswd = ConvertTo-SecureString "…" -AsPlainText`): a command, its argument looked at by other rules. */
const CMDLET = /^(?:Get|Set|New|Remove|Add|ConvertTo|ConvertFrom|Read|Write|Invoke|Import|Export|Select|Out|Start|Stop|Test|Join|Split|Format|Protect|Unprotect)-[A-Z][A-Za-z]+$/;
/** A constant read from a class or module (`BuildConfig.MAPS_API_KEY`, `Secrets.Stripe.SECRET_KEY`): code, not a secret. */
const CONSTANT = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\.[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;
/** The shell's working directory (`PWD=/app`, `OLDPWD=~/src`), not ODBC's `PWD=<password>`. */
const WORKING_DIRECTORY = /^(?:old)?pwd$/i;
const PATH = /^(?:\/|~(?:\/|$)|[A-Za-z]:[\\/])/;
/** A path to a key, certificate or config file (directories, then a file with such an extension), or any absolute path three deep. */
const CREDENTIAL_FILE = /^(?:~|\.{1,2})?\/(?:[\w.-]+\/)+[\w.-]+\.(?:json|pem|key|crt|cer|p12|pfx|jks|keystore|env|txt|ya?ml|toml|conf|cfg|ini|gpg|asc|der|pub)$|^\/(?:[\w.-]+\/){2,}[\w.-]+$/i;
/** An OpenPGP key's id or fingerprint (git's `user.signingkey=3AA5C34371567BD2`). */
const KEY_ID = /^(?:0x)?(?:[0-9A-F]{8}|[0-9A-F]{16}|[0-9A-F]{40})!?$/i;
/** What `kubectl describe secret` prints for each key: its size (`password:  24 bytes`), not its value. */
const SIZE_ONLY = /^\d+$/;
const BYTES_AFTER = /^[ \t]+bytes\b/;
/** A Python f-string with a field in it (`f"Bearer {token}"`): code, not a secret. */
const FORMAT_FIELD = /\{[A-Za-z_][\w.]*\}/;
/** A password word: its value is never a URL (`Reset your password: https://…?token=…`: the link's own pairs are looked at). */
const PASSWORD_NAME = /(?:pass(?:word|wd)?|pwd)$/i;
const URL_VALUE = /^[a-z][a-z0-9+.-]*:\/\//i;
/** A value that is itself a pair of a connection string (`CONNECTION_STRING=DefaultEndpointsProtocol=https;…`): its pairs are looked at. */
const PAIR_VALUE =
  /^(?:server|data source|address|addr|host|hostname|provider|driver|database|initial catalog|defaultendpointsprotocol|accountname|endpoint|blobendpoint|uid|user id|username|protocol)=/i;
/** A signature header's name, and its value made of pairs (`t=1715682191,v1=…`): no secret name among them, so none is taken. */
const SIGNATURE_NAME = /signature$/i;
const SIGNATURE_PAIRS = /^[a-z]\w{0,15}=[^\s,;]+$/i;
/** A package's version range (`"jsonwebtoken": "^9.0.2"`): a dependency, not a secret. */
const VERSION = /^(?:[~^]|[<>]=?|==?)?\s*v?\d+\.\d+(?:\.\d+)?(?:[-+][\w.]+)?$/;
/**
 * Words that begin prose after a secret word (`password: is required`, `auth: login succeeded`,
 * `token: not found`): with more words after them, a sentence, not a value.
 */
const PROSE_WORD =
  /^(?:is|are|was|were|be|been|must|should|will|would|can|cannot|could|may|might|not|does|did|do|has|have|had|the|a|an|and|or|for|to|of|in|on|at|by|with|from|login|logout|logged|failed|failure|succeeded|success|successful|reset|changed|updated|set|accepted|rejected|denied|granted|too|very|still|also|only|please)$/i;
const MORE_WORDS = /^[ \t]+[A-Za-z]/;
/** A lower-case word with two more after it (`Your password: keep it safe`, `password: expected at least 12`): a sentence. */
const LOWER_WORD = /^[a-z]{2,12}$/;
const TWO_MORE_WORDS = /^[ \t]+[a-z]+[ \t]+[a-z]+\b/;
/** A command's word after a bare `name:` (`rails credentials:edit`, `credentials:show`): a subcommand, not a value. */
const SUBCOMMAND = /^[a-z]{2,10}[`.]?$/;

/**
 * Every `name=value` in `s` whose name is a secret's, with the value replaced by `marker`.
 * The name, the separator and the quotes stay; a number or literal under a quoted name is JSON,
 * so the marker is quoted to keep it valid.
 */
export function replaceNamedValues(s: string, marker: string): string {
  const re = s.includes('\\') ? NAMED_VALUE_AFTER_ESCAPE : NAMED_VALUE;
  re.lastIndex = 0;
  return s.replace(re, (...args) => {
    const match = args[0] as string;
    const g = args[args.length - 1] as Record<string, string | undefined>;
    const name = g.name as string;
    const sep = g.sep as string;
    const value = g.edq ?? g.dq ?? g.sq ?? g.br ?? g.block ?? g.bare ?? '';
    const head = name.length + sep.length;
    const at = args[args.length - 3] as number;
    const whole = args[args.length - 2] as string;
    if (!value || ALREADY_REDACTED.test(value) || isPlaceholder(value)) return match;
    const bare = g.bare !== undefined;
    if (bare && (CALL.test(value) || CONSTANT.test(value) || CMDLET.test(value))) return match;
    // Two characters or fewer (Cargo's `jsonwebtoken = "9"`, a flag's `1`): too short to be a secret.
    if (value.length <= 2) return match;
    // A signed request's credential (SigV4's `Credential=AKIA…/20240514/us-east-1/s3/aws4_request`, a
    // presigned URL's `X-Amz-Credential=…%2F20240514%2F…`, GCS' `x-goog-credential=`): its key id, not the scope.
    const scoped = /credential$/i.test(name) ? CREDENTIAL_SCOPE.exec(value) : null;
    if (scoped) {
      if ((scoped[1] as string).startsWith('[REDACTED')) return match;
      const start = head + match.slice(head).indexOf(value);
      return match.slice(0, start) + marker + match.slice(start + (scoped[1] as string).length);
    }
    // A Cookie or Authorization header (`Cookie: theme=dark; sid=…`): its shape rules replace what in it is a
    // secret; a cookie as a JSON member too (`"cookie": "_ga=…; sid=…"`: the cookie rule reads that form).
    if (bare && HEADER_NAME.test(whole[at - 1] === '\\' ? name.slice(1) : name) && sep.trimEnd().endsWith(':')) return match;
    if (!bare && COOKIE_NAME.test(whole[at - 1] === '\\' ? name.slice(1) : name) && sep.includes(':') && !sep.includes('=')) return match;
    // Ruby's and C++'s scope operator (`ShopifyAPI::Auth::Session.new(`): no separator.
    if (value.startsWith(':') && sep.trimEnd().endsWith(':')) return match;
    // A URL whose user or password another rule took (`SENTRY_DSN=https://[REDACTED…]@…`): taken
    // already. (A token another rule took part of goes whole, the marker with it.)
    if (bare && value.indexOf('[REDACTED') > 0 && URL_VALUE.test(value)) return match;
    // A URL's password another rule took (`https://x-access-token:[REDACTED…]@github.com/…`).
    if (bare && whole.slice(at - 3, at) === '://' && value.startsWith('[REDACTED') && value.includes('@')) return match;
    // Nothing but a name and another rule's marker (`Cookie: session=[REDACTED]`): taken already.
    if (bare && value.includes('[REDACTED') && /^(?:[\w.-]+=)?$/.test(value.replace(/\[REDACTED[^\]\n]*\]/g, ''))) return match;
    const after = whole.slice(at + match.length, at + match.length + 40);
    if (bare && IDENTIFIER_ARGUMENT.test(value) && CODE_IDENTIFIER.test(value) && CLOSES_ARGUMENT.test(after)) return match;
    if (VERSION.test(value)) return match;
    if (bare && PROSE_WORD.test(value) && MORE_WORDS.test(after)) return match;
    if (bare && LOWER_WORD.test(value) && TWO_MORE_WORDS.test(after)) return match;
    if (bare && sep === ':' && SUBCOMMAND.test(value) && !/["']/.test(whole[at - 1] ?? '')) return match;
    // (`ConnectionString: Server=sql01;…` reads like a typed declaration, `name: Type = value`.)
    if (bare && sep.includes(':') && PAIR_VALUE.test(sep.slice(sep.indexOf(':') + 1).trimStart())) return match;
    if (bare && (PAIR_VALUE.test(value) || (URL_VALUE.test(value) && PASSWORD_NAME.test(name)))) {
      return match.slice(0, head) + replaceNamedValues(match.slice(head), marker);
    }
    // A quoted connection string (`connectionString="Endpoint=sb://…;SharedAccessKeyName=…;SharedAccessKey=…"`)
    // and a signature header's parameters (`Stripe-Signature: t=…,v1=…`, `DKIM-Signature: v=1; a=…`): their pairs are looked at.
    if ((!bare && PAIR_VALUE.test(value) && value.includes(';')) || (SIGNATURE_NAME.test(name) && SIGNATURE_PAIRS.test(value) && /[,;]/.test(whole[at + match.length] ?? ''))) {
      const inner = replaceNamedValues(match.slice(head), marker);
      return match.slice(0, head) + inner;
    }
    // A path to the file that holds the credential (`GOOGLE_APPLICATION_CREDENTIALS=/etc/gcp/sa.json`),
    // systemd's `LoadCredential=<id>:<path>`, git's `user.signingkey` (a key's id or its file): where it is, not what.
    if (bare && CREDENTIAL_FILE.test(value)) return match;
    // A credentials file named by its path (`mount -o credentials=/root/.smbcred`), and an ODBC data
    // source's name (`DSN=Warehouse;`: a name, where a URL or a `key=value` string would carry a secret).
    if (bare && ((/cred/i.test(name) && /^(?:~|\.{1,2})?\/[\w.-]+(?:\/[\w.-]+)*$/.test(value)) || (/dsn$/i.test(name) && /^[A-Za-z][\w .-]*$/.test(value)))) return match;
    const ownName = whole[at - 1] === '\\' ? name.slice(1) : name;
    if (/^LoadCredential(?:Encrypted)?$/i.test(ownName) || (/signingkey$/i.test(ownName) && (KEY_ID.test(value) || PATH.test(value)))) return match;
    // (In raw JSON text the name may start at the letter of the escape before it: `\nPWD=/app`.)
    if (WORKING_DIRECTORY.test(whole[at - 1] === '\\' ? name.slice(1) : name) && PATH.test(value)) return match;
    if (/f/i.test(g.pre ?? g.epre ?? '') && FORMAT_FIELD.test(value)) return match;
    // Not a secret's name (`otpauth://totp/x?secret=…`): the pairs in its value are still looked at.
    if (!isSecretName(name)) return value.length > 8 ? match.slice(0, head) + replaceNamedValues(match.slice(head), marker) : match;
    // A part of an ARN (`arn:aws:secretsmanager:…:secret:prod/db`) names a resource, it holds no secret.
    if (g.bare !== undefined && SIZE_ONLY.test(value) && BYTES_AFTER.test(whole.slice(at + match.length, at + match.length + 12))) return match;
    // `=>` pairs a quoted key (PHP's `'password' => '…'`) or a symbol (Ruby's `:password => "…"`)
    // with a quoted value; in code it is a function (`token => token.trim()`).
    if (sep.includes('=>') && !((/^\\?["']/.test(sep) || whole[at - 1] === ':') && (g.edq ?? g.dq ?? g.sq) !== undefined)) return match;
    if (IN_ARN.test(whole.slice(Math.max(0, at - 200), at))) return match;
    const rest = match.slice(head);
    const open =
      g.edq !== undefined || g.dq !== undefined
        ? rest.indexOf('"') + 1
        : g.sq !== undefined
          ? rest.indexOf("'") + 1
          : g.br !== undefined
            ? rest.indexOf('{') + 1
            : 0;
    const q = g.bare === undefined ? '' : sep.startsWith('\\"') ? '\\"' : sep.startsWith('"') ? '"' : '';
    // A URL's user and password (`https://x-access-token:ghp_…@github.com/…`): the password ends at its host.
    const secret = bare && whole.slice(at - 3, at) === '://' && value.includes('@') ? value.slice(0, value.lastIndexOf('@')) : value;
    return match.slice(0, head) + rest.slice(0, open) + q + marker + q + rest.slice(open + secret.length);
  });
}
