/**
 * Feedback sanitizer: the model treats everything in a tool result as context, so secrets,
 * internal topology, stack traces and reflected instruction-like text never reach it.
 */

export interface SanitizeOptions {
  /** Extra hostname suffixes that count as internal (default: .internal .local .lan .corp .intranet .svc .cluster.local). */
  internalSuffixes?: string[];
  /** Longest text kept, in characters (default 4000: a feedback message, not a log dump). */
  maxLength?: number;
}

const DEFAULT_SUFFIXES = ['internal', 'local', 'lan', 'corp', 'intranet', 'svc', 'cluster.local', 'home.arpa'];

/**
 * A pattern's leading `\b` also matches right after a JSON escape (`\n`, `\r`, `\t`, ...): in
 * the text `\nAKIA…` both `n` and `A` are word characters, so a plain `\b` sees no boundary.
 */
function afterEscape(re: RegExp): RegExp {
  return new RegExp(re.source.replace(/^\\b/, '(?:\\b|(?<=\\\\[nrtbf]))'), re.flags);
}

const PRIVATE_KEY =
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)|PuTTY-User-Key-File-\d:[\s\S]*?(Private-MAC: [0-9a-f]+|$)/g;
const BEARER = afterEscape(/\b(Bearer|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi);
/** `Basic` + base64 of `user:password` (so "Basic information" is kept). */
const BASIC = afterEscape(/\b(Basic)\s+([A-Za-z0-9+/]{8,}={0,2})/g);
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^:/?#\s@]*):[^@/\s]+@/gi;
const JWT = afterEscape(/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g);
/** Cookie headers: the whole value, to the end of the line. */
const COOKIE_HEADER = afterEscape(/\b((?:set-)?cookie\s*:\s*)[^\r\n"\\]+/gi);
/** Card numbers of the major issuers, plain, spaced or dashed (kept unless the Luhn check passes). */
const CARD = afterEscape(
  /\b(?:4\d{3}|5[1-5]\d{2}|2[2-7]\d{2}|3[47]\d{2}|3[068]\d{2}|35\d{2}|6(?:011|5\d{2}|4[4-9]\d|2\d{2}))(?:[ -]?\d){9,15}(?!\w|\.\d)/g,
);
/** Vendor key shapes, recognisable by prefix and length: LLM providers, clouds, code hosts, chat, payments. */
const VENDOR_KEYS = [
  /\bsk-(?:ant-(?:api|admin|sid)\d\d-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}/g,
  /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}\b/g,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g,
  /\b(?:gl(?:pat|dt|rt|ptt|ft|cbt|oas)-|GR1348941)[A-Za-z0-9_-]{20,}/g,
  /\bxox[abposre]-[A-Za-z0-9-]{10,}\b/g,
  /\bxapp-\d-[A-Za-z0-9-]{20,}/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g,
  /\b(?:whsec_[A-Za-z0-9+/=]{24,}|GOCSPX-[A-Za-z0-9_-]{20,}|ya29\.[A-Za-z0-9_-]{20,})/g,
  /\b(?:hf_[A-Za-z0-9]{30,}|gsk_[A-Za-z0-9]{40,}|r8_[A-Za-z0-9]{30,}|pplx-[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{60,})/g,
  /\b(?:npm_[A-Za-z0-9]{36}|pypi-AgE[A-Za-z0-9_-]{50,}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|SK[0-9a-f]{32}|key-[0-9a-f]{32})/g,
  /\b(?:shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}|lin_api_[A-Za-z0-9]{40}|ntn_[A-Za-z0-9]{40,}|PMAK-[a-f0-9]{24}-[a-f0-9]{34})/g,
  /\b(?:glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2}|NRAK-[A-Z0-9]{27}|sq0(?:atp|csp)-[A-Za-z0-9_-]{22,})/g,
  /\b(?:sk\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}|AGE-SECRET-KEY-1[0-9A-Z]{58}|do[por]_v1_[a-f0-9]{64}|hv[sb]\.[A-Za-z0-9_-]{24,})/g,
  /\b(?:[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}|pul-[a-f0-9]{40}|dp\.(?:st|ct|sa|scim|audit)\.[A-Za-z0-9_.-]{40,}|fo1_[A-Za-z0-9_-]{40,})/g,
  /\b(?:tskey-[a-z]+-[A-Za-z0-9]{8,}-[A-Za-z0-9]{20,}|sbp_[a-f0-9]{40}|dapi[a-f0-9]{32}|dckr_pat_[A-Za-z0-9_-]{27,}|gt_[A-Za-z0-9_-]{30,})/g,
  // Discord bot token, Azure AD client secret, Slack and Discord webhooks
  /\b(?:[MN][A-Za-z0-9]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}|[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34})/g,
  /\bhooks\.slack\.com\/services\/[A-Za-z0-9/]{20,}|\bdiscord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]{20,}/g,
].map(afterEscape);
/** A Telegram bot token (`123456789:AA…`): replaced before `Token <value>` could take its first half. */
const TELEGRAM = afterEscape(/\b\d{8,10}:AA[A-Za-z0-9_-]{33}/g);
/**
 * A name whose value is a secret: tested on the name lower-cased without separators, so
 * `userPassword`, `user_password` and `X-User-Password` all end in `password`. It must end in
 * the word: `input_tokens`, `password_policy` and `tokenizer` are kept.
 */
const SECRET_NAME =
  /(?:password|passwd|passphrase|pwd|(?:^|smtp|db|user|admin|root|mail)pass|secret|(?<!page|next|continuation|cursor|sync|max)token|apikey|(?:access|secret|private|account|signing|encryption|master|subscription|license)key|authorization|^auth|cookie|credentials?|connectionstring|dsn|signature|^sig)$/;
const isSecretName = (name: string) => SECRET_NAME.test(name.toLowerCase().replace(/[^a-z0-9]/g, ''));
/** `name=value`, `name: value`, `"name": "value"` (also JSON-escaped); the name is checked with isSecretName. */
const NAMED_VALUE = afterEscape(
  /\b([A-Za-z0-9_.-]*(?:pass(?:word|wd|phrase)?|pwd|secret|token|key|auth(?:orization)?|cookie|credentials?|dsn|string|signature|sig))(\\?["']?\s*[:=]\s*)(\\"(?:[^"\\\n]|\\[^"])*\\"|"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|(?![[{\\])[^\s&;,"'<>)}\]]+)/gi,
);
/** Values after a secret name that are not secrets: literals, code, placeholders, types. */
const NOT_A_VALUE =
  /^(?:true|false|null|none|nil|undefined|await|new|this|self|string|number|boolean|required|optional|bearer|basic|token|digest|bot|negotiate|apikey|\*+|x{3,}|\.{3}|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[sd]|\{\{.*\}\}|(?:process\.env|os\.environ|env|config|settings|req|request|input|args|params|options|opts)\b.*)$/i;

function luhn(s: string): boolean {
  const digits = s.replace(/[ -]/g, '');
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return digits.length >= 13 && sum % 10 === 0;
}

/** base64 that decodes to `user:password`. */
function isBasicCredential(b64: string): boolean {
  try {
    return atob(b64).includes(':');
  } catch {
    return false;
  }
}

const PRIVATE_IPV4 = afterEscape(
  /\b(?:10\.\d{1,3}\.\d{1,3}\.\d{1,3}|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|192\.168\.\d{1,3}\.\d{1,3}|172\.(?:1[6-9]|2\d|3[01])\.\d{1,3}\.\d{1,3}|169\.254\.\d{1,3}\.\d{1,3})(?::\d+)?\b/g,
);
const PRIVATE_IPV6 = /\b(?:fd[0-9a-f]{2}|fe80):[0-9a-f:]+/gi;
const STACK_LINE = /^\s*(?:at\s+.+(?:\(.*:\d+(?::\d+)?\)|\S+:\d+:\d+)|File ".+", line \d+.*|Traceback \(most recent call last\):)\s*$/;
const INSTRUCTION_LIKE = [
  /\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:previous|prior|above|earlier|all|your|system)\b.{0,20}\b(?:instructions?|prompts?|rules|messages?)/i,
  /\byou are now\b/i,
  /\b(?:new|updated|real) (?:system )?instructions?\s*:/i,
  /\bsystem prompt\b/i,
  /<\|(?:im_start|im_end|system|endoftext)\|>/i,
  /^\s*#{2,}\s*(?:system|instruction)/i,
  /\b(?:assistant|AI|model)\s*(?:must|should)\s+(?:now\s+)?(?:call|run|execute|send|transfer|email)\b/i,
].map(afterEscape);

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const hostCache = new Map<string, RegExp>();
function internalHostRe(extra: string[] | undefined): RegExp {
  const cacheKey = (extra ?? []).join(',');
  let re = hostCache.get(cacheKey);
  if (!re) {
    const suffixes = [...DEFAULT_SUFFIXES, ...(extra ?? [])].map((s) => escapeRe(s.replace(/^\./, '')));
    re = afterEscape(new RegExp(`\\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\\.)+(?:${suffixes.join('|')})(?::\\d+)?\\b`, 'gi'));
    hostCache.set(cacheKey, re);
  }
  return re;
}

/**
 * One cheap pass that every sensitive pattern below needs to match: text without any of these
 * fragments (most tool arguments) skips the full sanitizer. Kept deliberately broad.
 */
const MAYBE_SENSITIVE =
  /-----BEGIN|PuTTY|bearer|basic|token|:\/\/|eyJ|sk-|AKIA|ASIA|ABIA|ACCA|A3T|gh[pousr]_|github_pat|gl[a-z]{2,3}[-_]|GR1348941|xox|xapp-|AIza|_live_|_test_|key|secret|pass|pwd|credential|cookie|auth|dsn|sig|\d{4}[ -]?\d{4,6}[ -]?\d{4}|:AA|whsec_|GOCSPX-|ya29\.|hf_|gsk_|r8_|pplx-|xai-|npm_|pypi-|SG\.|SK[0-9a-f]{8}|shp[a-z]{2}_|lin_api_|ntn_|PMAK-|NRAK-|sq0|sk\.eyJ|_v1_|hv[sb]\.|atlasv1|pul-|dp\.|fo1_|tskey-|sbp_|dapi|dckr_pat_|gt_|Q~|[MN][A-Za-z0-9]{23,25}\.|\b(?:10|127|192|172|169)\.\d|f[de][0-9a-f]{2}:|\.(?:internal|local|lan|corp|intranet|svc|arpa)\b|\bat\s|File "|Traceback|ignore|disregard|forget|override|you are now|instruction|system|<\||##|assistant|\bAI\b|model|\\u[0-9a-f]{4}/i;

/** A JSON string literal; group 2 is empty when the text ends inside it (e.g. cut by a length limit). */
const JSON_STRING = /"((?:[^"\\\r\n]|\\.)*)("|\\?$)/g;
const JSON_ESCAPE = /\\(?:[nrtbf"\\/]|u[0-9a-fA-F]{4})/;
/** Layers of JSON-in-a-JSON-string decoded (a serialized argument inside a serialized message is two). */
const MAX_JSON_DEPTH = 3;

/**
 * Sanitizes the decoded content of every JSON string literal with escapes, and writes it back
 * escaped: secrets and instruction-like lines hidden behind `\n`, `\r\n`, `\uXXXX` or escaped
 * quotes are seen as the model will read them, and the JSON stays valid.
 */
function sanitizeJsonStrings(text: string, depth: number, clean: (decoded: string, depth: number) => string): string {
  if (depth >= MAX_JSON_DEPTH || !text.includes('\\')) return text;
  return text.replace(JSON_STRING, (lit, body: string, close: string) => {
    if (!JSON_ESCAPE.test(body)) return lit;
    let decoded: unknown;
    try {
      decoded = JSON.parse(`"${body}"`);
    } catch {
      return lit; // a literal cut inside an escape: the plain pass still sees it
    }
    if (typeof decoded !== 'string') return lit;
    const cleaned = clean(decoded, depth + 1);
    if (cleaned === decoded) return lit;
    const encoded = JSON.stringify(cleaned);
    return close === '"' ? encoded : encoded.slice(0, -1);
  });
}

/** Returns `text` with secrets, internal hosts/IPs, stack traces and instruction-like lines removed. */
export function sanitizeFeedback(text: string, options: SanitizeOptions = {}): string {
  const max = options.maxLength ?? 4000;
  const extraHosts = options.internalSuffixes !== undefined && options.internalSuffixes.length > 0;
  if (!extraHosts && !MAYBE_SENSITIVE.test(text)) {
    return text.length > max ? `${text.slice(0, max)}\n[truncated ${text.length - max} characters]` : text;
  }
  const out = sanitizeText(text, options, 0);
  return out.length > max ? `${out.slice(0, max)}\n[truncated ${out.length - max} characters]` : out;
}

/** The secret patterns only: keys, tokens, passwords, cards (no length limit, nothing else removed). */
function secretPass(text: string): string {
  let out = text.replace(PRIVATE_KEY, '[REDACTED PRIVATE KEY]');
  out = out.replace(URL_PASSWORD, '$1:[REDACTED]@');
  out = out.replace(TELEGRAM, '[REDACTED KEY]');
  out = out.replace(BEARER, '$1 [REDACTED]');
  out = out.replace(JWT, '[REDACTED TOKEN]');
  for (const re of VENDOR_KEYS) out = out.replace(re, '[REDACTED KEY]');
  out = out.replace(BASIC, (m, scheme: string, b64: string) => (isBasicCredential(b64) ? `${scheme} [REDACTED]` : m));
  out = out.replace(COOKIE_HEADER, '$1[REDACTED]');
  out = out.replace(CARD, (m) => (luhn(m) ? '[REDACTED CARD]' : m));
  return out.replace(NAMED_VALUE, (m, name: string, sep: string, quoted: string) => {
    const q = quoted.startsWith('\\"') ? '\\"' : quoted[0] === '"' || quoted[0] === "'" ? (quoted[0] as string) : '';
    const value = quoted.slice(q.length, quoted.length - q.length);
    if (!value || value.includes('[REDACTED') || NOT_A_VALUE.test(value) || !isSecretName(name)) return m;
    // A number after a quoted name is JSON: the marker is quoted to keep it valid.
    const wrap = q || (sep.startsWith('\\"') ? '\\"' : sep.startsWith('"') ? '"' : '');
    return `${name}${sep}${wrap}[REDACTED]${wrap}`;
  });
}

function redactText(text: string, depth: number): string {
  return secretPass(sanitizeJsonStrings(text, depth, redactText));
}

/**
 * Redacts secrets (the same patterns as `sanitizeFeedback`, inside JSON strings too) from a
 * successful result before it enters the model's context. Strings are redacted; arrays and
 * plain objects are copied with their strings redacted; the caller's value is not changed.
 * Unlike feedback, a result is not cut to a length or stripped of other text.
 */
export function redactSecrets<T>(value: T): T {
  return redactValue(value, 0) as T;
}

function redactValue(v: unknown, depth: number): unknown {
  if (typeof v === 'string') return MAYBE_SENSITIVE.test(v) ? redactText(v, 0) : v;
  // 64 levels: deeper values are data no model context holds; past it they pass as they are
  if (depth > 64 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => redactValue(x, depth + 1));
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const red = redactValue(x, depth + 1);
    // A secret's name: its value goes whole, unless a pattern already took the secret out of
    // it (`Bearer [REDACTED]`); a map under the name is searched part by part.
    const named = isSecretName(k) && (typeof x === 'number' || (typeof x === 'string' && red === x));
    out[k] = named ? '[REDACTED]' : red;
  }
  return out;
}

function sanitizeText(text: string, options: SanitizeOptions, depth: number): string {
  const internalHost = internalHostRe(options.internalSuffixes);
  let out = secretPass(sanitizeJsonStrings(text, depth, (t, d) => sanitizeText(t, options, d)));
  out = out.replace(PRIVATE_IPV4, '[internal-address]').replace(PRIVATE_IPV6, '[internal-address]');
  out = out.replace(internalHost, '[internal-host]');
  const lines: string[] = [];
  let inStack = false;
  for (const line of out.split('\n')) {
    if (STACK_LINE.test(line)) {
      if (!inStack) lines.push('[stack trace removed]');
      inStack = true;
      continue;
    }
    inStack = false;
    if (INSTRUCTION_LIKE.some((re) => re.test(line))) {
      lines.push('[removed instruction-like text from tool output]');
      continue;
    }
    lines.push(line);
  }
  return lines.join('\n');
}
