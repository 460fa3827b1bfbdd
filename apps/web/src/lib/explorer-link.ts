/**
 * Links from analytics to the sessions explorer, filtered: `/sessions?project=<id>&q=class:<cls>%20tool:<tool>`
 * (the explorer's query language, apps/web/src/lib/session-query.ts). A value with spaces,
 * quotes or a colon is written in double quotes, its quotes and backslashes escaped.
 */
function term(field: string, value: string): string {
  return /[\s":\\]/.test(value) ? `${field}:"${value.replace(/["\\]/g, '\\$&')}"` : `${field}:${value}`;
}

/** `q` for a failure class and/or a tool ('' or undefined: not filtered on it). */
function explorerQuery(filter: { failureClass?: string; tool?: string }): string {
  const terms: string[] = [];
  if (filter.failureClass) terms.push(term('class', filter.failureClass));
  if (filter.tool) terms.push(term('tool', filter.tool));
  return terms.join(' ');
}

/** The explorer's URL for the project's sessions matching the filter. Colons stay readable. */
export function explorerHref(projectId: string, filter: { failureClass?: string; tool?: string }): string {
  const q = encodeURIComponent(explorerQuery(filter)).replaceAll('%3A', ':');
  return `/sessions?project=${encodeURIComponent(projectId)}&q=${q}`;
}
