/** A guard regression test in one line, for vitest and jest: `await expectNoGuardRegressions(gt, 'fixtures/session.json')`. */
import { type DatasetItem, REPLAY_CHANGE, type ReplayChange, type ReplayResult, type ReplayRunReport } from '@guardtrace/semconv';
import type { Guardtrace } from '../guardtrace.ts';
import { readDatasetFile } from './read.ts';
import { type DatasetLineError, type ReplayOptions, replayDataset } from './replay.ts';

export interface ExpectNoRegressionsOptions extends ReplayOptions {
  /** Changes that do not fail the test (e.g. `['feedback_changed']` while rewording feedback). */
  allow?: ReplayChange[];
}

type Items = AsyncIterable<DatasetItem | DatasetLineError> | Iterable<DatasetItem | DatasetLineError>;

const isIterable = (x: unknown): x is Items =>
  typeof x === 'object' && x !== null && (Symbol.iterator in x || Symbol.asyncIterator in x);

const short = (s: string | null, max = 300): string => (s === null ? 'none' : JSON.stringify(s.length > max ? `${s.slice(0, max)}…` : s));

function describe(r: ReplayResult): string {
  const where = r.itemId ? `${r.tool || '?'} (call ${r.itemId}, attempt ${r.attempt}${r.sessionId ? `, session ${r.sessionId}` : ''})` : r.tool || 'item';
  const lines = [`- ${r.change}: ${where}`];
  if (r.error) lines.push(`    ${r.error}`);
  if (r.now) {
    const side = (d: ReplayResult['recorded']) => `${d.allowed ? 'allowed' : 'rejected'}${d.failureClass ? ` ${d.failureClass}` : ''} (${d.decision ?? 'no decision'})`;
    lines.push(`    recorded: ${side(r.recorded)}, feedback ${short(r.recorded.feedback)}`);
    lines.push(`    now:      ${side(r.now)}, feedback ${short(r.now.feedback)}`);
  }
  for (const c of r.definition.changes) lines.push(`    definition: ${c}`);
  return lines.join('\n');
}

/**
 * Replays a fixture (a dataset item, an array of them, an iterable, or the path of a dataset
 * file) through the current guards and throws an Error listing every call whose decision,
 * class or feedback changed, or that could not be replayed, unless its change is in `allow`.
 * Returns the run report when nothing did.
 */
export async function expectNoGuardRegressions(gt: Guardtrace, itemsOrPath: string | DatasetItem | Items, opts: ExpectNoRegressionsOptions = {}): Promise<ReplayRunReport> {
  const items: Items = typeof itemsOrPath === 'string' ? readDatasetFile(itemsOrPath) : isIterable(itemsOrPath) ? itemsOrPath : [itemsOrPath];
  const report = await replayDataset(gt, items, opts.execute === undefined ? {} : { execute: opts.execute });
  if (report.summary.calls === 0) {
    throw new Error(`Guard regressions: nothing to replay: ${typeof itemsOrPath === 'string' ? `${itemsOrPath} holds` : 'the fixture holds'} no recorded calls`);
  }
  const allow = new Set<ReplayChange>(opts.allow ?? []);
  const bad = report.results.filter((r) => r.change !== REPLAY_CHANGE.UNCHANGED && !allow.has(r.change));
  if (bad.length === 0) return report;
  // what failed the test, per change: an attempt not replayed did not change, it is counted apart
  const counts = Object.entries(report.summary).filter(([k, v]) => k !== 'calls' && k !== 'attempts' && k !== REPLAY_CHANGE.UNCHANGED && v > 0 && !allow.has(k as ReplayChange)).map(([k, v]) => `${k} ${v}`).join(', ');
  const notReplayed = bad.filter((r) => r.change === REPLAY_CHANGE.NOT_REPLAYED).length;
  const changed = bad.length - notReplayed;
  throw new Error(
    `Guard regressions: ${changed} of ${report.summary.attempts} attempts (${report.summary.calls} calls) changed${notReplayed ? `, ${notReplayed} not replayed` : ''} (${counts})\n${bad.map(describe).join('\n')}`,
  );
}
