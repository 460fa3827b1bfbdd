/**
 * Redaction before storage. Two kinds of rules: attribute keys whose whole value is secret
 * (`*.password`, `http.request.header.authorization`) and value patterns found inside any
 * string (bearer tokens, API keys, AWS keys, private keys, passwords in URLs). What is
 * removed is replaced by a visible marker, `[REDACTED:<rule>]`, never dropped silently.
 */
import type { AttrValue, Attributes, NormSpan } from './span.ts';

export interface ValueRule {
  name: string;
  /** Global regex; a named group `secret` limits the replacement to that part of the match. */
  pattern: RegExp;
}

export interface RedactionOptions {
  /** Keep the built-in rules (default true). */
  defaults?: boolean;
  /** Extra attribute-key patterns (matched against the full key). */
  keyPatterns?: RegExp[];
  /** Extra value patterns. */
  valueRules?: ValueRule[];
}

export const DEFAULT_KEY_PATTERN =
  /(?:^|[._-])(?:password|passwd|pwd|secret|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|authorization|proxy[_-]authorization|cookie|set[_-]cookie|session[_-]?token|access[_-]?token|refresh[_-]?token|auth[_-]?token|id[_-]?token|client[_-]?secret|credentials?)$/i;

export const DEFAULT_VALUE_RULES: ValueRule[] = [
  { name: 'private_key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g },
  { name: 'bearer_token', pattern: /\bBearer\s+(?<secret>[A-Za-z0-9\-._~+/]{8,}=*)/gi },
  { name: 'basic_auth', pattern: /\bBasic\s+(?<secret>[A-Za-z0-9+/]{12,}={0,2})/g },
  { name: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g },
  { name: 'aws_access_key_id', pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g },
  {
    name: 'aws_secret_access_key',
    pattern: /(?:aws_secret_access_key|aws_secret_key|secret_access_key)["']?\s*[:=]\s*["']?(?<secret>[A-Za-z0-9/+=]{40})/gi,
  },
  {
    name: 'api_key',
    pattern:
      /\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|xox[abposr]-[A-Za-z0-9-]{10,}|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|AIza[0-9A-Za-z_-]{35}|glpat-[A-Za-z0-9_-]{20,}|gt_[A-Za-z0-9_-]{30,})/g,
  },
  { name: 'url_password', pattern: /\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s:/@]+:(?<secret>[^\s@/]+)@/g },
  {
    name: 'credential_param',
    pattern: /\b(?:password|passwd|pwd|api[_-]?key|apikey|client_secret|access_token|refresh_token)=(?<secret>[^&\s"'#]+)/gi,
  },
];

// Strings shorter than this cannot hold any default secret; skipping them keeps ingest fast.
const MIN_SECRET_CHARS = 8;

export class Redactor {
  private readonly keyPatterns: RegExp[];
  private readonly rules: ValueRule[];
  /** One case-insensitive alternation of every rule: a cheap "could anything match" pre-check. */
  private readonly any: RegExp | null;

  constructor(opts: RedactionOptions = {}) {
    const defaults = opts.defaults !== false;
    this.keyPatterns = [...(defaults ? [DEFAULT_KEY_PATTERN] : []), ...(opts.keyPatterns ?? [])];
    this.rules = [...(defaults ? DEFAULT_VALUE_RULES : []), ...(opts.valueRules ?? [])].map((r) => ({
      name: r.name,
      pattern: r.pattern.global ? r.pattern : new RegExp(r.pattern.source, `${r.pattern.flags}g`),
    }));
    this.any = this.rules.length
      ? new RegExp(this.rules.map((r) => `(?:${r.pattern.source.replace(/\(\?<secret>/g, '(')})`).join('|'), 'i')
      : null;
  }

  /** Redact a span in place: attributes, resource, events, links, status message. */
  span(span: NormSpan, seenResources?: WeakSet<object>): void {
    this.attributes(span.attributes);
    if (!seenResources?.has(span.resource)) {
      this.attributes(span.resource);
      seenResources?.add(span.resource);
    }
    for (const e of span.events) {
      this.attributes(e.attributes);
      e.name = this.text(e.name);
    }
    for (const l of span.links) this.attributes(l.attributes);
    if (span.statusMessage) span.statusMessage = this.text(span.statusMessage);
    span.name = this.text(span.name);
  }

  attributes(attrs: Attributes): void {
    for (const key of Object.keys(attrs)) {
      const v = attrs[key] as AttrValue;
      if (v === null || typeof v === 'boolean') continue;
      if (this.keyPatterns.some((p) => p.test(key))) {
        attrs[key] = '[REDACTED:sensitive_key]';
      } else {
        attrs[key] = this.value(v);
      }
    }
  }

  private value(v: AttrValue): AttrValue {
    if (typeof v === 'string') return this.text(v);
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (v !== null && typeof v === 'object') {
      this.attributes(v);
      return v;
    }
    return v;
  }

  /** A string with every value-rule match replaced by its marker. */
  text(s: string): string {
    if (s.length < MIN_SECRET_CHARS || !this.any || !this.any.test(s)) return s;
    let out = s;
    for (const rule of this.rules) {
      rule.pattern.lastIndex = 0;
      out = out.replace(rule.pattern, (...args) => {
        const match = args[0] as string;
        const groups = args[args.length - 1] as Record<string, string | undefined> | undefined;
        const secret = typeof groups === 'object' && groups ? groups.secret : undefined;
        const marker = `[REDACTED:${rule.name}]`;
        if (secret === undefined) return marker;
        const at = match.lastIndexOf(secret);
        return match.slice(0, at) + marker + match.slice(at + secret.length);
      });
    }
    return out;
  }
}
