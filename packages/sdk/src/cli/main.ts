/**
 * `guardtrace-replay`: replays a dataset of recorded tool calls (from the collector or a file)
 * through the guards of the user's tools module, prints a summary table, writes the JSON,
 * Markdown and JUnit reports, uploads the run, and exits 1 when a --fail-on change occurred.
 * `guardtrace-replay dataset create` saves the calls an explorer query matches as a dataset.
 * Everything it touches outside (argv, env, cwd, stdin/stdout/stderr, the clock) is passed in.
 */
import { createReadStream, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { DatasetItem, ReplayRunReport } from '@guardtrace/semconv';
import { type DatasetLineError, failedBy, replayDataset } from '../replay/index.ts';
import { type CreateDatasetCommand, type ReplayCommand, USAGE, UsageError, parseCommand } from './args.ts';
import { CollectorRequestError, createDataset, datasetItemCount, streamDataset, UPLOAD_RESULTS_PER_CHANGE, uploadRun } from './collector-client.ts';
import { CHANGE_LABEL, summaryLine } from './format.ts';
import { junitReport } from './junit.ts';
import { markdownReport } from './markdown.ts';
import { InputError, readItemsFile } from './ndjson.ts';
import { progressBar, terminalSummary } from './terminal.ts';
import { loadGuardtrace } from './tools-module.ts';

const EXIT = {
  OK: 0,
  /** A change named by --fail-on occurred. */
  FAILED_ON: 1,
  /** Usage or input error: a flag, the tools module, the dataset file or id, a report path. */
  INPUT: 2,
  /** The collector could not be reached or refused a request (other than a missing dataset). */
  COLLECTOR: 3,
} as const;

interface Out {
  write(chunk: string): unknown;
}

export interface Io {
  argv: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  stdin: Readable;
  stdout: Out;
  stderr: Out & { isTTY?: boolean; columns?: number };
  /** Milliseconds, for the progress bar and the duration (default performance.now). */
  now?: () => number;
}

const isLineError = (x: DatasetItem | DatasetLineError): x is DatasetLineError => (x as DatasetLineError).format === 'guardtrace.dataset-line-error';

/** Lines of an NDJSON file, for the progress bar's total (streamed: a count, not the text). */
async function countLines(file: string): Promise<number | null> {
  try {
    let n = 0;
    let last = 10;
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) n++;
      last = chunk[chunk.length - 1] ?? last;
    }
    return last === 10 ? n : n + 1;
  } catch {
    return null;
  }
}

/**
 * Makes `dir` and its missing parents one at a time: Node 20's `mkdirSync(dir, { recursive: true })`
 * never returns for a path under a directory nothing can be made in (`/proc/nope/out`); this
 * throws the first parent's error instead.
 */
function makeDirs(dir: string): void {
  if (existsSync(dir)) return;
  const parent = path.dirname(dir);
  if (parent !== dir) makeDirs(parent);
  try {
    mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

function writeReport(file: string, text: string, flag: string, cwd: string): void {
  const abs = path.resolve(cwd, file);
  try {
    makeDirs(path.dirname(abs));
    writeFileSync(abs, text);
  } catch (err) {
    throw new InputError(`${flag} ${file}: cannot write the report (${(err as Error).message})`);
  }
}

async function replay(cmd: ReplayCommand, io: Io): Promise<number> {
  const now = io.now ?? (() => performance.now());
  const gt = await loadGuardtrace(cmd.tools, cmd.exportName, io.cwd);
  if (gt.tools().length === 0) io.stderr.write(`guardtrace-replay: warning: the Guardtrace instance from ${cmd.tools} has no tools registered: every call will be "not replayed"\n`);

  const src = cmd.source;
  const sourceName = src.kind === 'dataset' ? `dataset ${src.id}` : src.path === '-' ? 'stdin' : src.path;
  const items = src.kind === 'dataset' ? streamDataset(src.collector, src.id) : readItemsFile(src.path === '-' ? '-' : path.resolve(io.cwd, src.path), io.stdin);
  // the bar's total: the collector's item count, or an NDJSON file's line count; none for stdin or JSON files
  let total: number | null = null;
  if (io.stderr.isTTY) {
    if (src.kind === 'dataset') total = await datasetItemCount(src.collector, src.id);
    else if (src.path !== '-' && /\.(nd)?jsonl?$/.test(src.path) && !src.path.endsWith('.json')) total = await countLines(path.resolve(io.cwd, src.path));
  }

  const lineErrors: string[] = [];
  let badLines = 0;
  async function* watched(): AsyncGenerator<DatasetItem | DatasetLineError> {
    for await (const x of items) {
      if (isLineError(x)) {
        badLines++;
        if (lineErrors.length < 5) lineErrors.push(x.error);
      }
      yield x;
    }
  }

  const bar = progressBar(io.stderr, total, now);
  const started = now();
  let report: ReplayRunReport;
  try {
    report = await replayDataset(gt, watched(), {
      execute: cmd.execute,
      failOn: cmd.failOn,
      datasetId: src.kind === 'dataset' ? src.id : null,
      label: cmd.label,
      onProgress: () => bar.tick(),
    });
  } finally {
    bar.stop();
  }
  const seconds = (now() - started) / 1000;

  if (report.summary.calls === 0) throw new InputError(`${sourceName}: no dataset items: nothing was replayed (expected NDJSON, one dataset item per line)`);
  if (badLines > 0) {
    io.stderr.write(`guardtrace-replay: ${badLines} of ${report.summary.calls} lines of ${sourceName} are not dataset items (reported as not replayed):\n${lineErrors.map((e) => `  ${e}\n`).join('')}${badLines > lineErrors.length ? `  ...and ${badLines - lineErrors.length} more\n` : ''}`);
    if (badLines === report.summary.calls) throw new InputError(`${sourceName}: none of its ${badLines} lines is a dataset item`);
  }

  if (cmd.json) writeReport(cmd.json, `${JSON.stringify(report, null, 2)}\n`, '--json', io.cwd);
  if (cmd.markdown) writeReport(cmd.markdown, markdownReport(report, { webUrl: cmd.webUrl }), '--markdown', io.cwd);
  if (cmd.junit) writeReport(cmd.junit, junitReport(report, { webUrl: cmd.webUrl }), '--junit', io.cwd);
  io.stdout.write(terminalSummary(report, { webUrl: cmd.webUrl }));
  if (!io.stderr.isTTY) io.stderr.write(`guardtrace-replay: ${summaryLine(report, seconds)}\n`);

  let uploadFailed = false;
  if (cmd.upload && cmd.collector && report.datasetId) {
    try {
      const run = await uploadRun(cmd.collector, report.datasetId, report);
      const where = run.url ? (cmd.webUrl ? `${cmd.webUrl}${run.url}` : `${run.url} (in the web app)`) : '';
      io.stderr.write(`guardtrace-replay: uploaded run ${run.id}${where ? `: ${where}` : ''}\n`);
      if (run.omitted > 0) io.stderr.write(`guardtrace-replay: ${run.omitted} changed attempts were left out of the upload (the first ${UPLOAD_RESULTS_PER_CHANGE} of each change are kept; the counts are whole; the JSON report lists every one)\n`);
    } catch (err) {
      if (!(err instanceof CollectorRequestError)) throw err;
      io.stderr.write(`guardtrace-replay: the upload failed (the reports are written): ${err.message}\n`);
      uploadFailed = true;
    }
  }

  const failed = failedBy(report);
  if (failed.length > 0) {
    const which = cmd.failOn.filter((c) => report.summary[c] > 0).map((c) => `${report.summary[c]} ${CHANGE_LABEL[c].toLowerCase()}`);
    io.stderr.write(`guardtrace-replay: failing: ${which.join(', ')} (--fail-on ${cmd.failOn.map((c) => c.replace(/_/g, '-')).join(',')})\n`);
    return EXIT.FAILED_ON;
  }
  return uploadFailed ? EXIT.COLLECTOR : EXIT.OK;
}

async function create(cmd: CreateDatasetCommand, io: Io): Promise<number> {
  let shown = false;
  const ds = await createDataset(cmd.collector, cmd.name, cmd.query, {
    // On a terminal, the count as it grows; elsewhere only the final line.
    onProgress: io.stderr.isTTY
      ? (n) => {
          shown = true;
          io.stderr.write(`\rguardtrace-replay: saving "${cmd.name}": ${n.toLocaleString('en-US')} calls copied`);
        }
      : undefined,
  });
  if (shown) io.stderr.write('\n');
  if (ds.itemCount === 0) {
    // an empty dataset replays nothing (the replay exits 2 on it): the query is what to fix, so say so here
    io.stderr.write(
      `guardtrace-replay: the query ${JSON.stringify(cmd.query)} matched no tool call: dataset "${ds.name}" (${ds.id}) was created empty and has nothing to replay; try the query in the web app's session search first\n`,
    );
    return EXIT.INPUT;
  }
  io.stderr.write(`guardtrace-replay: created dataset "${ds.name}" with ${Number.isNaN(ds.itemCount) ? 'an unknown number of' : ds.itemCount} items from ${JSON.stringify(cmd.query)}\n`);
  // the id alone on stdout, so that DATASET=$(guardtrace-replay dataset create ...) works
  io.stdout.write(`${ds.id}\n`);
  return EXIT.OK;
}

/** Runs the command line; resolves with the exit code. */
export async function main(io: Io): Promise<number> {
  try {
    const cmd = parseCommand(io.argv, io.env);
    if (cmd.kind === 'help') {
      io.stdout.write(USAGE);
      return EXIT.OK;
    }
    return cmd.kind === 'dataset-create' ? await create(cmd, io) : await replay(cmd, io);
  } catch (err) {
    // `dataset create`: a 400 refuses the name or query the user gave (a bad query): an input error
    if (err instanceof CollectorRequestError && err.status === 400 && io.argv[0] === 'dataset') {
      io.stderr.write(`guardtrace-replay: ${err.message}\n`);
      return EXIT.INPUT;
    }
    if (err instanceof UsageError) {
      io.stderr.write(`guardtrace-replay: ${err.message}\nRun "guardtrace-replay --help" for the options.\n`);
      return EXIT.INPUT;
    }
    if (err instanceof InputError) {
      io.stderr.write(`guardtrace-replay: ${err.message}\n`);
      return EXIT.INPUT;
    }
    if (err instanceof CollectorRequestError) {
      io.stderr.write(`guardtrace-replay: ${err.message}\n`);
      // 404: no such dataset; 409: one not fully saved: the input, not the collector, is wrong.
      return err.status === 404 || err.status === 409 ? EXIT.INPUT : EXIT.COLLECTOR;
    }
    throw err;
  }
}
