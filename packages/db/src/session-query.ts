import { BUDGET_REASONS, type BudgetReason, DECISIONS, type Decision, FAILURE_CLASSES, type FailureClass, SESSION_OUTCOMES, type SessionOutcome } from '@guardtrace/semconv';

/**
 * The sessions explorer's query language (`/sessions?q=...`): space-separated `key:value`
 * filters and free text, e.g. `class:invalid_arguments tool:read_file attempts:>2 user:u_17 timeout`.
 * Values with spaces are quoted (`tool:"read file"`); so is free text with a colon in it.
 * Other pages link here with this form: keep it stable. Shared by the web app and the collector
 * (`POST /v1/datasets`); turned into SQL by session-filter.ts. No Node imports (parsed in the browser too).
 */

export const SESSION_QUERY_KEYS = ['class', 'tool', 'attempts', 'tokens', 'started', 'failed', 'user', 'agent', 'status', 'sampling', 'has', 'decision', 'budget', 'unfixed', 'repaired'] as const;

/**
 * What a session may be asked to have (`has:`): `errors`, a failed attempt (the SDK's, a refused
 * call, another instrumentation's failed tool call: see docs/semantic-conventions.md) or a root
 * span with status ERROR (outcome `failed`), whatever its outcome says.
 */
const SESSION_HAS = ['errors'] as const;
type SessionHas = (typeof SESSION_HAS)[number];

/**
 * Which sessions by their sampling decision: `kept` (the default) the stored ones, `pending`
 * those held at weight 0 until the collector deletes them (every process would drop them; see
 * docs/collector.md, "Sampling across processes"), `all` both.
 */
const SAMPLING_VIEWS = ['kept', 'pending', 'all'] as const;
type SamplingView = (typeof SAMPLING_VIEWS)[number];
type SessionQueryKey = (typeof SESSION_QUERY_KEYS)[number];

export type Comparison = '>' | '>=' | '<' | '<=' | '=';

export interface SessionQueryFilters {
  /**
   * Each class must occur on at least one attempt of the session; with `tools`, on an attempt of
   * one of them, and with `failed`, on one made on those days (the same attempt: see failureFilter).
   */
  classes: FailureClass[];
  /**
   * Each tool must have been called in the session; with `classes` or `failed`, one of its calls
   * must have failed so (an attempt of the tool of one of the classes, on those days).
   */
  tools: string[];
  /** Comparisons on the session's recorded attempt count, all of which must hold. */
  attempts: { op: Comparison; value: number }[];
  /**
   * Comparisons on the session's own tokens (input + output, as recorded: not scaled by its
   * sampling weight, as analytics' cost buckets count them), all of which must hold.
   */
  tokens: { op: Comparison; value: number }[];
  /**
   * Comparisons on the UTC day the session started (YYYY-MM-DD, or a minute: YYYY-MM-DDTHH:MM;
   * periodOf), all of which must hold.
   */
  started: { op: Comparison; day: string }[];
  /**
   * Comparisons on the UTC day (or minute) of a failed attempt (YYYY-MM-DD, YYYY-MM-DDTHH:MM), all of which must hold for one
   * attempt: the session failed on those days, whenever it started. With `classes` or `tools`, the
   * attempt is one of theirs. Analytics counts failures by this day and links here with it.
   */
  failed: { op: Comparison; day: string }[];
  /**
   * The policy's decision after a failed attempt, one of these (`decision:escalate_human,abort`):
   * the session has such a failed attempt; with `classes`, `tools` or `failed`, the same attempt.
   * The Escalations alert counts `escalate_human`, `fail_reconcile` and `abort` and links so.
   */
  decisions?: Decision[];
  /**
   * The budget that ran out on a failed attempt, one of these (`budget:attempts_per_call,session_retries`),
   * or any (`budget:any`): the session has such an attempt; with `classes`, `tools`, `failed` or
   * `decisions`, the same attempt. The Budget or retry exhaustion alert counts these and links so.
   */
  budgets?: (BudgetReason | 'any')[];
  /**
   * A rejection not fixed by its next call (`unfixed:any`): a failed attempt answered with
   * feedback or a replan (or with no decision recorded) whose correction, the next call, failed
   * too; with comparisons (`unfixed:>=2026-11-03T14:05Z`), all of which must hold, on the UTC day
   * or minute that correction started: when the rejection became known as not fixed. With
   * `classes`, `tools`, `failed`, `decisions` or `budgets`, the same attempt. The Rejections not
   * fixed next alert counts these at that minute and links so. Unset: no such condition; `[]`: any.
   */
  unfixed?: { op: Comparison; day: string }[];
  /**
   * A model turn that repaired a failure (`repaired:any`: a turn that names the failed attempt it
   * answers, or the failure class it repairs); with comparisons (`repaired:>=2026-11-03T14:05Z`),
   * all of which must hold, on the UTC day or minute the turn started. With `classes`, the class of
   * the attempt it repaired (else the class the turn names); with `tools`, `failed`, `decisions`,
   * `budgets` or `unfixed`, that attempt. The Repair tokens and Repair cost alerts count these
   * turns' tokens at that minute and link so. Unset: no such condition; `[]`: any.
   */
  repaired?: { op: Comparison; day: string }[];
  user?: string;
  agent?: string;
  status?: SessionOutcome;
  /** Unset: `kept`. */
  sampling?: SamplingView;
  /** Each must hold (see SESSION_HAS). */
  has?: SessionHas[];
}

export interface SessionQueryError {
  /** The offending token as typed. */
  token: string;
  /** 0-based offset of the token in the query. */
  at: number;
  /** What is wrong, where, and what is expected. */
  message: string;
}

export interface ParsedSessionQuery {
  filters: SessionQueryFilters;
  /** The free text, terms joined by a space. */
  text: string;
  /** The free-text terms, each of which must match (session id, agent, user, tool names, arguments, feedback). */
  terms: string[];
  errors: SessionQueryError[];
}

// Longer than any filter a person types; keeps URLs and SQL parameters bounded.
export const SESSION_QUERY_MAX = 500;
// 256: the longest tool name or model an indexed column holds (longer ones are stored shortened to
// 256 bytes with a marker, apps/collector/src/key-text.ts): an alert's link to such a tool must run.
const VALUE_MAX = 256;

interface Token {
  key?: string;
  value: string;
  raw: string;
  at: number;
}

/** Splits on whitespace; double quotes group (`\\"` and `\\\\` inside them escaped), either around a whole term or around a value after `key:`. */
function tokenize(q: string, errors: SessionQueryError[]): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < q.length) {
    if (/\s/.test(q[i] as string)) {
      i++;
      continue;
    }
    const at = i;
    let key: string | undefined;
    const keyMatch = /^([A-Za-z_]+):/.exec(q.slice(i));
    if (keyMatch) {
      key = (keyMatch[1] as string).toLowerCase();
      i += keyMatch[0].length;
    }
    let value = '';
    if (q[i] === '"') {
      // Inside quotes, `\"` is a quote and `\\` a backslash (as the alerts' and the replay's links
      // write a tool named `say "hi"`); any other backslash is itself (`tool:"C:\tools"`).
      const open = i;
      let j = i + 1;
      let closed = false;
      while (j < q.length) {
        const c = q[j] as string;
        if (c === '\\' && (q[j + 1] === '"' || q[j + 1] === '\\')) {
          value += q[j + 1];
          j += 2;
        } else if (c === '"') {
          closed = true;
          break;
        } else {
          value += c;
          j++;
        }
      }
      if (!closed) {
        errors.push({ token: q.slice(at), at, message: `Unclosed quote at column ${open + 1}: add the closing ".` });
        i = q.length;
      } else {
        i = j + 1;
      }
    } else {
      const start = i;
      while (i < q.length && !/\s/.test(q[i] as string)) i++;
      value = q.slice(start, i);
    }
    tokens.push({ key, value, raw: q.slice(at, i), at });
  }
  return tokens;
}

const COMPARISON = /^(>=|<=|>|<|=)?(\d{1,9})$/;
// Tokens of one session can pass a billion; 15 digits stay exact in a double.
const TOKENS = /^(>=|<=|>|<|=)?(\d{1,15})$/;
// A UTC day, or a UTC minute of it (`2026-11-03T14:05Z`, the Z optional): an alert's window
// starts at a minute, and its explorer link lists the failures from that minute on.
const DAY = /^(>=|<=|>|<|=)?(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2})Z?)?$/;

/** A real calendar day in YYYY-MM-DD (2026-02-30 is not one), or a real minute of one (YYYY-MM-DDTHH:MM). */
function isDay(d: string): boolean {
  const minute = d.length > 10;
  const t = Date.parse(minute ? `${d}:00Z` : `${d}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, minute ? 16 : 10) === d;
}

/** A day or minute after an optional comparison (`>=2026-11-03`, `2026-11-03T14:05Z`), or null when it is not one. */
function dayComparison(value: string): { op: Comparison; day: string } | null {
  const m = DAY.exec(value);
  const day = m ? (m[3] ? `${m[2]}T${m[3]}` : (m[2] as string)) : '';
  return m && isDay(day) ? { op: (m[1] ?? '=') as Comparison, day } : null;
}

/**
 * The UTC period a `started:` or `failed:` value names, [start, next): a day (YYYY-MM-DD) from its
 * midnight to the next, a minute (YYYY-MM-DDTHH:MM) from its first second to the next minute's.
 */
export function periodOf(day: string): { start: Date; next: Date } {
  const minute = day.length > 10;
  const start = new Date(minute ? `${day}:00Z` : `${day}T00:00:00Z`);
  return { start, next: new Date(start.getTime() + (minute ? 60_000 : 86_400_000)) };
}

/** Parses `q`; never throws. Bad tokens become errors and are left out of the filters. */
export function parseSessionQuery(q: string | undefined | null): ParsedSessionQuery {
  const filters: SessionQueryFilters = { classes: [], tools: [], attempts: [], tokens: [], started: [], failed: [] };
  const errors: SessionQueryError[] = [];
  const terms: string[] = [];
  const input = q ?? '';
  if (input.length > SESSION_QUERY_MAX) {
    errors.push({
      token: input.slice(0, 20),
      at: 0,
      message: `The query is ${input.length} characters long; at most ${SESSION_QUERY_MAX} are accepted.`,
    });
    return { filters, text: '', terms, errors };
  }
  const fail = (t: Token, message: string) =>
    errors.push({ token: t.raw, at: t.at, message: `${message} (at column ${t.at + 1}, “${t.raw}”)` });

  for (const t of tokenize(input, errors)) {
    if (t.key === undefined) {
      if (t.value) terms.push(t.value.slice(0, VALUE_MAX));
      continue;
    }
    if (!(SESSION_QUERY_KEYS as readonly string[]).includes(t.key)) {
      fail(t, `Unknown filter “${t.key}”: expected one of ${SESSION_QUERY_KEYS.map((k) => `${k}:`).join(', ')}; quote text that contains a colon`);
      continue;
    }
    const key = t.key as SessionQueryKey;
    if (!t.value) {
      fail(t, `“${key}:” needs a value`);
      continue;
    }
    if (t.value.length > VALUE_MAX) {
      fail(t, `The value of “${key}:” is longer than ${VALUE_MAX} characters`);
      continue;
    }
    switch (key) {
      case 'class':
        if ((FAILURE_CLASSES as readonly string[]).includes(t.value)) {
          if (!filters.classes.includes(t.value as FailureClass)) filters.classes.push(t.value as FailureClass);
        } else fail(t, `Unknown failure class “${t.value}”: expected one of ${FAILURE_CLASSES.join(', ')}`);
        break;
      case 'tool':
        if (!filters.tools.includes(t.value)) filters.tools.push(t.value);
        break;
      case 'attempts': {
        const m = COMPARISON.exec(t.value);
        if (m) filters.attempts.push({ op: (m[1] ?? '=') as Comparison, value: Number(m[2]) });
        else fail(t, `“attempts:” expects a whole number, optionally after >, >=, <, <= or = (e.g. attempts:>2)`);
        break;
      }
      case 'tokens': {
        const m = TOKENS.exec(t.value.replaceAll(',', '').replaceAll('_', ''));
        if (m) filters.tokens.push({ op: (m[1] ?? '=') as Comparison, value: Number(m[2]) });
        else fail(t, `“tokens:” expects a whole number of tokens, optionally after >, >=, <, <= or = (e.g. tokens:>=10000)`);
        break;
      }
      case 'unfixed':
      case 'repaired': {
        if (t.value === 'any') {
          filters[key] ??= [];
          break;
        }
        const c = dayComparison(t.value);
        if (c) {
          filters[key] ??= [];
          filters[key].push(c);
        } else {
          const when = key === 'unfixed' ? "a rejection's correction failed" : 'a model turn repaired a failure';
          fail(
            t,
            `“${key}:” expects any, or the UTC day (YYYY-MM-DD) or minute (YYYY-MM-DDTHH:MMZ) ${when}, optionally after >, >=, <, <= or = (e.g. ${key}:any, ${key}:>=2026-11-03)`,
          );
        }
        break;
      }
      case 'started':
      case 'failed': {
        const c = dayComparison(t.value);
        if (c) filters[key].push(c);
        else
          fail(
            t,
            `“${key}:” expects a UTC day as YYYY-MM-DD (or a UTC minute as YYYY-MM-DDTHH:MMZ), optionally after >, >=, <, <= or = (e.g. ${key}:>=2026-11-03)`,
          );
        break;
      }
      case 'status':
        if (filters.status !== undefined) fail(t, '“status:” is given twice; a session has one status');
        else if ((SESSION_OUTCOMES as readonly string[]).includes(t.value)) filters.status = t.value as SessionOutcome;
        else fail(t, `Unknown status “${t.value}”: expected one of ${SESSION_OUTCOMES.join(', ')}`);
        break;
      case 'decision': {
        const values = t.value.split(',').filter(Boolean);
        const unknown = values.find((v) => !(DECISIONS as readonly string[]).includes(v));
        if (filters.decisions !== undefined) fail(t, '“decision:” is given twice; name the decisions in one, separated by commas (decision:escalate_human,abort)');
        else if (values.length === 0 || unknown !== undefined)
          fail(t, `Unknown decision “${unknown ?? t.value}”: expected one or more of ${DECISIONS.join(', ')}, separated by commas`);
        else filters.decisions = [...new Set(values)] as Decision[];
        break;
      }
      case 'budget': {
        const values = t.value.split(',').filter(Boolean);
        const unknown = values.find((v) => v !== 'any' && !(BUDGET_REASONS as readonly string[]).includes(v));
        if (filters.budgets !== undefined) fail(t, '“budget:” is given twice; name the budgets in one, separated by commas (budget:attempts_per_call,session_retries)');
        else if (values.length === 0 || unknown !== undefined)
          fail(t, `Unknown budget “${unknown ?? t.value}”: expected any, or one or more of ${BUDGET_REASONS.join(', ')}, separated by commas`);
        else filters.budgets = [...new Set(values)] as (BudgetReason | 'any')[];
        break;
      }
      case 'sampling':
        if (filters.sampling !== undefined) fail(t, '“sampling:” is given twice; a session has one sampling decision');
        else if ((SAMPLING_VIEWS as readonly string[]).includes(t.value)) filters.sampling = t.value as SamplingView;
        else fail(t, `Unknown sampling decision “${t.value}”: expected one of ${SAMPLING_VIEWS.join(', ')}`);
        break;
      case 'has':
        if ((SESSION_HAS as readonly string[]).includes(t.value)) {
          filters.has ??= [];
          if (!filters.has.includes(t.value as SessionHas)) filters.has.push(t.value as SessionHas);
        } else fail(t, `Unknown “has:” value “${t.value}”: expected one of ${SESSION_HAS.join(', ')}`);
        break;
      case 'user':
      case 'agent':
        if (filters[key] !== undefined) fail(t, `“${key}:” is given twice; a session has one ${key}`);
        else filters[key] = t.value;
        break;
    }
  }
  return { filters, text: terms.join(' '), terms, errors };
}

/** True when the query narrows the list (any filter or free text). */
export function isFiltered(p: ParsedSessionQuery): boolean {
  const f = p.filters;
  return (
    p.terms.length > 0 ||
    f.classes.length > 0 ||
    f.tools.length > 0 ||
    f.attempts.length > 0 ||
    f.tokens.length > 0 ||
    f.started.length > 0 ||
    f.failed.length > 0 ||
    f.user !== undefined ||
    f.agent !== undefined ||
    f.status !== undefined ||
    (f.decisions?.length ?? 0) > 0 ||
    (f.budgets?.length ?? 0) > 0 ||
    f.unfixed !== undefined ||
    f.repaired !== undefined ||
    (f.has?.length ?? 0) > 0 ||
    (f.sampling !== undefined && f.sampling !== 'kept')
  );
}
