import { asText, fragments, ORDINARY_PAYLOADS, SECRET_SHAPES, type SecretShape } from '@guardtrace/secret-corpus';
import { SHAPE_RULES } from '@guardtrace/semconv/secret-rules';
import { describe, expect, it } from 'vitest';
import { RedactionScope, Redactor } from './redact.ts';
import { testSpan } from './test-span.ts';

const r = new Redactor();

describe('Redactor defaults', () => {
  it.each([
    ['Authorization: Bearer eyJhbGciOiJIUzI1NiJ9abcdefgh', 'Authorization: Bearer [REDACTED:bearer_token]'],
    ['key sk-proj-abcdefghijklmnopqrstuvwx123 used', 'key [REDACTED:api_key] used'],
    ['token ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'token [REDACTED:api_key]'],
    ['gt_abcdefghijklmnopqrstuvwxyz0123456789ABCD', '[REDACTED:api_key]'],
    ['aws AKIAIOSFODNN7EXAMPLE here', 'aws [REDACTED:aws_access_key_id] here'],
    ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'aws_secret_access_key = [REDACTED:sensitive_key]'],
    ['postgres://app:hunter22@db.internal:5432/prod', 'postgres://app:[REDACTED:url_password]@db.internal:5432/prod'],
    ['GET /api?user=bo&password=swordfish&x=1', 'GET /api?user=bo&password=[REDACTED:sensitive_key]&x=1'],
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
      nested: { client_secret: 'abc', list: ['Bearer abc123def456'] },
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

describe('damage around a secret (a fifth held-out set)', () => {
  const r = new Redactor();
  it.each([
    // Encoded text keeps its encoding up to the secret (it was returned decoded whole).
    ['q=password%3DRiver.lantern1894%3F&lang=en', 'q=password%3D[REDACTED:sensitive_key]&lang=en'],
    ['{\\u0022password\\u0022: \\u0022Hunter2-abcdefg\\u0022, \\u0022user\\u0022: \\u0022bob\\u0022}', '{\\u0022password\\u0022: \\u0022[REDACTED:sensitive_key]\\u0022, \\u0022user\\u0022: \\u0022bob\\u0022}'],
    // A URL's host and path stay (they were taken with the token).
    ['git remote set-url origin https://x-access-token:ghp_v2Hd0DpEZWSxrQTMF889he6FHRsY9f69e78t@github.com/acme/api.git', 'git remote set-url origin https://x-access-token:[REDACTED:api_key]@github.com/acme/api.git'],
    // Another rule's marker is not cut in two.
    ['SENTRY_DSN=https://7412d0d26ac406e4940f5ef43b69ec93@o614045.ingest.sentry.io/8637722', 'SENTRY_DSN=https://[REDACTED:url_password]@o614045.ingest.sentry.io/8637722'],
    // Code keeps its quotes and commas.
    ["      Authorization: 'token ghp_vI3IdVb0jHLpbXYHOilLlLfDTT7ddJzbWlyq',", "      Authorization: 'token [REDACTED:api_key]',"],
    // A connection string's labels stay; its secret goes.
    ['ConnectionString: Server=sql01;Database=HR;User Id=sa;Password=Tangovelvet1603+;', 'ConnectionString: Server=sql01;Database=HR;User Id=sa;Password=[REDACTED:sensitive_key];'],
    ['Reset your password: https://app.acme.io/reset-password?token=6c29scn8sjy8e37ml6m2t3vi5ppvy3yz&email=jane%40acme.io', 'Reset your password: https://app.acme.io/reset-password?token=[REDACTED:sensitive_key]&email=jane%40acme.io'],
  ])('%s', (input, expected) => {
    expect(r.text(input)).toBe(expected);
  });
});

describe('damage around a secret (a sixth held-out set)', () => {
  const r = new Redactor();
  it.each([
    // A cookie header: each cookie that can sign someone in, the preferences and attributes kept.
    ['Cookie: theme=light; session_id=bXlzZXNzaW9uaWQxMjM0NTY3OA; lang=de-DE', 'Cookie: theme=light; session_id=[REDACTED:credential_header]; lang=de-DE'],
    ['Set-Cookie: auth=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5; Path=/; Secure; HttpOnly', 'Set-Cookie: auth=[REDACTED:credential_header]; Path=/; Secure; HttpOnly'],
    ['Cookie: locale=fr-FR; theme=dark', 'Cookie: locale=fr-FR; theme=dark'],
    // An Authorization's scheme, and its parameters other than the secret ones.
    ['Authorization: SSWS 00aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789_-ab', 'Authorization: SSWS [REDACTED:credential_header]'],
    ['Authorization: key=AAAAb3dE5gH:APA91bQ3sT5vX7zA9cE1gI3kM5oQ7aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7aB3dE5', 'Authorization: key=[REDACTED:api_key]'],
    [
      'Authorization: Digest username="svc", realm="api", uri="/x", response="6629fae49393a05397450978507c4ef1", qop=auth',
      'Authorization: Digest username="svc", realm="api", uri="/x", response="[REDACTED:credential_header]", qop=auth',
    ],
    // A signed URL's credential: its key id, not its scope.
    [
      'X-Amz-Credential=AKIAQ3EGR5XW2ZLDLA7B%2F20261201%2Feu-central-1%2Fs3%2Faws4_request&X-Amz-Expires=600',
      'X-Amz-Credential=[REDACTED:aws_access_key_id]%2F20261201%2Feu-central-1%2Fs3%2Faws4_request&X-Amz-Expires=600',
    ],
    // Webhooks: the host and the ids before the token stay.
    ['https://discord.com/api/webhooks/1234567890123456789/aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7', 'https://discord.com/api/webhooks/1234567890123456789/[REDACTED:webhook_url]'],
    ['https://hooks.slack.com/services/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', 'https://hooks.slack.com/services/T0ABC12DE/B0FGH34IJ/[REDACTED:webhook_url]'],
    // A Secret's quoted value keeps its quotes (a bare `[…]` is a YAML list).
    ['kind: Secret\nstringData:\n  KEY: "s3cr3tV4lue-abcdefghij"', 'kind: Secret\nstringData:\n  KEY: "[REDACTED:config_secret]"'],
    // A connection string in an attribute: its labels stay.
    [
      '<add name="Bus" connectionString="Endpoint=sb://bus.example.net/;SharedAccessKeyName=send;SharedAccessKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MDEyMzQ1Njc4OTA=" />',
      '<add name="Bus" connectionString="Endpoint=sb://bus.example.net/;SharedAccessKeyName=send;SharedAccessKey=[REDACTED:sensitive_key]" />',
    ],
    // A sentence's full stop; the line after a word that ends one; a scope operator; code's arguments.
    ['Your token is q8WnR2tY6uI0oP4aS8dF2gH6jK. Keep it.', 'Your token is [REDACTED:text_token]. Keep it.'],
    ['# host:port:db:user:password\ndb.internal:5432:*:app:Wq8nR2tY6uI0', '# host:port:db:user:password\ndb.internal:5432:*:app:[REDACTED:config_secret]'],
    ['session = ShopifyAPI::Auth::Session.new(shop: "a.myshopify.com")', 'session = ShopifyAPI::Auth::Session.new(shop: "a.myshopify.com")'],
    ['final client = NotionClient(token: notionToken);', 'final client = NotionClient(token: notionToken);'],
    ['$pwd = ConvertTo-SecureString "Kz7!pQ2#rT9w" -AsPlainText -Force', '$pwd = ConvertTo-SecureString "[REDACTED:cli_password]" -AsPlainText -Force'],
  ])('%s', (input, expected) => {
    expect(r.text(input)).toBe(expected);
  });
});

describe('damage around a secret (a seventh held-out set)', () => {
  const r = new Redactor();
  it.each([
    // Another rule's marker is no name: the host and path after a token it took stay.
    [
      'git config --global url."https://github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ab:x-oauth-basic@github.com/acme/".insteadOf "https://github.com/acme/"',
      'git config --global url."https://[REDACTED:api_key]:x-oauth-basic@github.com/acme/".insteadOf "https://github.com/acme/"',
    ],
    // A URL password holding an unencoded `@`: all of it, not the part before the first `@`.
    ['index-url = https://builder:Mq7@v2x9@pypi.internal.example/simple', 'index-url = https://builder:[REDACTED:url_password]@pypi.internal.example/simple'],
    // A verb at the start of a word is no verb (`Je…` is not Czech's `je`): the password after `ist`, not `nkins-Server`.
    ['Das Passwort für den Jenkins-Server ist Qw7!rT2#kLp9, Benutzer ist deploy.', 'Das Passwort für den Jenkins-Server ist [REDACTED:log_password], Benutzer ist deploy.'],
    // SASL's mechanism names are no passwords; a log line's next pair is no password.
    ['250-AUTH PLAIN LOGIN\nAUTH LOGIN\n334 VXNlcm5hbWU6', '250-AUTH PLAIN LOGIN\nAUTH LOGIN\n334 VXNlcm5hbWU6'],
    ['* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN AUTH=LOGIN] ready', '* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN AUTH=LOGIN] ready'],
    ['WARN login failed user=dana reason=bad_password attempts=3 ip=203.0.113.7', 'WARN login failed user=dana reason=bad_password attempts=3 ip=203.0.113.7'],
    // A cookie header as a JSON member (a devtools "Copy as fetch"): cookie by cookie, as a header line is.
    [
      '"headers": {"cookie": "_ga=GA1.1.1234567890.1735689600; sb-access-token=zYEqVw8jIcTOtHf7i6S9WLmgUeA11VQ; theme=dark"}',
      '"headers": {"cookie": "_ga=GA1.1.1234567890.1735689600; sb-access-token=[REDACTED:credential_header]; theme=dark"}',
    ],
    // A card's magnetic track: the holder, the expiry and the discretionary data go with the number.
    ['%B4539899720743225^DOE/JANE^2908101547472148000165000000?', '%B[REDACTED:card_number]?'],
  ])('%s', (input, expected) => {
    expect(r.text(input)).toBe(expected);
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

/** The forms a shape takes in a span's strings: text, JSON, JSON escaped in JSON, base64. */
function forms(s: SecretShape): [string, string][] {
  const json = JSON.stringify(s.key ? { [s.key]: s.secret } : { note: asText(s) });
  return [
    ['text', asText(s)],
    ['json', json],
    ['json-in-json', JSON.stringify({ args: JSON.stringify({ request: json }) })],
    ['base64', Buffer.from(asText(s)).toString('base64')],
  ];
}

describe('the secret corpus', () => {
  it.each(SECRET_SHAPES.map((s) => [s.id, s] as const))('%s: redacted as text, JSON, JSON in JSON and base64, the JSON still JSON', (_, shape) => {
    for (const [form, input] of forms(shape)) {
      const out = r.text(input);
      expect(out, form).toContain('[REDACTED:');
      for (const f of fragments(shape)) expect(out, form).not.toContain(f);
      // A marker never lands inside an escape: the replay still parses what was stored.
      if (form.startsWith('json')) expect(() => JSON.parse(out), `${form}: ${out}`).not.toThrow();
      if (form === 'json-in-json') expect(() => JSON.parse(JSON.parse(JSON.parse(out).args).request), out).not.toThrow();
    }
  });

  it('redacts the value of a secret name used as an attribute key, in a map and in an array', () => {
    for (const s of SECRET_SHAPES.filter((x) => x.key)) {
      const key = s.key as string;
      const attrs = { [key]: s.secret, map: { [key]: s.secret }, list: [{ [key]: s.secret }] };
      r.attributes(attrs);
      expect(JSON.stringify(attrs), key).not.toContain(s.secret);
    }
  });
});

describe('gated rules', () => {
  // A rule with a gate is tried only on strings holding one of its substrings: a gate a match
  // can lack would let that secret through unseen. Every match in the corpus holds one (in any case).
  it('base64 of every shape inside a longer string: a JSON value, a data URI, a `base64 -d` pipe', () => {
    const kept: string[] = [];
    for (const shape of SECRET_SHAPES) {
      const b64 = Buffer.from(asText(shape)).toString('base64');
      for (const input of [JSON.stringify({ path: 'a.env', data: b64 }), `data:text/plain;base64,${b64}`, `echo ${b64} | base64 -d > .env`]) {
        const out = r.text(input);
        // (Base64 that a vendor shape knows by its start, a service account's JSON, is taken as that: `api_key`.)
        if (out.includes(b64) || !/\[REDACTED:(?:encoded_secret|api_key)\]/.test(out)) kept.push(`${shape.id}: ${input.slice(0, 60)}`);
      }
    }
    expect(kept).toEqual([]);
    // Binary data and text without a secret stay as they are.
    const png = JSON.stringify({ img: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 40 }, (_, i) => i)]).toString('base64') });
    expect(r.text(png)).toBe(png);
    const plain = JSON.stringify({ note: Buffer.from('hello world, this is not a secret').toString('base64') });
    expect(r.text(plain)).toBe(plain);
  });

  it('every match of a gated rule, in every corpus text and form, holds one of its substrings', () => {
    const texts = [...SECRET_SHAPES.flatMap((s) => forms(s).map(([, t]) => t)), ...ORDINARY_PAYLOADS.map((p) => p.text)];
    const missed: string[] = [];
    for (const rule of SHAPE_RULES.filter((r) => r.gate)) {
      const all = new RegExp(rule.pattern.source, rule.pattern.flags.includes('g') ? rule.pattern.flags : `${rule.pattern.flags}g`);
      for (const t of texts) {
        // A rule with a condition on the whole string (`when`) may have its substring there, outside the match.
        if (rule.when && !rule.when(t)) continue;
        const where = (m: RegExpMatchArray) => (rule.when ? t : m[0]).toLowerCase();
        for (const m of t.matchAll(all)) if (!rule.gate?.some((g) => where(m).includes(g.toLowerCase()))) missed.push(`${rule.name}: ${m[0].slice(0, 80)}`);
      }
    }
    expect(missed).toEqual([]);
    expect(SHAPE_RULES.filter((r) => r.gate).length).toBeGreaterThan(10);
  });
});

describe('issue 13, item 4', () => {
  it('a password in tool arguments, keys without a separator, api_token and secret_token', () => {
    const attrs = {
      'gen_ai.tool.call.arguments': '{"user":"bo","password":"hunter2-Zq9"}',
      userPassword: 'hunter2-Zq9',
      api_token: 'tok-8f7e6d5c4b',
      secret_token: 'tok-1a2b3c4d5e',
    };
    r.attributes(attrs);
    expect(attrs).toEqual({
      'gen_ai.tool.call.arguments': '{"user":"bo","password":"[REDACTED:sensitive_key]"}',
      userPassword: '[REDACTED:sensitive_key]',
      api_token: '[REDACTED:sensitive_key]',
      secret_token: '[REDACTED:sensitive_key]',
    });
  });

  it('keeps JSON valid: a number under a secret name becomes a quoted marker, a schema stays', () => {
    const args = JSON.stringify({ api_key: 12345, n: 1, schema: { password: { type: 'string' } } });
    expect(JSON.parse(r.text(args))).toEqual({ api_key: '[REDACTED:sensitive_key]', n: 1, schema: { password: { type: 'string' } } });
    const nested = JSON.stringify({ body: JSON.stringify({ apiToken: 987654321 }) });
    expect(JSON.parse(JSON.parse(r.text(nested)).body)).toEqual({ apiToken: '[REDACTED:sensitive_key]' });
  });

  it('card numbers that pass the Luhn check, plain, spaced or dashed (published test numbers too: a rule cannot tell where they were used); others are kept', () => {
    for (const card of ['4539899720743225', '4539 8997 2074 3225', '5425-4994-5206-7838', '3714 825396 72858', '4111111111111111', '4242 4242 4242 4242']) {
      expect(r.text(`paid with ${card}.`)).toBe('paid with [REDACTED:card_number].');
    }
    for (const other of ['4539899720743226', '4539 8997 2074 3226', 'order 1764504000123456789']) {
      expect(r.text(other)).toBe(other);
    }
  });

  it('a key sent as bytes (base64) is replaced whole; binary bytes are kept', () => {
    const key = Buffer.from('sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789').toString('base64');
    expect(r.text(key)).toBe('[REDACTED:encoded_secret]');
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    expect(r.text(png)).toBe(png);
  });
});

/** False positives allowed on ordinary payloads: at most 1% of them (docs/collector.md). */
const MAX_FALSE_POSITIVE_RATE = 0.01;

describe('false positives', () => {
  it(`changes at most ${MAX_FALSE_POSITIVE_RATE * 100}% of ${ORDINARY_PAYLOADS.length} ordinary agent payloads`, () => {
    expect(ORDINARY_PAYLOADS.length).toBeGreaterThanOrEqual(200);
    const changed = ORDINARY_PAYLOADS.filter((p) => {
      const attrs = { 'app.text': p.text, 'gen_ai.tool.call.arguments': JSON.stringify({ text: p.text }) };
      r.attributes(attrs);
      return attrs['app.text'] !== p.text || attrs['gen_ai.tool.call.arguments'] !== JSON.stringify({ text: p.text });
    });
    // (English that reads as a config line, "Your password: keep it safe" and "Invalid password:
    // expected at least 12 characters", was changed until 2026-12-07: a word with two more after it is prose.)
    expect(changed.map((p) => p.id)).toEqual([]);
    expect(changed.length / ORDINARY_PAYLOADS.length).toBeLessThanOrEqual(MAX_FALSE_POSITIVE_RATE);
  });
});

describe('a request scope (RedactionScope)', () => {
  const secret = 'sk-proj-abcdefghijklmnopqrstuvwx123';
  it('redacts a string that recurs across the spans of a request in each of them, names and events too', () => {
    const scope = new RedactionScope();
    const spans = [0, 1, 2].map((i) =>
      testSpan(`call ${secret}`, { 'gen_ai.tool.call.arguments': `{"key":"${secret}"}`, 'gen_ai.tool.name': 'write_file', n: i }, {
        events: [{ name: `event ${secret}`, timeUnixNano: '1', attributes: { note: `see ${secret}` } }],
        statusMessage: `failed with ${secret}`,
      }),
    );
    for (const s of spans) r.span(s, scope);
    for (const s of spans) {
      const text = JSON.stringify(s, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
      expect(text).not.toContain(secret);
      expect(s.name).toBe('call [REDACTED:api_key]');
      expect(s.statusMessage).toBe('failed with [REDACTED:api_key]');
      expect(s.attributes['gen_ai.tool.name']).toBe('write_file');
    }
    // Remembered as redacted, not as it came.
    expect(scope.memo.get(`{"key":"${secret}"}`)).toBe('{"key":"[REDACTED:api_key]"}');
  });

  it('holds at most its bound of characters; strings past it are still redacted', () => {
    const scope = new RedactionScope();
    const attrs: Record<string, string> = {};
    for (let i = 0; i < 400; i++) attrs[`a${i}`] = `${'x'.repeat(1000)} ${i} ${secret}`;
    r.attributes(attrs, scope);
    expect(scope.chars).toBeLessThanOrEqual(256 * 1024);
    expect(scope.memo.size).toBeGreaterThan(0);
    for (const v of Object.values(attrs)) expect(v).not.toContain(secret);
    // A long string is not remembered, and is redacted.
    const long = { big: `${'y'.repeat(10_000)} ${secret}` };
    r.attributes(long, scope);
    expect(long.big).not.toContain(secret);
    expect(scope.memo.has(`${'y'.repeat(10_000)} ${secret}`)).toBe(false);
  });
});
