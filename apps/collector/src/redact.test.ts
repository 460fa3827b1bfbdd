import { describe, expect, it } from 'vitest';
import { Redactor } from './redact.ts';

const r = new Redactor();

describe('Redactor defaults', () => {
  it.each([
    ['Authorization: Bearer eyJhbGciOiJIUzI1NiJ9abcdefgh', 'Authorization: Bearer [REDACTED:bearer_token]'],
    ['key sk-proj-abcdefghijklmnopqrstuvwx123 used', 'key [REDACTED:api_key] used'],
    ['token ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'token [REDACTED:api_key]'],
    ['gt_abcdefghijklmnopqrstuvwxyz0123456789ABCD', '[REDACTED:api_key]'],
    ['aws AKIAIOSFODNN7EXAMPLE here', 'aws [REDACTED:aws_access_key_id] here'],
    ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'aws_secret_access_key = [REDACTED:aws_secret_access_key]'],
    ['postgres://app:hunter22@db.internal:5432/prod', 'postgres://app:[REDACTED:url_password]@db.internal:5432/prod'],
    ['GET /api?user=bo&password=swordfish&x=1', 'GET /api?user=bo&password=[REDACTED:credential_param]&x=1'],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----', '[REDACTED:private_key]'],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', '[REDACTED:jwt]'],
  ])('%s', (input, expected) => {
    expect(r.text(input)).toBe(expected);
  });

  it('leaves ordinary text alone', () => {
    for (const s of ['Missing required field "content"', 'src/components/Button.tsx', 'https://example.com/a/b', 'short']) {
      expect(r.text(s)).toBe(s);
    }
  });

  it('redacts whole values of secret-looking keys, but not token counts', () => {
    const attrs = {
      'http.request.header.authorization': 'Basic dXNlcjpwYXNz',
      'db.password': 'p',
      'app.api_key': 12345,
      'gen_ai.usage.input_tokens': 4000,
      'guardtrace.repair.tokens': 18000,
      'guardtrace.idempotency_key': 'idk_1',
      nested: { client_secret: 'abc', list: ['Bearer abcdefghijkl'] },
    };
    r.attributes(attrs);
    expect(attrs).toEqual({
      'http.request.header.authorization': '[REDACTED:sensitive_key]',
      'db.password': '[REDACTED:sensitive_key]',
      'app.api_key': '[REDACTED:sensitive_key]',
      'gen_ai.usage.input_tokens': 4000,
      'guardtrace.repair.tokens': 18000,
      'guardtrace.idempotency_key': 'idk_1',
      nested: { client_secret: '[REDACTED:sensitive_key]', list: ['Bearer [REDACTED:bearer_token]'] },
    });
  });
});

describe('Redactor configuration', () => {
  it('adds key and value patterns, and can drop the defaults', () => {
    const custom = new Redactor({ defaults: false, keyPatterns: [/^customer\.email$/i], valueRules: [{ name: 'ssn', pattern: /\b\d{3}-\d{2}-\d{4}\b/g }] });
    const attrs: Record<string, string> = { 'customer.email': 'a@b.c', note: 'ssn 123-45-6789 and Bearer abcdefghijkl' };
    custom.attributes(attrs);
    expect(attrs).toEqual({ 'customer.email': '[REDACTED:sensitive_key]', note: 'ssn [REDACTED:ssn] and Bearer abcdefghijkl' });
  });
});
