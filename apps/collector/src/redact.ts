/**
 * Redaction before storage. Three kinds of rules: names whose value is secret (attribute keys,
 * JSON keys, query parameters, config lines: `password`, `userPassword`, `api_token`,
 * `Authorization`, `SECRET_KEY_BASE`), value shapes found inside any string (vendor tokens,
 * cloud keys, JWTs, private keys, passwords in URLs, log lines and SQL, Luhn-valid card numbers,
 * IBANs), and decoding: JSON text escaped inside a JSON string (up to 3 layers) and base64
 * text (how OTLP carries `bytesValue`; also a JSON value, a data URI or a `base64 -d` pipe inside a
 * longer string) are read as what they encode. What is removed is
 * replaced by a visible marker, `[REDACTED:<rule>]`, never dropped silently. The names and
 * shapes are `@guardtrace/semconv/secret-rules`, the same rules the SDK's sanitizer applies.
 */
import { hasEncoding, hasSecretWord, isSecretName, passDecoded, replaceBase64, replaceNamedValues, SHAPE_RULES, type ShapeRule, shapeRedactor } from '@guardtrace/semconv/secret-rules';
import type { AttrValue, Attributes, NormSpan } from './span.ts';

/** A value rule: the built-in shapes, and those `GUARDTRACE_REDACT_VALUES` adds. */
export type ValueRule = ShapeRule;

export interface RedactionOptions {
  /** Keep the built-in rules (default true). */
  defaults?: boolean;
  /** Extra attribute-key patterns (matched against the full key). */
  keyPatterns?: RegExp[];
  /** Extra value patterns. */
  valueRules?: ValueRule[];
}

// Strings shorter than this cannot hold any default secret; skipping them keeps ingest fast.
const MIN_SECRET_CHARS = 8;
/** Layers of encoding looked through (JSON in a JSON string, base64 of either). */
const MAX_DEPTH = 3;
const SECRET_NAME_MARKER = '[REDACTED:sensitive_key]';
const marker = (rule: ValueRule) => `[REDACTED:${rule.name}]`;
/**
 * Each JSON string literal of `s` (the quotes included), left to right, replaced by `fn`'s answer.
 * A scan, not a regex: `/"(?:[^"\\]|\\.)*"/g` tries again from every quote of an unterminated
 * literal, each time to the end of the text (60 KB of `\\\"` took 0.6 s). An unterminated literal
 * ends the scan: what follows is no JSON string the decoding could read.
 */
function replaceJsonLiterals(s: string, fn: (literal: string) => string): string {
  let out = '';
  let from = 0;
  for (let open = s.indexOf('"'); open !== -1; open = s.indexOf('"', from)) {
    let i = open + 1;
    while (i < s.length && s[i] !== '"') i += s[i] === '\\' ? 2 : 1;
    if (i >= s.length) break;
    out += s.slice(from, open) + fn(s.slice(open, i + 1));
    from = i + 1;
  }
  return from === 0 ? s : out + s.slice(from);
}
/**
 * What one request's spans share while they are redacted: the resources already done, and the
 * answers for strings already redacted. Within a request the same values recur in every span (a
 * session id, tool and agent names, statuses, a system prompt): each is redacted once. Bounded, so
 * a request of distinct long strings holds no more than MEMO_CHARS of them twice.
 */
export class RedactionScope {
  readonly resources = new WeakSet<object>();
  readonly memo = new Map<string, string>();
  chars = 0;
}
/** Strings longer than this are redacted each time (a long string seldom recurs whole). */
const MEMO_MAX_STRING = 4096;
/** The characters a scope's memo may hold (keys), ~0.5 MB at most with their answers. */
const MEMO_CHARS = 256 * 1024;

export class Redactor {
  private readonly keyPatterns: RegExp[];
  private readonly defaults: boolean;
  private readonly rules: ValueRule[];
  /** The shapes replaced: only the rules that match a string make a pass over it (most strings need none). */
  private readonly shapes: (s: string) => string;

  constructor(opts: RedactionOptions = {}) {
    this.defaults = opts.defaults !== false;
    this.keyPatterns = opts.keyPatterns ?? [];
    this.rules = [...(this.defaults ? SHAPE_RULES : []), ...(opts.valueRules ?? [])].map((r) => ({
      ...r,
      pattern: r.pattern.global ? r.pattern : new RegExp(r.pattern.source, `${r.pattern.flags}g`),
    }));
    this.shapes = shapeRedactor(this.rules, marker);
  }

  /** The scope in effect during a synchronous span() or attributes() call (null: none). */
  private scope: RedactionScope | null = null;

  /**
   * Redact a span in place: attributes, resource, events, links, names, status message. The
   * spans of one request share a `scope` (a resource is done once, a recurring string once).
   */
  span(span: NormSpan, scope?: RedactionScope): void {
    this.scope = scope ?? null;
    try {
      this.attributesIn(span.attributes);
      if (!scope?.resources.has(span.resource)) {
        this.attributesIn(span.resource);
        scope?.resources.add(span.resource);
      }
      for (const e of span.events) {
        this.attributesIn(e.attributes);
        e.name = this.remembered(e.name);
      }
      for (const l of span.links) this.attributesIn(l.attributes);
      if (span.statusMessage) span.statusMessage = this.remembered(span.statusMessage);
      span.name = this.remembered(span.name);
      if (span.scopeName) span.scopeName = this.remembered(span.scopeName);
    } finally {
      this.scope = null;
    }
  }

  /** Redact attributes in place (`scope`: as span()'s). */
  attributes(attrs: Attributes, scope?: RedactionScope): void {
    if (scope === undefined) {
      this.attributesIn(attrs);
      return;
    }
    this.scope = scope;
    try {
      this.attributesIn(attrs);
    } finally {
      this.scope = null;
    }
  }

  private attributesIn(attrs: Attributes): void {
    for (const key of Object.keys(attrs)) {
      const v = attrs[key] as AttrValue;
      if (v === null || typeof v === 'boolean') continue;
      attrs[key] = this.secretName(key) ? this.wholly(v) : this.value(v);
    }
  }

  private secretName(name: string): boolean {
    return (this.defaults && isSecretName(name)) || this.keyPatterns.some((p) => p.test(name));
  }

  /** The value of a secret name: replaced, except the parts of a map (each has its own name). */
  private wholly(v: AttrValue): AttrValue {
    if (Array.isArray(v)) return v.map((x) => this.wholly(x));
    if (v !== null && typeof v === 'object') {
      this.attributesIn(v);
      return v;
    }
    return v === null || typeof v === 'boolean' ? v : SECRET_NAME_MARKER;
  }

  private value(v: AttrValue): AttrValue {
    if (typeof v === 'string') return this.remembered(v);
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (v !== null && typeof v === 'object') {
      this.attributesIn(v);
      return v;
    }
    return v;
  }

  /** text(s), or its answer from earlier in the scope (the same string, the same answer). */
  private remembered(s: string): string {
    const scope = this.scope;
    if (scope === null || s.length < MIN_SECRET_CHARS || s.length > MEMO_MAX_STRING) return this.text(s);
    const known = scope.memo.get(s);
    if (known !== undefined) return known;
    const out = this.text(s);
    if (scope.chars + s.length <= MEMO_CHARS) {
      scope.memo.set(s, out);
      scope.chars += s.length;
    }
    return out;
  }

  /** A string with every secret in it replaced by its marker. */
  text(s: string, depth = 0): string {
    if (s.length < MIN_SECRET_CHARS) return s;
    let out = s;
    const encoded = hasEncoding(out);
    if (depth < MAX_DEPTH && (encoded || out.includes('\\'))) out = this.escapedJson(out, depth);
    out = this.plain(out);
    // Behind `\u0022`, `\'`, `&quot;` or `%3D`: looked at decoded (returned decoded when it held one).
    if (encoded) out = passDecoded(out, (decoded) => this.plain(decoded));
    // Base64 (bytesValue, an encoded file, a data URI, a `base64 -d` pipe) whose text holds a secret: replaced whole.
    if (depth < MAX_DEPTH) out = replaceBase64(out, (decoded) => this.text(decoded, depth + 1), '[REDACTED:encoded_secret]');
    return out;
  }

  /** The shapes, then the names' values (a name meets its value at `=` or `:`: strings with neither skip that pass). */
  private plain(s: string): string {
    const out = this.shapes(s);
    return this.defaults && (out.includes('=') || out.includes(':')) && hasSecretWord(out) ? replaceNamedValues(out, SECRET_NAME_MARKER) : out;
  }

  /** JSON string literals with escapes or encodings, decoded, redacted and written back when changed. */
  private escapedJson(s: string, depth: number): string {
    return replaceJsonLiterals(s, (lit) => {
      if (!lit.includes('\\') && !hasEncoding(lit)) return lit;
      let decoded: unknown;
      try {
        decoded = JSON.parse(lit);
      } catch {
        return lit; // not a JSON literal after all: the plain passes still see it
      }
      if (typeof decoded !== 'string') return lit;
      const cleaned = this.text(decoded, depth + 1);
      return cleaned === decoded ? lit : JSON.stringify(cleaned);
    });
  }
}
