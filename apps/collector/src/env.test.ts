import { describe, expect, it } from 'vitest';
import { parseEnv } from './env.ts';
import { DEFAULT_LIMITS } from './limits.ts';

describe('parseEnv', () => {
  it('has defaults for everything', () => {
    const e = parseEnv({ DATABASE_URL: 'postgres://u:p@localhost:5432/db' });
    expect(e).toMatchObject({ port: 4318, host: '127.0.0.1', migrateOnStart: true, limits: DEFAULT_LIMITS });
    expect(e.redaction.defaults).toBe(true);
  });

  it('names DATABASE_URL and says to percent-encode a password that breaks the URL (not "is required")', () => {
    expect(() => parseEnv({})).toThrow(/DATABASE_URL: is required/);
    // `openssl rand -base64` passwords: `/` reads as the path's start, `#` as a fragment.
    expect(() => parseEnv({ DATABASE_URL: 'postgres://gt:Xk3/9q+Zt0=@db.internal:5432/gt' })).toThrow(/DATABASE_URL: is not a valid URL: .*percent-encoded/);
    expect(() => parseEnv({ DATABASE_URL: 'postgres://gt:123/abc@db.internal:5432/gt' })).toThrow(/DATABASE_URL: (?:reads as another host or a cut password|is not a valid URL): .*percent-encoded/);
    expect(() => parseEnv({ DATABASE_URL: 'postgres://gt:ab#cd@db.internal:5432/gt' })).toThrow(/DATABASE_URL: (?:reads as another host or a cut password|is not a valid URL): .*percent-encoded/);
    expect(() => parseEnv({ DATABASE_URL: 'mysql://gt@db/gt' })).toThrow(/DATABASE_URL: must be a postgres/);
    expect(parseEnv({ DATABASE_URL: `postgres://gt:${encodeURIComponent('Xk3/9q+Zt0=')}@db.internal:5432/gt` }).databaseUrl).toContain('Xk3%2F9q%2BZt0%3D');
  });

  it('reads limits and redaction rules', () => {
    const e = parseEnv({
      PORT: '0',
      DATABASE_URL: 'postgres://u:p@localhost:5432/db',
      COLLECTOR_RATE_LIMIT_RPS: '5',
      COLLECTOR_MAX_INFLIGHT_BYTES_PER_PROJECT: '65536',
      COLLECTOR_MAX_INFLIGHT_BYTES_PER_KEY: '32768',
      GUARDTRACE_REDACT_DEFAULTS: 'false',
      GUARDTRACE_REDACT_KEYS: '^customer\\.,email$',
      GUARDTRACE_REDACT_VALUES: 'ssn=\\d{3}-\\d{2}-\\d{4};;pin=pin:\\d+',
    });
    expect(e.port).toBe(0);
    expect(e.limits.rateLimitPerSecond).toBe(5);
    expect(e.limits).toMatchObject({ maxInFlightBytesPerProject: 65_536, maxInFlightBytesPerKey: 32_768 });
    expect(e.redaction.defaults).toBe(false);
    expect(e.redaction.keyPatterns?.map(String)).toEqual(['/^customer\\./i', '/email$/i']);
    expect(e.redaction.valueRules?.map((r) => r.name)).toEqual(['ssn', 'pin']);
  });

  it('evaluates alerts every minute by default, linking under the web base URL when set', () => {
    const db = 'postgres://u:p@localhost:5432/db';
    expect(parseEnv({ DATABASE_URL: db }).alerts).toEqual({ intervalMs: 60_000, webUrl: null });
    expect(parseEnv({ DATABASE_URL: db, GUARDTRACE_ALERTS_INTERVAL_SECONDS: '0', GUARDTRACE_BASE_URL: 'https://gt.example.com' }).alerts).toEqual({
      intervalMs: 0,
      webUrl: 'https://gt.example.com',
    });
    expect(() => parseEnv({ DATABASE_URL: db, GUARDTRACE_ALERTS_INTERVAL_SECONDS: '-1' })).toThrow(/GUARDTRACE_ALERTS_INTERVAL_SECONDS/);
    expect(() => parseEnv({ DATABASE_URL: db, GUARDTRACE_BASE_URL: 'gt.example.com' })).toThrow(/GUARDTRACE_BASE_URL/);
  });

  it('requires DATABASE_URL: it never starts a database of its own', () => {
    expect(() => parseEnv({})).toThrow(/DATABASE_URL: is required/);
  });

  it('fails fast naming the variable', () => {
    expect(() => parseEnv({ PORT: 'http' })).toThrow(/PORT/);
    expect(() => parseEnv({ DATABASE_URL: 'not a url' })).toThrow(/DATABASE_URL/);
    expect(() => parseEnv({ COLLECTOR_MAX_BODY_BYTES: '-1' })).toThrow(/COLLECTOR_MAX_BODY_BYTES/);
    expect(() => parseEnv({ COLLECTOR_MAX_INFLIGHT_BYTES_PER_KEY: 'half' })).toThrow(/COLLECTOR_MAX_INFLIGHT_BYTES_PER_KEY/);
    expect(() => parseEnv({ GUARDTRACE_REDACT_KEYS: '(' })).toThrow(/GUARDTRACE_REDACT_KEYS: invalid regular expression/);
    expect(() => parseEnv({ GUARDTRACE_REDACT_VALUES: 'nameonly' })).toThrow(/GUARDTRACE_REDACT_VALUES: expected name=regex/);
  });
});
