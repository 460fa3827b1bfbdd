/**
 * The command line of `guardtrace-replay`, parsed with node:util's parseArgs into what main.ts
 * runs. Every mistake is a UsageError saying what was wrong and what is expected (exit code 2).
 * The collector's endpoint and key fall back to GUARDTRACE_ENDPOINT / GUARDTRACE_API_KEY, as for
 * the SDK's setup; the environment is passed in, never read here.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { REPLAY_CHANGE, type ReplayChange } from '@guardtrace/semconv';

export const USAGE = `Usage:
  guardtrace-replay --tools <module> (--dataset <id> | --file <items.ndjson>) [options]
  guardtrace-replay dataset create --name <name> --query <query> [--endpoint <url>] [--key <key>]

Replays recorded tool calls through the guards and policy your tools module defines now, and
reports what changed: newly rejected, newly allowed, class changed, feedback changed.
Nothing with side effects runs: guards only, unless --execute read-only.

Options:
  --tools <module>       your module (.mjs/.js/.cjs) whose default export is your Guardtrace
                         instance, a function returning it, or a promise of it
  --export <name>        use this named export of the module instead of the default
  --dataset <id>         stream the dataset from the collector (GET /v1/datasets/<id>)
  --file <path>          read the dataset items from an NDJSON file ("-" for stdin)
  --endpoint <url>       collector URL, as the SDK's setup takes it (default: GUARDTRACE_ENDPOINT)
  --key <key>            project API key (default: GUARDTRACE_API_KEY)
  --execute read-only    also run the read-only tools, so post-execution checks run
  --fail-on <changes>    exit 1 when any of these occurred: newly-rejected, newly-allowed,
                         class-changed, feedback-changed, not-replayed (comma-separated)
  --json <file>          write the run report as JSON
  --markdown <file>      write a Markdown report (for a pull request comment)
  --junit <file>         write a JUnit XML report
  --web-url <url>        the web app's URL: reports link each call to its replay step
                         (default: GUARDTRACE_WEB_URL)
  --upload               upload the run report to the collector (needs --dataset)
  --label <text>         a label for the run, e.g. the commit of the guard change
  -h, --help             this text

Exit codes: 0 done, 1 a --fail-on change occurred, 2 usage or input error, 3 collector error.
`;

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface Collector {
  endpoint: string;
  apiKey: string;
}

export interface ReplayCommand {
  kind: 'replay';
  tools: string;
  exportName: string | null;
  source: { kind: 'dataset'; id: string; collector: Collector } | { kind: 'file'; path: string };
  /** Set when --upload, or a dataset source, needs it. */
  collector: Collector | null;
  execute: 'none' | 'read-only';
  failOn: ReplayChange[];
  json: string | null;
  markdown: string | null;
  junit: string | null;
  webUrl: string | null;
  upload: boolean;
  label: string | null;
}

export interface CreateDatasetCommand {
  kind: 'dataset-create';
  name: string;
  query: string;
  collector: Collector;
}

export type Command = ReplayCommand | CreateDatasetCommand | { kind: 'help' };

/** `newly-rejected` (or `newly_rejected`) → the change; every change but `unchanged` may be failed on. */
const FAIL_ON_NAMES: Record<string, ReplayChange> = Object.fromEntries(
  Object.values(REPLAY_CHANGE)
    .filter((c) => c !== REPLAY_CHANGE.UNCHANGED)
    .map((c) => [c.replace(/_/g, '-'), c]),
);

type Env = Record<string, string | undefined>;

function parse(argv: string[], options: NonNullable<ParseArgsConfig['options']>) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (err) {
    // parseArgs says e.g. "Unknown option '--fial-on'"; the usage text follows in main.ts
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

function nonEmpty(value: string | undefined, flag: string, expected: string): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new UsageError(`${flag} is empty: expected ${expected}`);
  return value;
}

function httpUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${what} "${value}" is not a URL: expected http(s)://host[:port]`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${what} "${value}" is not an http(s) URL`);
  return value.replace(/\/+$/, '');
}

function collectorOf(values: { endpoint?: string; key?: string }, env: Env, why: string): Collector {
  const endpoint = nonEmpty(values.endpoint, '--endpoint', 'the collector URL') ?? (env.GUARDTRACE_ENDPOINT || undefined);
  const apiKey = nonEmpty(values.key, '--key', 'a project API key') ?? (env.GUARDTRACE_API_KEY || undefined);
  if (!endpoint) throw new UsageError(`${why} needs the collector's URL: pass --endpoint <url> or set GUARDTRACE_ENDPOINT`);
  if (!apiKey) throw new UsageError(`${why} needs a project API key: pass --key <key> or set GUARDTRACE_API_KEY`);
  // the collector's base URL; an OTLP traces URL (…/v1/traces), which the SDK's setup takes as it is, names the same collector
  const base = httpUrl(endpoint, values.endpoint ? '--endpoint' : 'GUARDTRACE_ENDPOINT').replace(/\/v1\/traces$/, '');
  return { endpoint: base, apiKey };
}

function parseFailOn(raw: string | undefined): ReplayChange[] {
  if (raw === undefined) return [];
  const out: ReplayChange[] = [];
  for (const name of raw.split(',').map((s) => s.trim().toLowerCase())) {
    if (name === '') continue;
    const change = FAIL_ON_NAMES[name.replace(/_/g, '-')];
    if (!change) throw new UsageError(`--fail-on: unknown change "${name}": expected a comma-separated list of ${Object.keys(FAIL_ON_NAMES).join(', ')}`);
    if (!out.includes(change)) out.push(change);
  }
  if (out.length === 0) throw new UsageError(`--fail-on is empty: expected a comma-separated list of ${Object.keys(FAIL_ON_NAMES).join(', ')}`);
  return out;
}

function parseDatasetCreate(argv: string[], env: Env): Command {
  const { values, positionals } = parse(argv, {
    name: { type: 'string' },
    query: { type: 'string' },
    endpoint: { type: 'string' },
    key: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return { kind: 'help' };
  if (positionals.length > 0) throw new UsageError(`dataset create: unexpected argument "${positionals[0]}": the name and query go in --name and --query`);
  const name = nonEmpty(values.name as string | undefined, '--name', 'the dataset name');
  const query = nonEmpty(values.query as string | undefined, '--query', 'an explorer query, e.g. "tool:query_db class:guard_violation"');
  if (!name) throw new UsageError('dataset create needs --name <name>');
  if (!query) throw new UsageError('dataset create needs --query <query> (the explorer\'s query syntax, e.g. "tool:query_db started:>=2026-11-01")');
  return { kind: 'dataset-create', name, query, collector: collectorOf(values as { endpoint?: string; key?: string }, env, 'dataset create') };
}

export function parseCommand(argv: string[], env: Env): Command {
  if (argv[0] === 'dataset') {
    if (argv[1] === 'create') return parseDatasetCreate(argv.slice(2), env);
    throw new UsageError(`unknown command "${['dataset', argv[1] ?? ''].join(' ').trim()}": expected "dataset create"`);
  }
  const { values: v, positionals } = parse(argv, {
    tools: { type: 'string' },
    export: { type: 'string' },
    dataset: { type: 'string' },
    file: { type: 'string' },
    endpoint: { type: 'string' },
    key: { type: 'string' },
    execute: { type: 'string' },
    'fail-on': { type: 'string' },
    json: { type: 'string' },
    markdown: { type: 'string' },
    junit: { type: 'string' },
    'web-url': { type: 'string' },
    upload: { type: 'boolean' },
    label: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  const values = v as { [k: string]: string | boolean | undefined; upload?: boolean; help?: boolean } as Record<string, string | undefined> & { upload?: boolean; help?: boolean; endpoint?: string; key?: string };
  if (values.help) return { kind: 'help' };
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}": the options take their values as "--option value"`);
  const tools = nonEmpty(values.tools, '--tools', 'the path of the module that defines your tools');
  if (!tools) throw new UsageError('--tools <module> is required: the module whose default export is your Guardtrace instance');
  const dataset = nonEmpty(values.dataset, '--dataset', 'a dataset id');
  const file = nonEmpty(values.file, '--file', 'the path of an NDJSON file of dataset items');
  if (dataset && file) throw new UsageError('--dataset and --file both given: replay one source, the collector\'s dataset or a file');
  if (!dataset && !file) throw new UsageError('no dataset: pass --dataset <id> (with --endpoint and --key) or --file <items.ndjson>');
  if (values.upload && !dataset) throw new UsageError('--upload needs --dataset <id>: runs are kept per dataset of the collector');
  const execute = values.execute ?? 'none';
  if (execute !== 'none' && execute !== 'read-only') throw new UsageError(`--execute "${execute}": expected "read-only" (or "none", the default: guards only)`);
  const collector = dataset || values.upload ? collectorOf(values, env, dataset ? '--dataset' : '--upload') : null;
  const webUrl = nonEmpty(values['web-url'], '--web-url', 'the web app\'s URL') ?? (env.GUARDTRACE_WEB_URL || undefined);
  return {
    kind: 'replay',
    tools,
    exportName: nonEmpty(values.export, '--export', 'the name of an export of the tools module') ?? null,
    source: dataset ? { kind: 'dataset', id: dataset, collector: collector! } : { kind: 'file', path: file! },
    collector,
    execute,
    failOn: parseFailOn(values['fail-on']),
    json: nonEmpty(values.json, '--json', 'a file path') ?? null,
    markdown: nonEmpty(values.markdown, '--markdown', 'a file path') ?? null,
    junit: nonEmpty(values.junit, '--junit', 'a file path') ?? null,
    webUrl: webUrl ? httpUrl(webUrl, values['web-url'] ? '--web-url' : 'GUARDTRACE_WEB_URL') : null,
    upload: values.upload ?? false,
    label: values.label ?? null,
  };
}
