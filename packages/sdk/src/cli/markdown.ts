/**
 * The run as GitHub-flavoured Markdown for a pull request comment: a summary table, what changed
 * in the tools' definitions, then the changed calls grouped by change, each linked to its replay
 * step in the web app (when the web app's URL is known). A comment holds at most 65,536
 * characters, so each group lists its first rows and says how many more the JSON report has.
 */
import { REPLAY_CHANGE, type ReplayResult, type ReplayRunReport } from '@guardtrace/semconv';
import { CHANGE_LABEL, CHANGE_ORDER, byChange, clip, decisionText, definitionChanges, failedGuards } from './format.ts';

/** 50 rows of ~400 characters per group keeps five groups under GitHub's 65,536-character comment limit. */
const DEFAULT_MAX_ROWS = 50;

/** Text inside a table cell: Markdown and HTML syntax escaped, one line. */
export function mdEscape(text: string): string {
  return text
    .replace(/\r?\n|\r/g, ' ')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
    .replace(/[\u0000-\u001F\u007F]/g, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]|~#!]/g, (c) => `\\${c}`);
}

/** A URL inside `(...)` of a link: characters that would end it or break the table percent-encoded. */
const linkTarget = (url: string) => url.replace(/[ ()<>|]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

function callCell(r: ReplayResult, webUrl: string | null): string {
  // a line of the dataset that was not an item has no session or step
  if (!r.sessionId || !r.stepPath) return mdEscape(r.itemId || '(no id)');
  const label = mdEscape(`${r.sessionId} · ${r.itemId.split(':').at(-1) ?? r.itemId}`);
  return webUrl ? `[${label}](${linkTarget(`${webUrl}${r.stepPath}`)})` : label;
}

const decisionCell = (d: ReplayResult['recorded'] | null) => {
  const guards = failedGuards(d);
  return mdEscape(guards ? `${decisionText(d)}: ${guards}` : decisionText(d));
};

const feedbackCell = (text: string | null | undefined) => (text ? mdEscape(clip(text, 200)) : '–');

function groupTable(change: ReplayResult['change'], rows: ReplayResult[], webUrl: string | null): string[] {
  const feedbackChanged = change === REPLAY_CHANGE.FEEDBACK_CHANGED;
  const notReplayed = change === REPLAY_CHANGE.NOT_REPLAYED;
  const head = notReplayed
    ? ['| Call | Tool | Attempt | Why |', '|---|---|--:|---|']
    : feedbackChanged
      ? ['| Call | Tool | Attempt | Decision | Recorded feedback | Feedback now |', '|---|---|--:|---|---|---|']
      : ['| Call | Tool | Attempt | Recorded | Now | Feedback now |', '|---|---|--:|---|---|---|'];
  const body = rows.map((r) => {
    const common = `| ${callCell(r, webUrl)} | ${mdEscape(r.tool)} | ${r.attempt} |`;
    if (notReplayed) return `${common} ${feedbackCell(r.error ?? 'not replayed')} |`;
    if (feedbackChanged) return `${common} ${decisionCell(r.now)} | ${feedbackCell(r.recorded.feedback)} | ${feedbackCell(r.now?.feedback)} |`;
    return `${common} ${decisionCell(r.recorded)} | ${decisionCell(r.now)} | ${feedbackCell(r.now?.feedback)} |`;
  });
  return [...head, ...body];
}

export function markdownReport(report: ReplayRunReport, opts: { webUrl: string | null; maxRows?: number }): string {
  const max = opts.maxRows ?? DEFAULT_MAX_ROWS;
  const s = report.summary;
  const failOn = new Set(report.options.failOn);
  // attempts not replayed did not change: they are counted apart
  const changedAttempts = CHANGE_ORDER.filter((c) => c !== REPLAY_CHANGE.UNCHANGED && c !== REPLAY_CHANGE.NOT_REPLAYED).reduce((n, c) => n + s[c], 0);
  const notReplayed = s[REPLAY_CHANGE.NOT_REPLAYED] > 0 ? `, ${s[REPLAY_CHANGE.NOT_REPLAYED]} not replayed` : '';
  const failed = report.options.failOn.some((c) => s[c] > 0);
  const out: string[] = [];
  out.push(`## Guard replay: ${changedAttempts === 0 ? 'no change' : `${changedAttempts} of ${s.attempts} attempts changed`}${notReplayed}${failed ? ' ❌' : ''}`);
  out.push('');
  const facts = [
    report.datasetId ? `dataset ${mdEscape(report.datasetId)}` : null,
    report.label ? `label ${mdEscape(report.label)}` : null,
    `${s.calls} calls, ${s.attempts} attempts`,
    report.options.execute === 'read-only' ? 'guards and read-only tools executed' : 'guards only',
    failOn.size ? `fails on ${[...failOn].map((c) => CHANGE_LABEL[c].toLowerCase()).join(', ')}` : null,
  ].filter(Boolean);
  out.push(facts.join(' · '));
  out.push('');
  out.push('| Change | Attempts |', '|---|--:|');
  for (const c of CHANGE_ORDER) out.push(`| ${CHANGE_LABEL[c]}${failOn.has(c) && s[c] > 0 ? ' ❌' : ''} | ${s[c]} |`);

  const defs = definitionChanges(report.results);
  if (defs.size > 0) {
    out.push('', '### Definition changes', '');
    for (const [tool, changes] of defs) out.push(`- **${mdEscape(tool)}**: ${changes.map(mdEscape).join('; ')}`);
  }
  for (const [change, rows] of byChange(report.results)) {
    out.push('', `### ${CHANGE_LABEL[change]} (${rows.length})${failOn.has(change) ? ' ❌' : ''}`, '');
    out.push(...groupTable(change, rows.slice(0, max), opts.webUrl));
    if (rows.length > max) out.push('', `…and ${rows.length - max} more in the JSON report.`);
  }
  if (!opts.webUrl && report.results.some((r) => r.change !== REPLAY_CHANGE.UNCHANGED)) {
    out.push('', '_Pass `--web-url` (or set GUARDTRACE_WEB_URL) to link each call to its replay step._');
  }
  return `${out.join('\n')}\n`;
}
