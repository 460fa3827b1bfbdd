import { describe, expect, it } from 'vitest';
import { parseServerEnv, serveEnv } from '../src/env.ts';

describe('env', () => {
  it('names DATABASE_URL when it is missing or malformed', () => {
    expect(() => parseServerEnv({})).toThrow(/DATABASE_URL: is required/);
    expect(() => parseServerEnv({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL: must be a postgres/);
    expect(parseServerEnv({ DATABASE_URL: 'postgres://u@h/db' }).DATABASE_URL).toBe('postgres://u@h/db');
    // A password with `/` unencoded (what `openssl rand -base64` makes): the start stops, saying how to write it.
    expect(() => parseServerEnv({ DATABASE_URL: 'postgres://gt:Xk3/9q+Zt0=@h:5432/db' })).toThrow(/DATABASE_URL: is not a valid URL: .*percent-encoded/);
    expect(() => parseServerEnv({ DATABASE_URL: 'postgres://u@h/db', DATABASE_READ_URL: 'postgres://r:a#b@replica/db' })).toThrow(/DATABASE_READ_URL: (?:reads as another host or a cut password|is not a valid URL): .*percent-encoded/);
  });

  it('tells agents the local collector unless a public collector URL is set, and rejects a malformed one', () => {
    const db = { DATABASE_URL: 'postgres://u@h/db' };
    expect(parseServerEnv(db).GUARDTRACE_PUBLIC_COLLECTOR_URL).toBe('http://127.0.0.1:4318');
    expect(parseServerEnv({ ...db, GUARDTRACE_PUBLIC_COLLECTOR_URL: '' }).GUARDTRACE_PUBLIC_COLLECTOR_URL).toBe('http://127.0.0.1:4318');
    expect(parseServerEnv({ ...db, GUARDTRACE_PUBLIC_COLLECTOR_URL: 'https://otel.example.com/' }).GUARDTRACE_PUBLIC_COLLECTOR_URL).toBe(
      'https://otel.example.com',
    );
    expect(() => parseServerEnv({ ...db, GUARDTRACE_PUBLIC_COLLECTOR_URL: 'otel.example.com' })).toThrow(
      /GUARDTRACE_PUBLIC_COLLECTOR_URL: must be an http:\/\/ or https:\/\/ URL/,
    );
  });

  it('reads from DATABASE_READ_URL only when set, with the lag notice at 10 s and the fallback at 60 s by default', () => {
    const db = { DATABASE_URL: 'postgres://u@h/db' };
    expect(parseServerEnv(db).DATABASE_READ_URL).toBeUndefined();
    expect(parseServerEnv(db)).toMatchObject({ GUARDTRACE_READ_LAG_NOTICE_SECONDS: 10, GUARDTRACE_READ_MAX_LAG_SECONDS: 60 });
    expect(parseServerEnv({ ...db, DATABASE_READ_URL: '' }).DATABASE_READ_URL).toBeUndefined();
    const set = parseServerEnv({ ...db, DATABASE_READ_URL: 'postgres://u@replica/db', GUARDTRACE_READ_LAG_NOTICE_SECONDS: '2.5', GUARDTRACE_READ_MAX_LAG_SECONDS: '30' });
    expect(set).toMatchObject({ DATABASE_READ_URL: 'postgres://u@replica/db', GUARDTRACE_READ_LAG_NOTICE_SECONDS: 2.5, GUARDTRACE_READ_MAX_LAG_SECONDS: 30 });
    expect(() => parseServerEnv({ ...db, DATABASE_READ_URL: 'replica:5432' })).toThrow(/DATABASE_READ_URL: must be a postgres/);
    expect(() => parseServerEnv({ ...db, GUARDTRACE_READ_MAX_LAG_SECONDS: 'a minute' })).toThrow(/GUARDTRACE_READ_MAX_LAG_SECONDS: must be a number of seconds/);
    expect(() => parseServerEnv({ ...db, GUARDTRACE_READ_LAG_NOTICE_SECONDS: '-1' })).toThrow(/GUARDTRACE_READ_LAG_NOTICE_SECONDS/);
  });

  it('serves on port 3000 of loopback by default, and needs DATABASE_URL', () => {
    const url = 'postgres://u@h/db';
    expect(serveEnv({ DATABASE_URL: url })).toEqual({
      DATABASE_URL: url,
      PORT: 3000,
      GUARDTRACE_WEB_HOST: '127.0.0.1',
    });
    expect(serveEnv({ DATABASE_URL: url, PORT: '4123' }).PORT).toBe(4123);
    expect(() => serveEnv({ DATABASE_URL: url, PORT: 'abc' })).toThrow(/PORT/);
    expect(() => serveEnv({})).toThrow(/DATABASE_URL: is required/);
  });
});
