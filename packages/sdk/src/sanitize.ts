/**
 * Feedback sanitizer: the model treats everything in a tool result as context, so secrets,
 * internal topology, stack traces and reflected instruction-like text never reach it. What a
 * secret is (names and shapes) is `@guardtrace/semconv/secret-rules`, shared with the collector.
 */

import {
  hasEncoding,
  hasSecretWord,
  isSecretName,
  mayHoldBase64,
  passDecoded,
  replaceBase64,
  replaceNamedValues,
  SHAPE_RULES,
  type ShapeRule,
  shapePrecheck,
  shapeRedactor,
} from '@guardtrace/semconv/secret-rules';

export interface SanitizeOptions {
  /** Extra hostname suffixes that count as internal (default: .internal .local .lan .corp .intranet .svc .cluster.local). */
  internalSuffixes?: string[];
  /** Longest text kept, in characters (default 4000: a feedback message, not a log dump). */
  maxLength?: number;
}

const DEFAULT_SUFFIXES = ['internal', 'local', 'lan', 'corp', 'intranet', 'svc', 'cluster.local', 'home.arpa'];

/** Marks the SDK writes where a shape was: the model reads them, so they say what was there. */
const SHAPE_MARKS: Record<string, string> = {
  private_key: '[REDACTED PRIVATE KEY]',
  jwt: '[REDACTED TOKEN]',
  card_number: '[REDACTED CARD]',
  iban: '[REDACTED IBAN]',
};
/** A rule with a `secret` group keeps its context (`Bearer [REDACTED]`, `postgres://u:[REDACTED]@h`); other matches are keys. */
const MARKS = new Map(SHAPE_RULES.map((r) => [r, SHAPE_MARKS[r.name] ?? (r.pattern.source.includes('(?<secret>') ? '[REDACTED]' : '[REDACTED KEY]')]));
const shapeMark = (rule: ShapeRule) => MARKS.get(rule) ?? '[REDACTED]';
const mayHoldShape = shapePrecheck(SHAPE_RULES);
const redactShapes = shapeRedactor(SHAPE_RULES, shapeMark);

/**
 * A pattern's leading `\b` also matches right after a JSON escape (`\n`, `\r`, `\t`, ...): in
 * the text `\nAKIA…` both `n` and `A` are word characters, so a plain `\b` sees no boundary.
 */
function afterEscape(re: RegExp): RegExp {
  return new RegExp(re.source.replace(/^\\b/, '(?:\\b|(?<=\\\\[nrtbf]))'), re.flags);
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
 * Cheap passes before the full one: a secret needs a shape, or a secret name meeting its value
 * at `:` or `=`; a `\uXXXX` or `\xNN` escape, `\'`, an HTML entity, URL encoding or base64 may spell either (hasEncoding, the rules' own test). The
 * rest of what feedback loses (internal hosts and addresses, stack traces, instruction-like text)
 * has its own fragments.
 */
const mayHoldSecret = (text: string) =>
  mayHoldShape(text) ||
  ((text.includes(':') || text.includes('=')) && hasSecretWord(text)) ||
  hasEncoding(text) ||
  mayHoldBase64(text);
const MAYBE_OTHER =
  /\b(?:10|127|192|172|169)\.\d|f[de][0-9a-f]{2}:|\.(?:internal|local|lan|corp|intranet|svc|arpa)\b|\bat\s|File "|Traceback|ignore|disregard|forget|override|you are now|instruction|system|<\||##|assistant|\bAI\b|model/i;

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
  if (depth >= MAX_JSON_DEPTH || (!text.includes('\\') && !hasEncoding(text))) return text;
  return text.replace(JSON_STRING, (lit, body: string, close: string) => {
    if (!JSON_ESCAPE.test(body) && !hasEncoding(body)) return lit;
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
  if (!extraHosts && !MAYBE_OTHER.test(text) && !mayHoldSecret(text)) {
    return text.length > max ? `${text.slice(0, max)}\n[truncated ${text.length - max} characters]` : text;
  }
  const out = sanitizeText(text, options, 0);
  return out.length > max ? `${out.slice(0, max)}\n[truncated ${out.length - max} characters]` : out;
}

/**
 * The secret rules only (@guardtrace/semconv/secret-rules): shapes, then secret names' values;
 * then the text decoded once more when it holds `\u0022`, `\'`, `&quot;` or `%3D` (returned
 * decoded when that held a secret).
 */
function secretPass(text: string): string {
  return passDecoded(plainSecretPass(text), plainSecretPass);
}

function plainSecretPass(text: string): string {
  const out = redactShapes(text);
  return hasSecretWord(out) ? replaceNamedValues(out, '[REDACTED]') : out;
}

function redactText(text: string, depth: number): string {
  return base64Pass(secretPass(sanitizeJsonStrings(text, depth, redactText)), depth);
}

/**
 * Base64 whose text holds a secret (a whole string, a JSON value, a data URI, a `base64 -d` pipe),
 * replaced whole, as the collector does: the same reading (@guardtrace/semconv/secret-rules).
 */
function base64Pass(text: string, depth: number): string {
  return depth < MAX_JSON_DEPTH ? replaceBase64(text, (decoded) => redactText(decoded, depth + 1), '[REDACTED]') : text;
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
  if (typeof v === 'string') return mayHoldSecret(v) ? redactText(v, 0) : v;
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
  let out = base64Pass(secretPass(sanitizeJsonStrings(text, depth, (t, d) => sanitizeText(t, options, d))), depth);
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
