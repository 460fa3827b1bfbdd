import { describe, expect, it } from 'vitest';
import { type ReplayCommand, UsageError, parseCommand } from './args.ts';

const ENV = { GUARDTRACE_ENDPOINT: 'http://collector.test:4318/', GUARDTRACE_API_KEY: 'gt_env' };
const usage = (argv: string[], env: Record<string, string | undefined> = {}) => {
  try {
    parseCommand(argv, env);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
};

describe('guardtrace-replay arguments', () => {
  it('a file replay with every report and fail-on', () => {
    const cmd = parseCommand(
      ['--tools', './t.mjs', '--file', 'items.ndjson', '--fail-on', 'newly-allowed,newly_rejected', '--json', 'r.json', '--markdown', 'r.md', '--junit', 'r.xml', '--label', 'abc123', '--web-url', 'https://gt.example.com/'],
      {},
    ) as ReplayCommand;
    expect(cmd).toEqual({
      kind: 'replay',
      tools: './t.mjs',
      exportName: null,
      source: { kind: 'file', path: 'items.ndjson' },
      collector: null,
      execute: 'none',
      failOn: ['newly_allowed', 'newly_rejected'],
      json: 'r.json',
      markdown: 'r.md',
      junit: 'r.xml',
      webUrl: 'https://gt.example.com',
      upload: false,
      label: 'abc123',
    });
  });

  it('takes the OTLP traces URL the SDK\'s setup accepts (…/v1/traces) as the collector it is on', () => {
    // `npm start` prints "OTLP endpoint: http://127.0.0.1:4318/v1/traces"; the SDK's setup takes it as it is
    const env = { GUARDTRACE_ENDPOINT: 'http://127.0.0.1:4318/v1/traces', GUARDTRACE_API_KEY: 'gt_env' };
    const fromEnv = parseCommand(['--tools', 't.mjs', '--dataset', 'ds1'], env) as ReplayCommand;
    expect(fromEnv.collector).toEqual({ endpoint: 'http://127.0.0.1:4318', apiKey: 'gt_env' });
    const create = parseCommand(['dataset', 'create', '--name', 'n', '--query', 'q', '--endpoint', 'https://gt.example.com/otlp/v1/traces/', '--key', 'k'], {});
    expect(create).toMatchObject({ collector: { endpoint: 'https://gt.example.com/otlp' } });
  });

  it('a dataset replay takes the collector from the flags, else from GUARDTRACE_ENDPOINT / GUARDTRACE_API_KEY', () => {
    const fromFlags = parseCommand(['--tools', 't.mjs', '--dataset', 'ds1', '--endpoint', 'http://h:1', '--key', 'gt_flag', '--upload', '--execute', 'read-only', '--export', 'gt'], ENV) as ReplayCommand;
    expect(fromFlags.source).toEqual({ kind: 'dataset', id: 'ds1', collector: { endpoint: 'http://h:1', apiKey: 'gt_flag' } });
    expect(fromFlags).toMatchObject({ upload: true, execute: 'read-only', exportName: 'gt' });
    const fromEnv = parseCommand(['--tools', 't.mjs', '--dataset', 'ds1'], ENV) as ReplayCommand;
    expect(fromEnv.collector).toEqual({ endpoint: 'http://collector.test:4318', apiKey: 'gt_env' });
  });

  it('dataset create', () => {
    expect(parseCommand(['dataset', 'create', '--name', 'old folder', '--query', 'tool:read_file'], ENV)).toEqual({
      kind: 'dataset-create',
      name: 'old folder',
      query: 'tool:read_file',
      collector: { endpoint: 'http://collector.test:4318', apiKey: 'gt_env' },
    });
  });

  it('says what is wrong and what is expected', () => {
    expect(usage(['--file', 'x.ndjson'])).toMatch(/^--tools <module> is required/);
    expect(usage(['--tools', 't.mjs'])).toMatch(/^no dataset: pass --dataset <id> .* or --file <items.ndjson>/);
    expect(usage(['--tools', 't.mjs', '--file', 'a', '--dataset', 'b'])).toMatch(/both given/);
    expect(usage(['--tools', 't.mjs', '--dataset', 'b'])).toBe("--dataset needs the collector's URL: pass --endpoint <url> or set GUARDTRACE_ENDPOINT");
    expect(usage(['--tools', 't.mjs', '--dataset', 'b', '--endpoint', 'http://h'])).toBe('--dataset needs a project API key: pass --key <key> or set GUARDTRACE_API_KEY');
    expect(usage(['--tools', 't.mjs', '--dataset', 'b', '--endpoint', 'h:4318', '--key', 'k'])).toMatch(/--endpoint "h:4318" is not an http\(s\) URL|is not a URL/);
    expect(usage(['--tools', 't.mjs', '--file', 'a', '--upload'], ENV)).toMatch(/^--upload needs --dataset <id>/);
    expect(usage(['--tools', 't.mjs', '--file', 'a', '--execute', 'all'])).toBe('--execute "all": expected "read-only" (or "none", the default: guards only)');
    expect(usage(['--tools', 't.mjs', '--file', 'a', '--fail-on', 'newly-rejected,broken'])).toBe(
      '--fail-on: unknown change "broken": expected a comma-separated list of newly-rejected, newly-allowed, class-changed, feedback-changed, not-replayed',
    );
    expect(usage(['--tools', 't.mjs', '--file', 'a', '--fial-on', 'x'])).toMatch(/Unknown option '--fial-on'/);
    expect(usage(['--tools', 't.mjs', '--file', 'a', 'extra'])).toMatch(/^unexpected argument "extra"/);
    expect(usage(['--tools', '', '--file', 'a'])).toMatch(/^--tools is empty/);
    expect(usage(['dataset', 'list'])).toBe('unknown command "dataset list": expected "dataset create"');
    expect(usage(['dataset', 'create', '--name', 'n'], ENV)).toMatch(/^dataset create needs --query <query>/);
  });

  it('--help wins over everything else', () => {
    expect(parseCommand(['--help'], {})).toEqual({ kind: 'help' });
    expect(parseCommand(['dataset', 'create', '-h'], {})).toEqual({ kind: 'help' });
  });
});
