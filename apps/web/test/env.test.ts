import { describe, expect, it } from 'vitest';
import { parseServerEnv, serveEnv } from '../src/env.ts';

describe('env', () => {
  it('names DATABASE_URL when it is missing or malformed', () => {
    expect(() => parseServerEnv({})).toThrow(/DATABASE_URL: is required/);
    expect(() => parseServerEnv({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL: must be a postgres/);
    expect(parseServerEnv({ DATABASE_URL: 'postgres://u@h/db' }).DATABASE_URL).toBe('postgres://u@h/db');
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
