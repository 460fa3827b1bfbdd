/**
 * The built-in redaction rules: which names hold secrets, and the shapes of secrets found by
 * their form anywhere in a string. Written for this collector rather than taken from a
 * secret-scanning package: see docs/collector.md#redaction for the measurement behind it.
 */

export interface ValueRule {
  name: string;
  /** Global regex; a named group `secret` limits the replacement to that part of the match. */
  pattern: RegExp;
  /** A second look at a match (e.g. the Luhn check of a card number): false keeps it. */
  check?: (match: string) => boolean;
}

/**
 * A name whose value is a secret, tested on the name lower-cased with everything but letters
 * and digits removed (`userPassword`, `user_password`, `X-User-Password` all end in
 * `password`). The name must end in the word: `input_tokens` and `password_policy` are kept.
 */
const SECRET_NAME =
  /(?:password|passwd|passphrase|pwd|(?:^|smtp|db|user|admin|root|mail)pass|secret|(?<!page|next|continuation|cursor|sync|max)token|apikey|(?:access|secret|private|account|signing|encryption|master|subscription|license)key|authorization|^auth|cookie|credentials?|connectionstring|dsn|signature|^sig)$/;

const nameCache = new Map<string, boolean>();

/** True when `name` (an attribute key, a JSON key, a query parameter) names a secret. */
export function isSecretName(name: string): boolean {
  let hit = nameCache.get(name);
  if (hit === undefined) {
    hit = SECRET_NAME.test(name.toLowerCase().replace(/[^a-z0-9]/g, ''));
    // Names repeat across spans: remember them, up to a bound (any name is allowed in).
    if (nameCache.size > 50_000) nameCache.clear();
    nameCache.set(name, hit);
  }
  return hit;
}

const SECRET_WORDS = ['pass', 'pwd', 'secret', 'token', 'key', 'auth', 'cookie', 'credential', 'dsn', 'sig'];

/**
 * Whether `s` holds any of the words a secret name ends in: strings without one skip the
 * name-based pass. (Lower-casing once and searching for each word is several times faster
 * than one case-insensitive alternation.)
 */
export function hasSecretWord(s: string): boolean {
  const lower = s.toLowerCase();
  for (const w of SECRET_WORDS) if (lower.includes(w)) return true;
  return false;
}

/** The Luhn check of the digits of `s` (separators ignored). */
function luhn(s: string): boolean {
  const digits = s.replace(/[ -]/g, '');
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** A `Basic` credential is base64 of `user:password`. */
function basicCredential(match: string): boolean {
  const b = match.replace(/^Basic\s+/i, '');
  return Buffer.from(b, 'base64').toString('latin1').includes(':');
}

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

export const DEFAULT_VALUE_RULES: ValueRule[] = [
  {
    name: 'private_key',
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?=")|$)|PuTTY-User-Key-File-\d:[\s\S]*?(?:Private-MAC: [0-9a-f]+|(?=")|$)/g,
  },
  { name: 'bearer_token', pattern: /\b(?:Bearer|Token)\s+(?<secret>(?=[A-Za-z0-9\-._~+/]*\d)[A-Za-z0-9\-._~+/]{8,}=*)/g },
  { name: 'basic_auth', pattern: /\bBasic\s+(?<secret>[A-Za-z0-9+/]{8,}={0,2})/g, check: basicCredential },
  { name: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g },
  { name: 'aws_access_key_id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|A3T[A-Z0-9])[A-Z0-9]{16}\b/g },
  { name: 'api_key', pattern: new RegExp(`(?<![A-Za-z0-9])(?:${VENDOR_TOKENS.join('|')})`, 'g') },
  { name: 'webhook_url', pattern: /hooks\.slack\.com\/services\/(?<secret>[A-Za-z0-9/]{20,})|discord(?:app)?\.com\/api\/webhooks\/[0-9]+\/[A-Za-z0-9_-]{20,}/g },
  { name: 'telegram_bot_token', pattern: /\b\d{8,10}:AA[A-Za-z0-9_-]{33}/g },
  { name: 'url_password', pattern: /\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s:/@"']*:(?<secret>[^\s@/"']+)@/g },
  // A header whose whole value is a credential, up to the end of the line (or of a JSON string).
  {
    name: 'credential_header',
    pattern:
      /\b(?:(?:set-)?cookie\s*:\s*|(?:proxy-)?authorization\s*:\s*(?!(?:\w+\s+)?\[REDACTED)(?:(?:Bearer|Basic|Token|Digest|Bot|Negotiate|ApiKey)\s+)?)(?!\[REDACTED)(?<secret>[^\s"\\][^\r\n"\\]*)/gi,
  },
  {
    name: 'card_number',
    pattern: /(?<![\w.-])(?:4\d{3}|5[1-5]\d{2}|2[2-7]\d{2}|3[47]\d{2}|3[068]\d{2}|35\d{2}|6(?:011|5\d{2}|4[4-9]\d|2\d{2}))(?:[ -]?\d){9,15}(?!\w|\.\d)/g,
    check: luhn,
  },
];

/**
 * `name=value`, `name: value`, `"name": "value"`: the value of a secret name in free text
 * (query strings, config lines, headers, JSON). The name is checked with isSecretName; a value
 * that opens an object or array is left to the pass over its own parts.
 */
export const NAMED_VALUE =
  /(?<![A-Za-z0-9_.-])(?<name>[A-Za-z0-9_.-]*(?:pass(?:word|wd|phrase)?|pwd|secret|token|key|auth(?:orization)?|cookie|credentials?|dsn|signature|sig))(?<sep>\\?["']?\s*[:=]\s*)(?:\\"(?<edq>(?:[^"\\\n]|\\[^"])*)\\"|"(?<dq>(?:[^"\\\n]|\\.)*)"|'(?<sq>[^'\n]*)'|(?<bare>(?![[{\\])[^\s&;,"'<>)}\]]+))/gi;
