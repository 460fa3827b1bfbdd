/**
 * `@guardtrace/semconv/secret-rules`: the one definition of what a secret is, used by the
 * SDK's sanitizer (before a model or a span sees a value) and the collector's redactor
 * (before anything is stored). Secret names (`password`, `userPassword`, `SECRET_KEY_BASE`,
 * `secret_value`) and secret shapes (vendor tokens, cloud keys, JWTs, private keys, passwords
 * in URLs, log lines and SQL, cards and IBANs that pass their check). Each consumer chooses
 * its marker; the rules and the way they are applied are here. No Node imports.
 */
import { type ShapeRule, START_CONDITIONS } from './shapes.ts';

export { base64Text, mayHoldBase64, replaceBase64 } from './base64.ts';
export { basicCredential, iban, luhn } from './checks.ts';
export { hasSecretWord, isPlaceholder, isSecretName, replaceNamedValues } from './names.ts';
export { SHAPE_RULES, type ShapeRule } from './shapes.ts';

/**
 * Every match of each rule in `s`, in the rules' order, replaced by `marker(rule)`: the whole
 * match, or only its `secret` group when the rule has one. A match whose check fails is kept.
 */
export function replaceShapes(s: string, rules: readonly ShapeRule[], marker: (rule: ShapeRule) => string): string {
  return replaceEach(s, rules, marker, true, (rule) => rule.pattern);
}

/**
 * replaceShapes. `gated`: skip a gated rule whose substrings the string lacks (false: the rules
 * are known to match). `pattern`: the global regex of a rule to run on a string.
 */
function replaceEach(
  s: string,
  rules: readonly ShapeRule[],
  marker: (rule: ShapeRule) => string,
  gated: boolean,
  patternOf: (rule: ShapeRule, s: string) => RegExp,
): string {
  let out = s;
  let lower: string | null = null;
  for (const rule of rules) {
    // A gated rule cannot match a string without one of its substrings (in any case): no pass over it.
    if (rule.when && !rule.when(out)) continue;
    if (gated && rule.gate) {
      lower ??= out.toLowerCase();
      const l = lower;
      if (!rule.gate.some((g) => l.includes(g.toLowerCase()))) continue;
    }
    const pattern = patternOf(rule, out);
    pattern.lastIndex = 0;
    const before = out;
    out = out.replace(pattern, (...args) => {
      const match = args[0] as string;
      const groups = args[args.length - 1] as Record<string, string | undefined> | undefined;
      const secret = typeof groups === 'object' && groups ? groups.secret : undefined;
      // A secret already replaced (by an earlier rule, or at an inner layer of JSON) is not replaced again.
      if (secret?.startsWith('[REDACTED')) return match;
      if (rule.check && !rule.check(match, secret)) return match;
      // A match that ends inside another rule's marker (`admin:[REDACTED` of `admin:[REDACTED KEY]`,
      // whose marker has a space) would leave the marker's tail behind: what it covers is taken already.
      const open = match.lastIndexOf('[REDACTED');
      if (open !== -1 && match.indexOf(']', open) === -1) return match;
      const m = marker(rule);
      if (rule.rewrite) return rule.rewrite(match, m);
      if (secret === undefined) return m;
      const at = match.lastIndexOf(secret);
      // Inside a marker (`https://[REDACTED:api_key]@…` read as `user:password@`): nothing left to take.
      if (insideMarker(match, at)) return match;
      return match.slice(0, at) + m + match.slice(at + secret.length);
    });
    if (out !== before) lower = null;
  }
  return out;
}

/** Whether position `at` of `s` is inside a marker (`[REDACTED…` not yet closed before it). */
function insideMarker(s: string, at: number): boolean {
  const open = s.lastIndexOf('[REDACTED', at);
  if (open === -1 || open >= at) return false;
  const close = s.indexOf(']', open);
  return close === -1 || close >= at;
}

/**
 * The rules that may match a string, in the rules' order (none: it needs no replacement pass).
 * One cheap "could any rule match" test, which most strings fail: the alternation
 * of the ungated rules, each with the plain form of its start condition (one regex of the
 * case-sensitive ones and one of the rest: case-sensitive matching is several times faster, and
 * an alternation of rules that begin with "or right after a JSON escape" lookbehinds scans about
 * twice as slowly), and one scan for the gated rules' substrings. A shape that starts right
 * after an escape (`\nAKIA…` in raw JSON text) is still seen: a string with a backslash is tested
 * a second time with each escape's letter read as a space. The ungated rules pass together
 * (the alternation does not tell which matched), a gated rule when one of its substrings is there.
 */
function shapeCandidates(rules: readonly ShapeRule[]): (s: string, first: boolean) => ShapeRule[] {
  // Named groups are renamed away: two rules may use the same name.
  const plain = (source: string) => simpleStarts(source).replace(/\(\?<([A-Za-z][A-Za-z0-9]*)>/g, '(');
  const one = (rs: readonly ShapeRule[], flags: string) => new RegExp(rs.map((r) => `(?:${plain(r.pattern.source)})`).join('|'), flags);
  const order = new Map(rules.map((r, i) => [r, i]));
  const alone = new Map(rules.map((r) => [r, new RegExp(r.pattern.source, r.pattern.flags.replace('g', ''))]));
  // On a string without a backslash no "right after a JSON escape" can hold: the simple start
  // conditions find the same matches, about twice as fast.
  const aloneSimple = new Map(rules.map((r) => [r, new RegExp(simpleStarts(r.pattern.source), r.pattern.flags.replace('g', ''))]));
  const scanned = rules.filter((r) => !r.gate);
  const exact = scanned.filter((r) => !r.pattern.ignoreCase);
  const folded = scanned.filter((r) => r.pattern.ignoreCase);
  const any = [...(exact.length ? [one(exact, '')] : []), ...(folded.length ? [one(folded, 'i')] : [])];
  // Gated rules: one scan for all their substrings, then only the rules of the substrings found.
  // The scan steps one character past each match, so a substring that starts inside another
  // (`pass` in `sp_password`) is found too, and every substring starting where a match starts
  // is looked up. Looked up lower-cased (one case of each substring: a shorter alternation), so a
  // rule is tried when its substring appears in any case: more often than needed, never less.
  const byGate = new Map<string, ShapeRule[]>();
  for (const r of rules) {
    if (!r.gate) continue;
    for (const g of new Set(r.gate.map((x) => x.toLowerCase()))) byGate.set(g, [...(byGate.get(g) ?? []), r]);
  }
  const gates = [...byGate.keys()];
  const gate = gates.length ? new RegExp(gates.map((g) => g.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')).join('|'), 'g') : null;
  // The substrings by their first two characters (a one-character one by it): at a match, only those that could start there.
  // With each, its rules (the one-character substring's own under that character).
  const byStart = new Map<string, [string, readonly ShapeRule[]][]>();
  for (const g of gates) byStart.set(g.slice(0, 2), [...(byStart.get(g.slice(0, 2)) ?? []), [g, byGate.get(g) as ShapeRule[]]]);
  const gated = (lower: string, into: Set<ShapeRule>) => {
    if (!gate) return;
    gate.lastIndex = 0;
    for (let m = gate.exec(lower); m !== null; m = gate.exec(lower)) {
      const at = m.index;
      for (const here of [byStart.get(lower.slice(at, at + 2)), byStart.get(lower[at] as string)]) {
        if (here === undefined) continue;
        for (const [g, rs] of here) if (lower.startsWith(g, at)) for (const r of rs) into.add(r);
      }
      gate.lastIndex = at + 1;
    }
  };
  // With escapes, again as if decoded: each escape's letter a space, an escaped quote (at any
  // depth of JSON in JSON: `\\\"`) a quote.
  const decoded = (s: string) => {
    const t = s.replace(ESCAPE_LETTER, '\\ ');
    return t.includes('\\"') ? t.replace(ESCAPED_QUOTE, '"') : t;
  };
  const test = (s: string) => any.some((re) => re.test(s));
  // `first` (the pre-check's question, asked of raw text that is decoded later): the first rule
  // that matches, in the string or in its escapes read as a space. Else every rule that passed the
  // cheap tests, for replaceShapes to run (a pass of one that does not match finds nothing, and
  // costs what testing it first would).
  const find = (s: string, first: boolean): ShapeRule[] => {
    const escaped = s.includes('\\');
    const forms = escaped ? [s, decoded(s)] : [s];
    const tried = new Set<ShapeRule>();
    if (forms.some(test)) for (const r of scanned) tried.add(r);
    for (const f of first ? forms : [s]) gated(f.toLowerCase(), tried);
    const found: ShapeRule[] = [];
    for (const r of tried) {
      if (r.when && !r.when(s)) continue;
      if (first) {
        const re = (escaped ? alone : aloneSimple).get(r) as RegExp;
        if (forms.some((f) => re.test(f))) return [r];
      } else found.push(r);
    }
    return found.length > 1 ? found.sort((a, b) => (order.get(a) as number) - (order.get(b) as number)) : found;
  };
  return find;
}

/** Whether any rule matches a string (shapeCandidates, stopping at the first): a string it rejects needs no replaceShapes. */
export function shapePrecheck(rules: readonly ShapeRule[]): (s: string) => boolean {
  const find = shapeCandidates(rules);
  return (s) => find(s, true).length > 0;
}

/**
 * What replaceShapes makes of a string with every rule (the same text), found faster: only the
 * rules that may match it (shapeCandidates) make a pass over it, with the simple start conditions
 * when it has no backslash.
 */
export function shapeRedactor(rules: readonly ShapeRule[], marker: (rule: ShapeRule) => string): (s: string) => string {
  const find = shapeCandidates(rules);
  const simple = new Map(rules.map((r) => [r, new RegExp(simpleStarts(r.pattern.source), r.pattern.flags)]));
  const patternOf = (rule: ShapeRule, s: string) => (s.includes('\\') ? rule.pattern : (simple.get(rule) ?? rule.pattern));
  return (s) => {
    const found = find(s, false);
    return found.length === 0 ? s : replaceEach(s, found, marker, false, patternOf);
  };
}

/** A rule's source with each start condition in its simple form (without "or right after a JSON escape"). */
function simpleStarts(source: string): string {
  let out = source;
  for (const [full, simple] of START_CONDITIONS) out = out.replaceAll(full, simple);
  return out;
}

/** An encoding a secret's name or quotes can hide behind that no JSON literal undoes. */
const ENCODED = /\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\'|&(?:quot|apos|amp|#x?[0-9a-fA-F]{1,6});|%(?:3[dDaA]|2[26cCfF]|27|40)/;

/** One encoded character or run: `\u0022`, `\x73` (JS, Python, C), `\'`, an HTML entity (named or numeric), a run of `%XX`. */
const ENCODED_TOKEN = /\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|\\'|&(quot|apos|lt|gt|amp|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});|(?:%[0-9a-fA-F]{2})+/gi;
const ENTITIES: Record<string, string> = { quot: '"', apos: "'", lt: '<', gt: '>', amp: '&' };

/** The character of a named or numeric HTML entity's name (`quot`, `#34`, `#x22`), or undefined. */
function entity(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (!lower.startsWith('#')) return ENTITIES[lower];
  const code = lower[1] === 'x' ? Number.parseInt(lower.slice(2), 16) : Number.parseInt(lower.slice(1), 10);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

/**
 * `s` decoded for a second look, or null when it holds no such encoding: `\u0022`-style escapes
 * outside a JSON string literal, Python's `\'`, HTML entities, URL encoding (`%3D`, `%26`); with,
 * for each decoded character, where its encoded form starts and ends in `s` (passDecoded puts
 * back only what a pass changed).
 */
function decodedForm(s: string): { text: string; starts: number[]; ends: number[] } | null {
  if (!hasEncoding(s)) return null;
  let text = '';
  const starts: number[] = [];
  const ends: number[] = [];
  const add = (chars: string, from: number, to: number) => {
    text += chars;
    for (let k = 0; k < chars.length; k++) {
      starts.push(from);
      ends.push(to);
    }
  };
  let last = 0;
  ENCODED_TOKEN.lastIndex = 0;
  for (let m = ENCODED_TOKEN.exec(s); m !== null; m = ENCODED_TOKEN.exec(s)) {
    for (let k = last; k < m.index; k++) add(s[k] as string, k, k + 1);
    const end = m.index + m[0].length;
    let chars: string;
    if (m[1] !== undefined) chars = String.fromCharCode(Number.parseInt(m[1], 16));
    else if (m[2] !== undefined) chars = String.fromCharCode(Number.parseInt(m[2], 16));
    else if (m[0] === "\\'") chars = "'";
    else if (m[3] !== undefined) chars = entity(m[3]) ?? m[0];
    else {
      try {
        chars = decodeURIComponent(m[0]);
      } catch {
        chars = m[0];
      }
    }
    if (chars === m[0]) for (let k = m.index; k < end; k++) add(s[k] as string, k, k + 1);
    else add(chars, m.index, end);
    last = end;
  }
  for (let k = last; k < s.length; k++) add(s[k] as string, k, k + 1);
  if (text === s) return null;
  // What no stored text can hold, decoded from `\u0000`, `%00` or half a surrogate pair: U+FFFD, as
  // the collector's decoding writes it (the decoded text may be what is kept). One for one.
  return { text: text.replace(UNSTORABLE, '\uFFFD'), starts, ends };
}

/** NUL and a lone surrogate. */
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Whether `s` holds one of those encodings: a JSON string literal that does is worth decoding. */
export function hasEncoding(s: string): boolean {
  // Most strings have none of the three characters: three scans for one are faster than the regex.
  return (s.includes('\\') || s.includes('&') || s.includes('%')) && ENCODED.test(s);
}

/**
 * A JSON object or array: decoding it whole would put quotes inside its strings. Its string
 * literals are each decoded and looked at instead (the consumers' JSON passes), and written back
 * as JSON.
 */
function isJsonDocument(s: string): boolean {
  const t = s.trim();
  const first = t[0];
  const last = t[t.length - 1];
  if (!((first === '{' && last === '}') || (first === '[' && last === ']'))) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

/**
 * A secret behind one of those encodings (`{\u0022password\u0022: \u0022…\u0022}`,
 * `&quot;token&quot;: …`, `user%3Dbob%26password%3D…`): when `pass` changes the decoded text, the
 * part it changed is put back in place of its encoded form (decoded, the secret replaced); the text
 * before and after it keeps its encoding (`q=password%3D…&lang=en` keeps its `%3D` up to the secret).
 * Else `s` as it was.
 */
export function passDecoded(s: string, pass: (decoded: string) => string): string {
  const decoded = decodedForm(s);
  if (decoded === null || isJsonDocument(s)) return s;
  const { text, starts, ends } = decoded;
  const out = pass(text);
  if (out === text) return s;
  // The changed part: what the decoded text and the output do not share at either end.
  let p = 0;
  while (p < text.length && p < out.length && text[p] === out[p]) p++;
  let e = text.length;
  let oe = out.length;
  while (e > p && oe > p && text[e - 1] === out[oe - 1]) {
    e--;
    oe--;
  }
  // Whole encoded tokens only: a run of `%XX` that decoded to several characters goes as one.
  while (p > 0 && p < text.length && starts[p - 1] === starts[p]) p--;
  while (e > 0 && e < text.length && starts[e] === starts[e - 1]) {
    e++;
    oe++;
  }
  const from = p < text.length ? (starts[p] as number) : s.length;
  const to = e > p ? (ends[e - 1] as number) : from;
  return s.slice(0, from) + out.slice(p, oe) + s.slice(to);
}

/** The letter of a JSON escape that a shape may follow (`\n`, `\r`, `\t`, `\b`, `\f`). */
const ESCAPE_LETTER = /\\[nrtbf]/g;
/** A double quote escaped once or more (JSON in a JSON string: `\\\"`). */
const ESCAPED_QUOTE = /\\+"/g;
