/**
 * Secrets recognised by their own form: private keys, vendor tokens and cloud keys, JWTs,
 * webhooks, credentials in URLs and headers, card numbers and IBANs that pass their check.
 */
import { basicCredential, iban, luhn } from './checks.ts';
import { CREDENTIAL_RULES } from './credential-rules.ts';
import { isPlaceholder } from './names.ts';
import { AT, AT_ALNUM, AT_NUMBER, notPlaceholder, re, SAME_COMMAND, type ShapeRule } from './rule-kit.ts';
import { GATED_VENDOR_TOKENS, VENDOR_TOKENS } from './vendor-tokens.ts';

/** Between a key id and its secret: a separator (a CSV's comma, a table's bar, spaces), or the end of one quoted argument and the start of the next. */
const PAIRED = String.raw`(?:\\?["'])?(?:[ \t]*[,;|\t][ \t]*|[ \t]+)(?:\\?["'])?`;

/** Cookies whose every value is a marker already: `a=[REDACTED]; b=[REDACTED:x]`. */
const ONLY_MARKERS = /^(?:[^=;\s]+=\[REDACTED[^\]]*\](?:;\s*|\s*$))+$/;

/**
 * A header's value up to the end of its line or JSON string: not a quote, a backslash (a JSON
 * escape) or a backquote (`Authorization: Bearer eyJ...` quoted in prose); a single quote that does
 * not close code's string, and a parameter's escaped quotes (`token=\"…\"`) inside.
 */
const HEADER_VALUE = String.raw`[^\s"'\\\x60](?:[^\r\n"'\\\x60]|'(?![ \t]*(?:[,;})\]]|$))|(?<==)\\?"[^"\r\n\\]*\\?")*`;

/** A cookie's attributes (Set-Cookie's `Path=/`, `Expires=…`, `HttpOnly`): never a secret. */
const COOKIE_ATTRIBUTE = /^(?:path|expires|max-age|domain|samesite|priority|secure|httponly|partitioned|version|comment)$/i;
/** Cookies that hold a preference or an analytics id: kept whatever their value. */
const PREFERENCE_COOKIE = /^(?:_ga(?:_\w+)?|_gid|_gat\w*|_gcl_\w+|_fbp|_fbc|_hj\w+|ajs_\w+|_pk_\w+|mp_\w+|theme|lang|language|locale|tz|timezone|currency|sidebar\w*|cookie_?consent\w*|consent\w*|dark_?mode)$/i;
/** A cookie named for a session or a credential: its value is a secret whatever its length. */
const CREDENTIAL_COOKIE = /sess|sid|token|auth|jwt|csrf|xsrf|remember|login|key|secret|ident|credential|cred/i;

/**
 * A Cookie or Set-Cookie header's value with the values that can sign someone in replaced: a cookie
 * named for a session or a credential, and any other whose value is 16 characters or more (an id
 * the app made); preferences and analytics ids, short values, empty ones (a deletion) and the
 * attributes stay. A value without `name=` pairs goes whole.
 */
function cookieValues(value: string, marker: string): string {
  if (!value.includes('=')) return marker;
  return value
    .split(/(;[ \t]*)/)
    .map((part) => {
      const eq = part.indexOf('=');
      if (eq <= 0) return part;
      const name = part.slice(0, eq).trim();
      const v = part.slice(eq + 1).trim();
      if (!v || v.startsWith('[REDACTED') || COOKIE_ATTRIBUTE.test(name) || PREFERENCE_COOKIE.test(name) || isPlaceholder(v)) return part;
      if (!CREDENTIAL_COOKIE.test(name) && v.length < 16) return part;
      return `${part.slice(0, eq + 1)}${marker}`;
    })
    .join('');
}

/** Authorization parameters that hold a secret (Digest's `response`, SigV4's `Signature`, OAuth 1's `oauth_signature`). */
const SECRET_PARAMETER = /^(?:response|signature|sig|token|oauth_signature|oauth_token|password|access_token|client_secret|key|mac|credential)$/i;

/**
 * An Authorization header's value with its credential replaced: after its scheme (`Bearer`, `SSWS`,
 * `Digest`, `AWS4-HMAC-SHA256`, …) the token, or, for a scheme with parameters (`Digest
 * username="…", …, response="…"`, `AWS4-HMAC-SHA256 Credential=AKIA…/…, SignedHeaders=…, Signature=…`),
 * the values of the parameters that are secrets (a credential's key id, before its scope); a
 * value with parameters none of which is known goes whole.
 */
function authorizationValue(value: string, marker: string): string {
  // (No scheme, parameters alone: FCM's `Authorization: key=…`.)
  const m = /^([A-Za-z][\w-]*)(\s+)(.+)$/s.exec(value) ?? (/^[\w-]+=/.test(value) ? ['', '', '', value] : null);
  if (m === null) return marker;
  const [, scheme, space, rest] = m as unknown as [string, string, string, string];
  if (!/^[\w-]+=/.test(rest)) return `${scheme}${space}${marker}`;
  let changed = false;
  const out = rest.replace(/([\w-]+)=(\\?"[^"\r\n\\]*\\?"|[^,\s]*)/g, (all, name: string, v: string) => {
    if (!SECRET_PARAMETER.test(name)) return all;
    // (One already replaced, at an inner layer of JSON: the parameters were taken apart there.)
    changed = true;
    if (!v || v.includes('[REDACTED')) return all;
    const q = /^\\?"/.exec(v)?.[0] ?? '';
    const inner = v.slice(q.length, v.length - q.length);
    // A credential's scope (`/20240514/eu-west-1/s3/aws4_request`) is no secret: its key id is.
    const slash = /^credential$/i.test(name) ? inner.indexOf('/') : -1;
    return slash > 0 ? `${name}=${q}${marker}${inner.slice(slash)}${q}` : `${name}=${q}${marker}${q}`;
  });
  return changed ? `${scheme}${space}${out}` : `${scheme}${space}${marker}`;
}

export const TOKEN_RULES: readonly ShapeRule[] = [
  {
    name: 'private_key',
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?=")|$)|-----BEGIN OpenVPN Static key V\d-----[\s\S]*?(?:-----END OpenVPN Static key V\d-----|(?=")|$)|PuTTY-User-Key-File-\d:[\s\S]*?(?:Private-MAC: [0-9a-f]+|(?=")|$)/g,
    gate: ['-----BEGIN ', 'PuTTY-User-Key-File-'],
    // A documentation's block with an elided body (`...`, `…`) holds no key, nor a sentence that names
    // the armor lines (`begin with -----BEGIN … KEY----- and end with …`): a body is base64 lines
    // (and an encrypted key's headers), not words with spaces between them.
    check: (match) => {
      const body = match.replace(/-----(?:BEGIN|END) [A-Za-z0-9 ]*-----/g, '').replace(/\\[nrt]/g, '\n');
      return /[A-Za-z0-9+/=]{40,}/.test(body) || (/[A-Za-z0-9+/=]{4,}/.test(body) && !/\S[ \t]+\S/.test(body.trim()));
    },
  },
  // A minisign secret key: the line after its comment (`untrusted comment: minisign encrypted secret key`).
  {
    name: 'private_key',
    pattern: re(String.raw`minisign (?:encrypted )?secret key[ \t]*(?:\r?\n|(?:\\+r)?\\+n)(?<secret>[A-Za-z0-9+/]{40,}={0,2})`, 'gi'),
    gate: ['minisign'],
  },
  // Wallets, second factors and other credentials that are no vendor token: credential-rules.ts.
  ...CREDENTIAL_RULES,
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
    // (Also as two quoted arguments: `NewStaticCredentialsProvider("AKIA…", "<secret>", "")`.)
    pattern: re(String.raw`${AT}(?:AKIA|ASIA)[A-Z0-9]{16}${PAIRED}(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`),
    gate: ['AKIA', 'ASIA'],
  },
  // Alibaba Cloud's AccessKey secret beside its id (`getProfile("cn-hangzhou", "LTAI…", "<secret>")`).
  {
    name: 'aws_secret_access_key',
    pattern: re(String.raw`${AT}LTAI[A-Za-z0-9]{12,20}${PAIRED}(?<secret>[A-Za-z0-9]{30})(?![A-Za-z0-9])`),
    gate: ['LTAI'],
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
  // X's (Twitter's) app-only bearer token: twenty-odd `A`s, then the token (URL-encoded, `%3D` in it,
  // as its API hands it out). Its own rule: the vendor rules' check refuses a dozen repeats (a filler).
  {
    name: 'api_key',
    pattern: re(String.raw`${AT_ALNUM}A{18,26}[A-Za-z0-9%]{40,}`),
    check: (match) => {
      const tail = match.replace(/^A+/, '');
      return /\d/.test(tail) && /[a-z]/.test(tail) && !/(.)\1{11}/.test(tail);
    },
    gate: ['AAAAAAAAAAAAAAAAAA'],
  },
  // An AWS secret access key after its name and a space, as `aws configure list` or a table prints it
  // (after `=` or `:` the name rule takes it).
  {
    name: 'aws_secret_access_key',
    pattern: re(String.raw`\b(?:aws_?)?secret_?access_?key["']?\s+\\?["']?(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])`, 'gi'),
    gate: ['ecret', 'ECRET'],
  },
  // Slack's incoming webhook: its last part (the workspace's `T…` and the app's `B…` ids before it stay).
  {
    name: 'webhook_url',
    // (PHP's JSON escapes every slash: `hooks.slack.com\/services\/…`.)
    pattern: /hooks\.slack\.com\\*\/services\\*\/T[A-Z0-9]{6,}\\*\/B[A-Z0-9]{6,}\\*\/(?<secret>[A-Za-z0-9]{16,})/g,
    gate: ['hooks.slack.com'],
    // Slack's own example (`T00000000/B00000000/XXXXXXXX…`) is a placeholder.
    check: (match) => !/(.)\1{11}/.test(match),
  },
  // Its other forms (workflow and trigger URLs), the path whole.
  {
    name: 'webhook_url',
    pattern: /hooks\.slack\.com\\*\/(?:services|triggers|workflows)\\*\/(?<secret>(?:[A-Za-z0-9]|\\*\/){20,})(?![A-Za-z0-9/\\[])/g,
    gate: ['hooks.slack.com'],
    check: (match) => !/(.)\1{11}/.test(match),
  },
  // Discord's: the token after the webhook's id.
  {
    name: 'webhook_url',
    pattern: /discord(?:app)?\.com\/api\/webhooks\/[0-9]+\/(?<secret>[A-Za-z0-9_-]{20,})/g,
    gate: ['discord'],
    check: (match) => !/(.)\1{11}/.test(match),
  },
  // Microsoft Teams' incoming webhooks and Zapier's catch hooks: the path is the credential (a Teams
  // URL's tenant and group ids stay: from `IncomingWebhook/` on).
  {
    name: 'webhook_url',
    pattern: /webhook\.office\.com\/webhookb2\/[0-9a-f-]{36}@[0-9a-f-]{36}\/IncomingWebhook\/(?<secret>[^\s"'<>\\]{8,})/g,
    gate: ['webhook.office.com'],
  },
  {
    name: 'webhook_url',
    pattern: /(?:webhook\.office\.com\/webhookb2\/|outlook\.office(?:365)?\.com\/webhook\/|hooks\.zapier\.com\/hooks\/catch\/)(?<secret>[^\s"'<>\\]{8,})/g,
    gate: ['webhook.office.com', 'outlook.office', 'hooks.zapier.com'],
    check: (_, secret) => secret !== undefined && !secret.includes('[REDACTED'),
  },
  // Alchemy's RPC URLs: the key is the path's last part.
  {
    name: 'api_key',
    pattern: /alchemy\.com\/v2\/(?<secret>[A-Za-z0-9_-]{32})(?![A-Za-z0-9_-])/g,
    gate: ['alchemy.com'],
  },
  // Chat and automation webhooks whose path or query is the credential: Mattermost's and Rocket.Chat's
  // `/hooks/<id>[/<token>]` (a letter in it: a numeric hook id is GitHub's API, not a credential),
  // IFTTT's maker key, Feishu and Lark bots, WeCom's `webhook/send?key=`.
  {
    name: 'webhook_url',
    pattern: /\/hooks\/(?<secret>(?=[A-Za-z0-9]{0,60}[A-Za-z])[A-Za-z0-9]{17,}(?:\/[A-Za-z0-9]{20,})?)(?![A-Za-z0-9])/g,
    check: (match) => !/(.)\1{11}/.test(match),
    gate: ['/hooks/'],
  },
  {
    name: 'webhook_url',
    pattern: /(?:maker\.ifttt\.com\/(?:trigger\/[^\s/"'\\]+\/(?:json\/)?with\/key|use)\/|\/open-apis\/bot\/v2\/hook\/|webhook\/send\?key=)(?<secret>[A-Za-z0-9_-]{16,})/g,
    gate: ['ifttt.com', '/bot/v2/hook/', 'webhook/send?key='],
  },
  // After the vendor shapes, so that `token ghp_…` names the key it is. A credential after the
  // scheme has a digit: "Bearer bonds", "Token usage" are English.
  {
    name: 'bearer_token',
    pattern: re(String.raw`${AT}(?:Bearer|bearer|Token)\s+(?<secret>(?=[A-Za-z0-9\-._~+/]*\d)[A-Za-z0-9\-._~+/]{8,}=*)`),
    gate: ['Bearer', 'bearer', 'Token'],
  },
  { name: 'basic_auth', pattern: re(String.raw`${AT}Basic\s+(?<secret>[A-Za-z0-9+/]{8,}={0,2})`), check: basicCredential, gate: ['Basic'] },
  // (The user may be an email address, `@` unencoded: `smtps://alerts@acme.example:<password>@smtp…`; the
  // password too, `builder:Pa55@word@host`, `app:p@ss#Wq7z@db…`: it ends at the last `@` before the
  // host, not at a `#` after the first one.)
  {
    name: 'url_password',
    pattern: re(String.raw`${AT}[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s:/@"']*(?:@[^\s:/@"']*)?:(?<secret>[^\s@/"']+(?:@[^\s@/"'?]+)*)@(?=[^\s@/"']*(?:[/?#\s"'\\]|$))`),
    // (Not a JDBC URL's properties before a password holding `@`: `sqlserver://h:1433;user=app;password=…@…`.)
    check: (_, secret) => notPlaceholder(_, secret) && !/;[\w.-]+=/.test(secret ?? ''),
    gate: ['://'],
  },
  // A token alone as a URL's user (`https://<token>@gem.fury.io/…`, a git remote's `https://<token>@…`):
  // 20 characters or more with letters and digits (a user name is shorter, or a word).
  {
    name: 'url_password',
    // (The scan looks for `://` alone: a letter or digit of the scheme before it.)
    pattern: re(String.raw`(?<=[a-zA-Z0-9]):\/\/(?<secret>(?=[A-Za-z0-9_-]{0,200}\d)(?=[A-Za-z0-9_-]{0,200}[A-Za-z])[A-Za-z0-9_-]{20,200})@`),
    check: notPlaceholder,
    gate: ['://'],
  },
  // A Cookie or Set-Cookie header, up to the end of the line (or of a JSON string): each cookie's value
  // that can sign someone in (cookieValues), its name and the cookie's attributes kept.
  {
    name: 'credential_header',
    // (Also a JSON member, as a devtools "Copy as fetch" writes the headers: `"cookie": "…"`.)
    pattern: re(String.raw`${AT}(?:set-)?cookie(?:\\?")?\s*:\s*(?:'|\\?")?(?!\[REDACTED)(?<secret>${HEADER_VALUE})`, 'gi'),
    check: (_, secret) => secret !== undefined && !isPlaceholder(secret.trim()) && !ONLY_MARKERS.test(secret),
    gate: ['cookie'],
    rewrite: (match, marker) => {
      const at = match.search(/:\s*'?/);
      const head = (/^[^:]*:\s*(?:'|\\?")?/.exec(match) as RegExpExecArray)[0];
      return at < 0 ? match : head + cookieValues(match.slice(head.length), marker);
    },
  },
  // An Authorization header's credential, up to the end of the line (or of a JSON string), its quoted
  // parameters included (`Token token="…"`, Digest's `response="…"`); in code's single quotes
  // (`Authorization: 'token …',`), up to the closing quote. The scheme and the parameters that hold
  // no secret stay (authorizationValue).
  {
    name: 'credential_header',
    pattern: re(String.raw`${AT}(?:proxy-)?authorization\s*:\s*'?(?!(?:[\w-]+\s+)?\[REDACTED)(?<secret>${HEADER_VALUE})`, 'gi'),
    // Code that builds the header (a template literal) and placeholders (`Bearer <token>`, `$TOKEN`) hold none.
    check: (_, secret) =>
      secret !== undefined && !secret.startsWith('`') && !isPlaceholder(secret.replace(/^(?:Bearer|Basic|Token|SSWS)\s+/i, '').trim()),
    gate: ['authorization'],
    rewrite: (match, marker) => {
      const head = (/^[^:]*:\s*'?/.exec(match) as RegExpExecArray)[0];
      return head + authorizationValue(match.slice(head.length), marker);
    },
  },
  // An Azure Functions key in the function's URL (`https://<app>.azurewebsites.net/api/<fn>?code=…`).
  {
    name: 'api_key',
    pattern: re(String.raw`\.azurewebsites\.net\/[^\s"'?#]*\?(?:[^\s"'#]*?&)?code=(?<secret>[A-Za-z0-9_\-/+%]{20,}(?:=|%3D){0,2})`),
    gate: ['azurewebsites.net'],
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
      String.raw`%B(?<secret>(?:4\d{3}|5[0-8]\d{2}|2[2-7]\d{2}|3[47]\d{2}|3[068]\d{2}|35\d{2}|6\d{3})(?:(?:[ -]?\d){9,15}|(?:\.\d{4}){3}(?:\.\d{1,3})?)(?:\^[^^?\n]{0,26}\^\d{4}[0-9 ]*)?)(?!\w|\.\d)`,
    ),
    // The whole track after the number: the holder's name, the expiry and the discretionary data (its check value).
    check: (_, secret) => secret !== undefined && luhn(secret.split('^')[0] as string),
    gate: ['%B'],
  },
  // Printed in groups of four (the last one shorter), the groups apart by a space (also the
  // no-break spaces French and German typography put there), a dash or a dot; or written compact.
  // The country's length and the mod-97 check keep order numbers and product codes of the same
  // form. (Lower case is read after the word IBAN only, below: a branch for it here, where every
  // string is scanned, cost the ordinary payloads' redaction 1.7x.)
  {
    name: 'iban',
    pattern: re(
      String.raw`${AT_ALNUM}(?:[A-Z]{2}\d{2}(?:[A-Z0-9]{11,30}|(?:[ \u00a0\u202f\u2009.-][A-Z0-9]{4}){2,7}(?:[ \u00a0\u202f\u2009.-][A-Z0-9]{1,3})?))(?![A-Za-z0-9])`,
    ),
    check: iban,
  },
  // Any case right after the word IBAN (`iban: de89…`): without the word, a lower-case id of the
  // right length passes mod 97 once in 97.
  {
    name: 'iban',
    pattern: re(String.raw`\biban\b["']?\s*[:=]?\s*["']?(?<secret>[A-Za-z]{2}\d{2}(?:[ \u00a0\u202f\u2009.-]?[A-Za-z0-9]{1,4}){3,9})(?![A-Za-z0-9])`, 'gi'),
    check: (_, secret) => secret !== undefined && iban(secret),
    gate: ['iban', 'IBAN', 'Iban'],
  },
];
