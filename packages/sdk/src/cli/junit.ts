/**
 * The run as JUnit XML, which CI systems (GitHub Actions reporters, GitLab, Jenkins) show as
 * tests: one test case per changed attempt, failed when its change is one of --fail-on, skipped
 * when it could not be replayed, and one passing case standing for the unchanged attempts.
 */
import { REPLAY_CHANGE, type ReplayResult, type ReplayRunReport } from '@guardtrace/semconv';
import { CHANGE_LABEL, decisionText, failedGuards } from './format.ts';

// XML 1.0 allows tab, LF, CR and U+0020 and up, minus lone surrogates and U+FFFE/U+FFFF.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text safe in an XML attribute value or element: the five entities escaped, characters XML cannot hold replaced by U+FFFD. */
export function xmlEscape(text: string): string {
  return text
    .replace(NOT_XML, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    // attribute values normalise raw newlines and tabs to spaces: keep them as references
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
    .replace(/\t/g, '&#9;');
}

const attrs = (a: Record<string, string | number>) =>
  Object.entries(a)
    .map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`)
    .join('');

function detail(r: ReplayResult, webUrl: string | null): string {
  const lines = [
    `${CHANGE_LABEL[r.change]}: ${r.tool}, attempt ${r.attempt} of call ${r.itemId} (session ${r.sessionId})`,
    `step: ${webUrl ? `${webUrl}${r.stepPath}` : r.stepPath}`,
    `recorded: ${decisionText(r.recorded)}${failedGuards(r.recorded) ? ` [${failedGuards(r.recorded)}]` : ''}`,
    `now: ${decisionText(r.now)}${failedGuards(r.now) ? ` [${failedGuards(r.now)}]` : ''}`,
  ];
  if (r.recorded.feedback !== null) lines.push(`recorded feedback: ${r.recorded.feedback}`);
  if (r.now?.feedback != null) lines.push(`feedback now: ${r.now.feedback}`);
  if (r.error) lines.push(`error: ${r.error}`);
  for (const c of r.definition.changes) lines.push(`definition: ${c}`);
  return lines.join('\n');
}

export function junitReport(report: ReplayRunReport, opts: { webUrl: string | null }): string {
  const failOn = new Set(report.options.failOn);
  const cases: string[] = [];
  let failures = 0;
  let skipped = 0;
  for (const r of report.results) {
    if (r.change === REPLAY_CHANGE.UNCHANGED) continue;
    // a dataset line that was not an item has no tool: its id is `line:<n>`
    const name = `${r.tool ? `${r.tool} ${r.itemId} attempt ${r.attempt}` : r.itemId}: ${CHANGE_LABEL[r.change].toLowerCase()}`;
    const head = `    <testcase${attrs({ classname: `guardtrace-replay.${r.tool || 'dataset'}`, name, time: 0 })}>`;
    const text = xmlEscape(detail(r, opts.webUrl));
    if (failOn.has(r.change)) {
      failures++;
      cases.push(`${head}\n      <failure${attrs({ message: `${CHANGE_LABEL[r.change]}: ${decisionText(r.recorded)} → ${decisionText(r.now)}`, type: r.change })}>${text}</failure>\n    </testcase>`);
    } else if (r.change === REPLAY_CHANGE.NOT_REPLAYED) {
      skipped++;
      cases.push(`${head}\n      <skipped${attrs({ message: r.error ?? 'not replayed' })}/>\n      <system-out>${text}</system-out>\n    </testcase>`);
    } else {
      cases.push(`${head}\n      <system-out>${text}</system-out>\n    </testcase>`);
    }
  }
  const unchanged = report.summary.unchanged;
  if (unchanged > 0) cases.push(`    <testcase${attrs({ classname: 'guardtrace-replay', name: `${unchanged} unchanged attempts`, time: 0 })}/>`);
  const seconds = Math.max(0, (Date.parse(report.finishedAt) - Date.parse(report.startedAt)) / 1000) || 0;
  const suite = attrs({
    name: `guardtrace-replay${report.datasetId ? ` dataset ${report.datasetId}` : ''}${report.label ? ` (${report.label})` : ''}`,
    tests: cases.length,
    failures,
    errors: 0,
    skipped,
    time: seconds,
    timestamp: report.startedAt,
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${attrs({ name: 'guardtrace-replay', tests: cases.length, failures, errors: 0, skipped, time: seconds })}>\n  <testsuite${suite}>\n${cases.join('\n')}\n  </testsuite>\n</testsuites>\n`;
}
