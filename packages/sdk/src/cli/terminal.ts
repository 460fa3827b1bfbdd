/**
 * What the terminal shows: the summary table (stdout), the first changed calls of each change,
 * and a progress bar on stderr while the dataset streams, only when stderr is a terminal (in CI
 * logs a redrawn bar is noise: one summary line is written instead, by main.ts).
 */
import { REPLAY_CHANGE, type ReplayRunReport } from '@guardtrace/semconv';
import { CHANGE_LABEL, CHANGE_ORDER, byChange, clip, decisionText, definitionChanges } from './format.ts';

/** Changed calls listed per change in the terminal; the reports have them all. */
const TERMINAL_ROWS = 10;

export function terminalSummary(report: ReplayRunReport, opts: { webUrl: string | null }): string {
  const s = report.summary;
  const failOn = new Set(report.options.failOn);
  const rows = CHANGE_ORDER.map((c) => [CHANGE_LABEL[c], String(s[c]), failOn.has(c) ? (s[c] > 0 ? 'FAIL' : 'ok') : ''] as const);
  const w0 = Math.max(6, ...rows.map((r) => r[0].length));
  const w1 = Math.max(8, ...rows.map((r) => r[1].length));
  const line = (a: string, b: string, c: string) => `  ${a.padEnd(w0)}  ${b.padStart(w1)}  ${c}`.trimEnd();
  const out = [
    `Guard replay of ${s.calls} calls (${s.attempts} attempts)${report.datasetId ? `, dataset ${report.datasetId}` : ''}${report.label ? `, ${report.label}` : ''}`,
    '',
    line('Change', 'Attempts', failOn.size ? 'Fail on' : ''),
    line('-'.repeat(w0), '-'.repeat(w1), failOn.size ? '-------' : ''),
    ...rows.map(([a, b, c]) => line(a, b, c)),
  ];
  const defs = definitionChanges(report.results);
  if (defs.size > 0) {
    out.push('', 'Definition changes:');
    for (const [tool, changes] of defs) for (const c of changes) out.push(`  ${tool}: ${c}`);
  }
  for (const [change, results] of byChange(report.results)) {
    out.push('', `${CHANGE_LABEL[change]} (${results.length}):`);
    for (const r of results.slice(0, TERMINAL_ROWS)) {
      const what = change === REPLAY_CHANGE.NOT_REPLAYED ? (r.error ?? 'not replayed') : `${decisionText(r.recorded)} -> ${decisionText(r.now)}`;
      const step = r.stepPath ? `  ${opts.webUrl ? `${opts.webUrl}${r.stepPath}` : r.stepPath}` : '';
      out.push(`  ${r.tool ? `${r.tool} #${r.attempt}` : r.itemId}  ${what}${step}`);
      const fb = r.now?.feedback;
      if (fb && change !== REPLAY_CHANGE.NOT_REPLAYED) out.push(`      feedback now: ${clip(fb, 160)}`);
    }
    if (results.length > TERMINAL_ROWS) out.push(`  ...and ${results.length - TERMINAL_ROWS} more (see --json / --markdown)`);
  }
  return `${out.join('\n')}\n`;
}

interface Tty {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** Redraws at most every 100 ms: a terminal redraw per item would cost more than the replay of it. */
const REDRAW_MS = 100;

/** A progress bar on a TTY; on anything else, nothing (main.ts writes one summary line at the end). */
export function progressBar(stream: Tty, total: number | null, now: () => number): { tick(): void; stop(): void } {
  if (!stream.isTTY) return { tick() {}, stop() {} };
  const started = now();
  let done = 0;
  let drawn = -Infinity;
  const draw = () => {
    drawn = now();
    const secs = Math.max(0.001, (drawn - started) / 1000);
    const rate = `${Math.round(done / secs)}/s`;
    const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - 45));
    let text: string;
    if (total && total > 0) {
      const frac = Math.min(1, done / total);
      const fill = Math.round(frac * width);
      text = `replaying [${'#'.repeat(fill)}${'-'.repeat(width - fill)}] ${done}/${total} calls ${Math.floor(frac * 100)}% ${rate}`;
    } else {
      text = `replaying ${done} calls ${rate}`;
    }
    stream.write(`\r\x1b[2K${text}`);
  };
  return {
    tick() {
      done++;
      if (now() - drawn >= REDRAW_MS) draw();
    },
    stop() {
      stream.write('\r\x1b[2K');
    },
  };
}
