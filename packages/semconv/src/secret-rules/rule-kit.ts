/**
 * What every shape rule is made of: the rule's form, where a shape may start and end, and the
 * pieces several families of rules share (a quoted value, a command line's value, the checks that
 * keep placeholders). The rules themselves: token-rules.ts, text-rules.ts, command-line-rules.ts,
 * config-rules.ts; their order: shapes.ts.
 */
import { isPlaceholder } from './names.ts';

export interface ShapeRule {
  name: string;
  /** Global regex; a named group `secret` limits the replacement to that part of the match. */
  pattern: RegExp;
  /** A second look at a match (e.g. the Luhn check of a card number): false keeps it. */
  check?: (match: string, secret: string | undefined) => boolean;
  /**
   * Substrings one of which every match contains, in any case (a rule with `when`: which every string
   * it is tried on contains, there or in the match): the "could anything match" pre-check
   * (index.ts) tries the rule alone, only on a string holding one, instead of adding it to the
   * alternation every string is scanned with (rules that begin with a lookbehind or a common
   * character slow that scan down for every string).
   */
  gate?: readonly string[];
  /**
   * What a match becomes, when neither the whole match nor one group is the secret (a SQL
   * INSERT's value under a password column): the match with its secret parts replaced by `marker`.
   */
  rewrite?: (match: string, marker: string) => string;
  /**
   * A condition on the whole string, looked at once before the rule is tried (a Secret's data
   * block is one only in a manifest of `kind: Secret`): false, and the rule makes no pass.
   */
  when?: (s: string) => boolean;
}

/**
 * Where a shape may start: not inside a word, or right after a JSON escape (`\n`, `\t`, ...):
 * in the raw text `\nAKIA…` both `n` and `A` are word characters.
 */
export const AT = String.raw`(?:\b|(?<=\\[nrtbf]))`;
/** The same, also after `_` (`key_ghp_…`), as vendor prefixes start mid-identifier. */
export const AT_ALNUM = String.raw`(?:(?<![A-Za-z0-9])|(?<=\\[nrtbf]))`;
/** Where a card number may start: not after a word character, a dot, a dash (`v1.4111…`) or a slash (a path's id: `gid://shopify/ProductVariant/6236…`). */
export const AT_NUMBER = String.raw`(?:(?<![\w./-])|(?<=\\[nrtbf]))`;
/** Where a command-line option may start: not inside a word or another option (`--no-pass…`). */
export const AT_OPTION = String.raw`(?:(?<![\w-])|(?<=\\[nrtbf]))`;
/**
 * The start conditions above, each with its plain form (the same without "right after a JSON
 * escape"): the "could anything match" pre-check (index.ts) uses the plain forms, which scan
 * about twice as fast, and reads escapes as spaces instead.
 */
export const START_CONDITIONS: readonly (readonly [string, string])[] = [
  [AT, String.raw`\b`],
  [AT_ALNUM, '(?<![A-Za-z0-9])'],
  [AT_NUMBER, String.raw`(?<![\w./-])`],
];
/** The start of a line: of the string, after a newline, or in raw JSON text after a quote or a `\n` escape. */
export const LINE_START = String.raw`(?<=^|[\n"]|\\n)`;
/** The end of a line, the same way (in raw JSON text escaped once or more: `\n`, `\\n`, `\"`). */
export const LINE_END = String.raw`(?=[ \t]*(?:\r?\n|$|\\*"|\\+[rn]))`;
/**
 * A quoted value after a keyword: the quote is consumed, the group `secret` is what it encloses.
 * SQL's forms too: `N'…'` and `E'…'`, a quote doubled inside (`'it''s'`), Postgres' `$$…$$`.
 */
export const QUOTED = String.raw`(?:(?:[NnEe](?='))?\\?['"]|\$\w{0,20}\$)(?<secret>(?<=')(?:[^'\n]|'')+(?=')|(?<=")[^"\n\\]+(?=\\?")|(?<=\$)[^$\n]+(?=\$))`;

/** The value after a password keyword in a log line or SQL is a secret unless it is a placeholder. */
export const notPlaceholder = (_: string, secret: string | undefined) => secret === undefined || !isPlaceholder(secret);

/**
 * A value in prose that reads as generated (a password, a token), not as a word, a date, an id
 * of a resource or an address: `min` characters or more, letters and digits both, and not a
 * placeholder, a time stamp, an ARN or a URL.
 */
export function looksGenerated(v: string, min: number): boolean {
  return (
    v.length >= min &&
    /[A-Za-z]/.test(v) &&
    /\d/.test(v) &&
    !isPlaceholder(v) &&
    !/^\d{4}-\d\d-\d\d/.test(v) &&
    !/^(?:arn|https?|s3|gs|file|urn):/i.test(v)
  );
}

export const re = (source: string, flags = 'g') => new RegExp(source, flags);

/**
 * A password given on a command line, what an agent's shell tool runs: the value after an
 * option (quoted, or up to the next space). A value starting with `-` is the next option.
 */
/** A character of an unquoted value: not a space, a quote, or a JSON escape (`\n`, `\"`) in raw JSON text. */
export const BARE = String.raw`(?:[^\s'"\\]|\\(?![nrtbf"\\]))`;
/** Up to 200 characters of the same command: a `\`-continued line goes on, `|`, `;`, `&` end it. */
export const SAME_COMMAND = String.raw`(?:\\\r?\n|[^\n|;&]){0,200}?`;
export const CLI_VALUE = String.raw`(?:\\?['"])?(?<secret>(?<=')[^'\n]+(?=')|(?<=")[^"\n\\]+(?=\\?")|(?<!['"])(?!-)${BARE}+)`;
