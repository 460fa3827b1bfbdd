import { describe, expect, it } from 'vitest';
import { decodeRequestProtobuf, encodeRequestProtobuf } from '../test/otlp-reference.ts';
import { Normalizer } from './normalize.ts';
import { rejectionMessage } from './span-rules.ts';

const T = '5b8efff798038103d269b633813fc60c';
const S = 'eee19b7ec3c1b174';

function req(spans: unknown[]): Record<string, unknown> {
  return { resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] }, scopeSpans: [{ spans }] }] };
}
const good = (over: Record<string, unknown> = {}) => ({
  traceId: T,
  spanId: S,
  name: 'op',
  startTimeUnixNano: '1764504000000000001',
  endTimeUnixNano: '1764504000000500001',
  ...over,
});
const json = new Normalizer();

describe('Normalizer (JSON rules)', () => {
  it('accepts int64 as string or number, enum ints or names, ignores unknown fields', () => {
    const { spans, rejected } = json.normalize(
      req([
        good({ kind: 'SPAN_KIND_CLIENT', status: { code: 'STATUS_CODE_ERROR', message: 'x' }, someFutureField: { a: 1 } }),
        good({ spanId: 'EEE19B7EC3C1B175', startTimeUnixNano: 1764504000000000000, endTimeUnixNano: 1764504000000000000, kind: 3, status: { code: 2 } }),
      ]),
    );
    expect(rejected).toEqual([]);
    expect(spans.map((s) => [s.kind, s.statusCode, s.spanId])).toEqual([
      [3, 2, S],
      [3, 2, 'eee19b7ec3c1b175'],
    ]);
    expect(spans[0]?.startNs).toBe(1764504000000000001n);
    expect(spans[0]?.serviceName).toBe('svc');
  });

  it('reads every AnyValue kind; int64 beyond 2^53 is kept exact as a string', () => {
    const attributes = [
      { key: 's', value: { stringValue: 'a' } },
      { key: 'b', value: { boolValue: true } },
      { key: 'i', value: { intValue: '42' } },
      { key: 'n', value: { intValue: 7 } },
      { key: 'big', value: { intValue: '9007199254740993' } },
      { key: 'd', value: { doubleValue: 1.5 } },
      { key: 'nan', value: { doubleValue: 'NaN' } },
      { key: 'arr', value: { arrayValue: { values: [{ stringValue: 'x' }, { intValue: 1 }] } } },
      { key: 'kv', value: { kvlistValue: { values: [{ key: 'k', value: { boolValue: false } }] } } },
      { key: 'bytes', value: { bytesValue: 'AQID' } },
      { key: 'empty', value: {} },
    ];
    const { spans } = json.normalize(req([good({ attributes })]));
    expect(spans[0]?.attributes).toEqual({ s: 'a', b: true, i: 42, n: 7, big: '9007199254740993', d: 1.5, nan: 'NaN', arr: ['x', 1], kv: { k: false }, bytes: 'AQID', empty: null });
  });

  it('rejects only the bad spans, naming each and why', () => {
    const spans = [
      good(),
      good({ spanId: 'xyz' }),
      good({ traceId: '0'.repeat(32), spanId: 'eee19b7ec3c1b176' }),
      good({ spanId: 'eee19b7ec3c1b177', startTimeUnixNano: 'soon' }),
      good({ spanId: 'eee19b7ec3c1b178', endTimeUnixNano: '1' }),
      good({ spanId: 'eee19b7ec3c1b179', attributes: [{ key: 'x', value: { intValue: 1.5 } }] }),
      good({ spanId: 'eee19b7ec3c1b17a', kind: 99 }),
      good({ spanId: 'eee19b7ec3c1b17d', attributes: [{ key: 'big', value: { intValue: 1e300 } }] }),
      good({ spanId: 'eee19b7ec3c1b17c', events: 'none' }),
      good({ spanId: 'eee19b7ec3c1b17b' }),
    ];
    const { spans: ok, rejected } = json.normalize(req(spans));
    expect(ok.map((s) => s.spanId)).toEqual([S, 'eee19b7ec3c1b17b']);
    expect(rejected.map((r) => r.reason)).toEqual([
      'spanId must be 16 hex characters, got 3: "xyz"',
      'traceId is all zeros',
      'startTimeUnixNano must be an integer',
      'endTimeUnixNano is before startTimeUnixNano',
      'attributes["x"].intValue must be an integer',
      'kind has an unknown value 99: expected 0..5',
      'attributes["big"].intValue is out of int64 range',
      'events must be an array',
    ]);
    expect(rejected[2]?.path).toBe('resourceSpans[0].scopeSpans[0].spans[3] (spanId eee19b7ec3c1b177)');
    const msg = rejectionMessage(rejected);
    expect(msg).toMatch(/^rejected 8 span\(s\): resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[1\]: spanId must be 16 hex/);
    expect(msg).toContain('and 3 more');
  });

  it('says out of range, not "no integer", for an integer too long for int64 (a time in year 9999, a 23-digit value)', () => {
    const { rejected } = json.normalize(
      req([
        good({ spanId: 'eee19b7ec3c1b175', startTimeUnixNano: '253402300799000000000', endTimeUnixNano: '253402300799000000000' }),
        good({ spanId: 'eee19b7ec3c1b176', attributes: [{ key: 'n', value: { intValue: '99999999999999999999999' } }] }),
      ]),
    );
    expect(rejected.map((r) => r.reason)).toEqual(['startTimeUnixNano is out of range', 'attributes["n"].intValue is out of int64 range']);
  });

  it('rejects a sampling weight that is no weight (below 0, between 0 and 1, over a million, not a number), keeping its neighbours', () => {
    const weighted = (id: string, value: Record<string, unknown>) =>
      good({ spanId: `eee19b7ec3c1b1${id}`, attributes: [{ key: 'guardtrace.sampling.weight', value }] });
    const { spans, rejected } = json.normalize(
      req([
        weighted('70', { intValue: 0 }),
        weighted('71', { intValue: 1 }),
        weighted('72', { doubleValue: 2.5 }),
        weighted('73', { intValue: 1_000_000 }),
        weighted('74', { intValue: -5 }),
        weighted('75', { doubleValue: 0.001 }),
        weighted('76', { doubleValue: 1e9 }),
        weighted('77', { stringValue: '4' }),
        weighted('78', { doubleValue: 'NaN' }),
      ]),
    );
    expect(spans.map((s) => s.attributes['guardtrace.sampling.weight'])).toEqual([0, 1, 2.5, 1_000_000]);
    const why = 'a sampling weight is a number, 0 (the session is dropped) or 1/rate from 1 to 1000000';
    expect(rejected.map((r) => r.reason)).toEqual([
      `attributes["guardtrace.sampling.weight"] is -5: ${why}`,
      `attributes["guardtrace.sampling.weight"] is 0.001: ${why}`,
      `attributes["guardtrace.sampling.weight"] is 1000000000: ${why}`,
      `attributes["guardtrace.sampling.weight"] is "4": ${why}`,
      `attributes["guardtrace.sampling.weight"] is "NaN": ${why}`,
    ]);
  });

  it('rejects values nested too deep, truncates huge strings with a marker, cleans NUL and lone surrogates', () => {
    let deep: Record<string, unknown> = { stringValue: 'leaf' };
    for (let i = 0; i < 40; i++) deep = { arrayValue: { values: [deep] } };
    const n = new Normalizer({ maxStringChars: 10, maxValueDepth: 16, maxItemsPerSpan: 8 });
    const { spans, rejected } = n.normalize(
      req([
        good({ attributes: [{ key: 'deep', value: deep }] }),
        good({ spanId: 'eee19b7ec3c1b175', attributes: [{ key: 'big', value: { stringValue: 'x'.repeat(25) } }, { key: 'nul', value: { stringValue: 'a\u0000b\ud800' } }] }),
        good({ spanId: 'eee19b7ec3c1b176', attributes: Array.from({ length: 9 }, (_, i) => ({ key: `k${i}`, value: { intValue: i } })) }),
      ]),
    );
    expect(rejected.map((r) => r.reason)).toEqual([expect.stringContaining('nested deeper than 16'), 'attributes has more than 8 entries']);
    expect(spans[0]?.attributes).toEqual({ big: 'xxxxxxxxxx…[TRUNCATED:15 chars]', nul: 'a\ufffdb\ufffd' });
  });

  it('rejects every span of an unreadable resource but keeps other resources', () => {
    const body = {
      resourceSpans: [
        { resource: { attributes: [{ key: 'x', value: { intValue: 1.5 } }] }, scopeSpans: [{ spans: [good(), good()] }] },
        { scopeSpans: [{ spans: [good()] }] },
      ],
    };
    const { spans, rejected } = json.normalize(body);
    expect(spans).toHaveLength(1);
    expect(rejected).toHaveLength(2);
    expect(rejected[0]).toEqual({ path: 'resourceSpans[0]', reason: 'resource.attributes["x"].intValue must be an integer' });
  });
});

describe('checkEnvelope', () => {
  it('a non-object where a message is required, or a non-array where a list is, makes the request undecodable', () => {
    expect(() => json.normalize({ resourceSpans: [1, 2] })).toThrow(/resourceSpans\[0\] must be an object, got a number/);
    expect(() => json.normalize(req([good(), 'not a span']))).toThrow(/spans\[1\] must be an object, got a string/);
    expect(() => json.normalize({ resourceSpans: [{ scopeSpans: [null] }] })).toThrow(/scopeSpans\[0\] must be an object, got null/);
    expect(() => json.normalize({ resourceSpans: [{ resource: null, scopeSpans: null }] })).not.toThrow();
  });
});

describe('Normalizer (protobuf)', () => {
  it('reads bytes ids, fixed64 times and int64 attributes exactly', () => {
    const buf = encodeRequestProtobuf({
      resourceSpans: [
        {
          scopeSpans: [
            {
              scope: { name: 'lib', version: '1' },
              spans: [
                {
                  traceId: Buffer.from(T, 'hex'),
                  spanId: Buffer.from(S, 'hex'),
                  parentSpanId: Buffer.alloc(0),
                  name: 'op',
                  startTimeUnixNano: '1764504000000000001',
                  endTimeUnixNano: '1764504000000000009',
                  attributes: [{ key: 'big', value: { intValue: '-9007199254740993' } }],
                },
                { traceId: Buffer.from('abcd', 'hex'), spanId: Buffer.from(S, 'hex'), name: 'bad', startTimeUnixNano: '1', endTimeUnixNano: '2' },
              ],
            },
          ],
        },
      ],
    });
    const { spans, rejected } = new Normalizer().normalize(decodeRequestProtobuf(buf));
    expect(spans[0]).toMatchObject({ traceId: T, spanId: S, parentSpanId: null, startNs: 1764504000000000001n, endNs: 1764504000000000009n, scopeName: 'lib', attributes: { big: '-9007199254740993' } });
    expect(rejected).toEqual([{ path: 'resourceSpans[0].scopeSpans[0].spans[1] (spanId eee19b7ec3c1b174)', reason: 'traceId must be 16 bytes, got 2' }]);
  });
});
