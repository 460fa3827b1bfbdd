/**
 * Links from analytics to the sessions explorer, filtered: `/sessions?project=<id>&q=class:<cls>%20tool:<tool>`
 * (the explorer's query language, apps/web/src/lib/session-query.ts), with the analytics window as
 * the days the sessions started (`started:>=<from> started:<=<to>`: the totals and cost buckets,
 * counted by session start) or the days of their failed attempts (`failed:>=… failed:<=…`: the
 * failure panels, counted by the attempt's day). A value with spaces, quotes or a colon is written
 * in double quotes, its quotes and backslashes escaped.
 */
function term(field: string, value: string): string {
  return /[\s":\\]/.test(value) ? `${field}:"${value.replace(/["\\]/g, '\\$&')}"` : `${field}:${value}`;
}

interface ExplorerFilter {
  failureClass?: string;
  tool?: string;
  /** Sessions of at least `min` and fewer than `max` tokens of their own (null: no upper bound). */
  tokens?: { min: number; max: number | null };
  /** Sessions started on these UTC days, both included (YYYY-MM-DD). */
  days?: { from: string; to: string };
  /**
   * Sessions with a failed attempt on these UTC days, both included: of `failureClass` and `tool`
   * when given (the explorer reads the three as one attempt), whenever the session started.
   */
  failedDays?: { from: string; to: string };
}

function dayTerms(field: string, days: { from: string; to: string }): string[] {
  return days.from === days.to ? [`${field}:${days.from}`] : [`${field}:>=${days.from}`, `${field}:<=${days.to}`];
}

/** `q` for the filter; a part left out does not narrow the list. */
function explorerQuery(filter: ExplorerFilter): string {
  const terms: string[] = [];
  if (filter.failureClass) terms.push(term('class', filter.failureClass));
  if (filter.tool) terms.push(term('tool', filter.tool));
  if (filter.tokens) {
    if (filter.tokens.min > 0) terms.push(`tokens:>=${filter.tokens.min}`);
    if (filter.tokens.max !== null) terms.push(`tokens:<${filter.tokens.max}`);
  }
  if (filter.days) terms.push(...dayTerms('started', filter.days));
  if (filter.failedDays) terms.push(...dayTerms('failed', filter.failedDays));
  return terms.join(' ');
}

/** The explorer's URL for the project's sessions matching the filter. Colons stay readable. */
export function explorerHref(projectId: string, filter: ExplorerFilter): string {
  const q = encodeURIComponent(explorerQuery(filter)).replaceAll('%3A', ':');
  return `/sessions?project=${encodeURIComponent(projectId)}&q=${q}`;
}
