import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from './config.ts';
import { bearerFromHeaders, collectorFromEnv } from './env.ts';

const bad = (raw: unknown): string => {
  try {
    parseConfig(raw, 'gt.json', '/base');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the config was accepted');
};

describe('config file', () => {
  it('has defaults for everything', () => {
    const c = parseConfig({}, 'gt.json', '/base');
    expect(c).toMatchObject({ serviceName: 'guardtrace-mcp', unknownArguments: 'reject', tools: {}, session: {} });
    expect(c.pathArguments).toEqual(['path', 'paths', 'source', 'destination']);
  });

  it('resolves roots against the config file folder', () => {
    expect(parseConfig({ roots: ['ws', '/abs'] }, 'gt.json', '/base').roots).toEqual(['/base/ws', '/abs']);
  });

  it('names the file and the path of a field with the wrong type', () => {
    const m = bad({ tools: { write_file: { locks: ['path', 3] } } });
    expect(m).toContain('invalid config gt.json');
    expect(m).toMatch(/tools\.write_file\.locks\[1\]: .*expected string, received number/);
  });

  it('refuses unknown keys (a typo must not silently turn a guard off)', () => {
    expect(bad({ rots: ['ws'] })).toMatch(/\(top level\): Unrecognized key: "rots"/);
    expect(bad({ tools: { t: { precondition: [] } } })).toMatch(/tools\.t: Unrecognized key: "precondition"/);
  });

  it('checks regular expressions, policy classes and decisions', () => {
    expect(bad({ tools: { t: { preconditions: [{ name: 'n', argument: 'path', notMatches: '(', message: 'm' }] } } })).toMatch(
      /tools\.t\.preconditions\[0\]\.notMatches: expected a valid JavaScript regular expression/,
    );
    expect(bad({ tools: { t: { preconditions: [{ name: 'n', argument: 'path', message: 'm' }] } } })).toMatch(/preconditions\[0\]: expected "matches" or "notMatches"/);
    expect(bad({ policy: { transient: { decision: 'try_harder' } } })).toMatch(/policy\.transient\.decision: .*"retry_backoff"/);
    expect(bad({ policy: { flaky: { retries: 1 } } })).toMatch(/policy: Unrecognized key: "flaky"/);
    expect(bad({ budgets: { maxAttemptsPerCall: 0 } })).toMatch(/budgets\.maxAttemptsPerCall: .*>0/);
    expect(bad({ collector: { endpoint: 'localhost:4318', apiKey: 'k' } })).toMatch(/collector\.endpoint/);
  });

  it('names a file that is not JSON, or missing', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gt-mcp-config-'));
    const file = path.join(dir, 'gt.json');
    writeFileSync(file, '{ "roots": [ }');
    expect(() => loadConfig(file)).toThrow(new RegExp(`config ${file} is not valid JSON`));
    expect(() => loadConfig(path.join(dir, 'none.json'))).toThrow(/cannot read config .*none\.json/);
  });
});

describe('collector from the environment', () => {
  it('reads the bearer key out of OTEL_EXPORTER_OTLP_HEADERS', () => {
    expect(bearerFromHeaders('x-a=1,Authorization=Bearer%20gt_abc')).toBe('gt_abc');
    expect(bearerFromHeaders('authorization=Basic Zm9v')).toBeUndefined();
    expect(collectorFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer gt_1' })).toEqual({
      endpoint: 'http://c:4318',
      apiKey: 'gt_1',
    });
    expect(collectorFromEnv({ GUARDTRACE_ENDPOINT: 'http://g', GUARDTRACE_API_KEY: 'gt_2', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://o' })).toEqual({
      endpoint: 'http://g',
      apiKey: 'gt_2',
    });
    expect(collectorFromEnv({})).toBeUndefined();
  });

  it('says what is missing when only half a collector is set', () => {
    expect(() => collectorFromEnv({ GUARDTRACE_ENDPOINT: 'http://g' })).toThrow(/not an API key \(GUARDTRACE_API_KEY/);
    expect(() => collectorFromEnv({ GUARDTRACE_API_KEY: 'gt_1' })).toThrow(/not an endpoint/);
  });
});
