/**
 * Secrets recognised by their own form: private keys, vendor tokens and cloud keys, JWTs,
 * webhooks, credentials in URLs and headers, card numbers and IBANs that pass their check.
 */
import { basicCredential, iban, luhn } from './checks.ts';
import { isPlaceholder } from './names.ts';
import { AT, AT_ALNUM, AT_NUMBER, notPlaceholder, re, type ShapeRule } from './rule-kit.ts';
import { GATED_VENDOR_TOKENS, VENDOR_TOKENS } from './vendor-tokens.ts';

/** Cookies whose every value is a marker already: `a=[REDACTED]; b=[REDACTED:x]`. */
const ONLY_MARKERS = /^(?:[^=;\s]+=\[REDACTED[^\]]*\](?:;\s*|\s*$))+$/;

export const TOKEN_RULES: readonly ShapeRule[] = [
  {
    name: 'private_key',
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?=")|$)|PuTTY-User-Key-File-\d:[\s\S]*?(?:Private-MAC: [0-9a-f]+|(?=")|$)/g,
    gate: ['-----BEGIN ', 'PuTTY-User-Key-File-'],
    // A documentation's block with an elided body (`...`, `…`) holds no key.
    check: (match) => /[A-Za-z0-9+/=]{4,}/.test(match.replace(/-----(?:BEGIN|END) [A-Z0-9 ]*-----/g, '').replace(/\\[nrt]/g, ' ')),
  },
  // A minisign secret key: the line after its comment (`untrusted comment: minisign encrypted secret key`).
  {
    name: 'private_key',
    pattern: re(String.raw`minisign (?:encrypted )?secret key[ \t]*(?:\r?\n|(?:\\+r)?\\+n)(?<secret>[A-Za-z0-9+/]{40,}={0,2})`, 'gi'),
    gate: ['minisign'],
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
    // (PHP's JSON escapes every slash: `hooks.slack.com\/services\/…`.)
    pattern: /hooks\.slack\.com\\*\/(?:services|triggers|workflows)\\*\/(?<secret>(?:[A-Za-z0-9]|\\*\/){20,})|discord(?:app)?\.com\/api\/webhooks\/[0-9]+\/[A-Za-z0-9_-]{20,}/g,
    gate: ['hooks.slack.com', 'discord'],
    // Slack's own example (`T00000000/B00000000/XXXXXXXX…`) is a placeholder.
    check: (match) => !/(.)\1{11}/.test(match),
  },
  // Microsoft Teams' incoming webhooks and Zapier's catch hooks: the path is the credential.
  {
    name: 'webhook_url',
    pattern: /(?:webhook\.office\.com\/webhookb2\/|outlook\.office(?:365)?\.com\/webhook\/|hooks\.zapier\.com\/hooks\/catch\/)(?<secret>[^\s"'<>\\]{8,})/g,
    gate: ['webhook.office.com', 'outlook.office', 'hooks.zapier.com'],
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
  // (The user may be an email address, `@` unencoded: `smtps://alerts@acme.example:<password>@smtp…`.)
  { name: 'url_password', pattern: re(String.raw`${AT}[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s:/@"']*(?:@[^\s:/@"']*)?:(?<secret>[^\s@/"']+)@`), check: notPlaceholder, gate: ['://'] },
  // A token alone as a URL's user (`https://<token>@gem.fury.io/…`, a git remote's `https://<token>@…`):
  // 20 characters or more with letters and digits (a user name is shorter, or a word).
  {
    name: 'url_password',
    // (The scan looks for `://` alone: a letter or digit of the scheme before it.)
    pattern: re(String.raw`(?<=[a-zA-Z0-9]):\/\/(?<secret>(?=[A-Za-z0-9_-]{0,200}\d)(?=[A-Za-z0-9_-]{0,200}[A-Za-z])[A-Za-z0-9_-]{20,200})@`),
    check: notPlaceholder,
    gate: ['://'],
  },
  // A header whose whole value is a credential, up to the end of the line (or of a JSON string),
  // its quoted parameters included (`Token token="…"`, Digest's `response="…"`); in code's single
  // quotes (`Authorization: 'token …',`), up to the closing quote.
  {
    name: 'credential_header',
    pattern: re(
      String.raw`${AT}(?:(?:set-)?cookie\s*:\s*'?|(?:proxy-)?authorization\s*:\s*'?(?!(?:\w+\s+)?\[REDACTED)(?:(?:Bearer|Basic|Token|Digest|Bot|Negotiate|ApiKey)\s+)?)(?!\[REDACTED)(?<secret>[^\s"'\\](?:[^\r\n"'\\]|'(?![ \t]*(?:[,;})\]]|$))|(?<==)\\?"[^"\r\n\\]*\\?")*)`,
      'gi',
    ),
    // Code that builds the header (a template literal), placeholders (`Bearer <token>`, `$TOKEN`) and
    // cookies whose values are all markers already (`session=[REDACTED]`) hold none.
    check: (_, secret) =>
      secret !== undefined &&
      !secret.startsWith('`') &&
      !isPlaceholder(secret.replace(/^(?:Bearer|Basic|Token)\s+/i, '').trim()) &&
      !ONLY_MARKERS.test(secret),
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
];
