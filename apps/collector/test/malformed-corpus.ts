/**
 * A generated corpus of > 1,000 malformed OTLP payloads (truncated and corrupted protobuf,
 * wrong JSON types, invalid ids, huge and deeply nested attributes, bombs, wrong types and
 * encodings), each with the statuses it may get from a collector whose body limit is
 * CORPUS_BODY_LIMIT. Used by test/corpus.test.ts and bench/production.ts.
 */
import { gzipSync } from 'node:zlib';
import { jsonRequest, jsonSpan, protobufRequest, sdkSession } from './helpers.ts';

/** The body limit (COLLECTOR_MAX_BODY_BYTES) the corpus' 413 cases are made for. */
export const CORPUS_BODY_LIMIT = 1024 * 1024;
const LIMIT = CORPUS_BODY_LIMIT;

/** Deterministic PRNG (mulberry32) so a failure is reproducible. */
function prng(seed: number) {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(20261130);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
const hexOf = (n: number) => Array.from({ length: n * 2 }, () => '0123456789abcdef'[Math.floor(rand() * 16)]).join('');

export interface Case {
  name: string;
  type: string;
  encoding?: string;
  body: Buffer | string;
  /** Allowed statuses. */
  status: number[];
  /** For partial-success cases: exact rejected count and the trace id of the valid neighbour. */
  rejected?: number;
  neighbour?: string;
}

export const JSON_T = 'application/json';
export const PROTO_T = 'application/x-protobuf';

/** One invalid span next to a valid one, in one request. */
function neighbourCase(name: string, mutate: (span: Record<string, unknown>) => void): Case {
  const good = jsonSpan({ traceId: hexOf(16), name: 'good-neighbour' });
  const bad = jsonSpan({ traceId: hexOf(16), name: 'bad' });
  mutate(bad);
  const order = rand() < 0.5 ? [good, bad] : [bad, good];
  return { name, type: JSON_T, body: JSON.stringify(jsonRequest(order)), status: [200], rejected: 1, neighbour: good.traceId as string };
}

const WRONG: Record<string, unknown[]> = {
  traceId: [123, {}, [], 'zz', '0'.repeat(32), 'abc', true, 'g'.repeat(32), 'a'.repeat(33), 'AQIDBAUGBwgJCgsMDQ4PEA=='],
  spanId: [5, {}, 'xyz', '0'.repeat(16), 'a'.repeat(15), false, ['a']],
  parentSpanId: [5, 'xyz', {}, '1'.repeat(17)],
  name: [5, {}, [], true],
  startTimeUnixNano: ['abc', {}, 1.5, -5, true, '0', '1e9', '99999999999999999999999'],
  endTimeUnixNano: ['x', {}, '1', [], 2.5],
  kind: [99, 'SPAN_KIND_BOGUS', {}, -1, 1.5, true],
  status: ['x', 5, { code: 7 }, { code: 'nope' }, { message: 5 }, []],
  attributes: [
    'x',
    5,
    {},
    [5],
    [{ key: 5, value: { stringValue: 'a' } }],
    [{ key: 'a', value: 'str' }],
    [{ key: 'a', value: { intValue: '1.5' } }],
    [{ key: 'a', value: { intValue: {} } }],
    [{ key: 'a', value: { boolValue: 'yes' } }],
    [{ key: 'a', value: { stringValue: 5 } }],
    [{ key: 'a', value: { arrayValue: 5 } }],
    [{ key: 'a', value: { arrayValue: { values: 'x' } } }],
    [{ key: 'a', value: { kvlistValue: { values: [{ key: 1 }] } } }],
    [{ key: 'a', value: { doubleValue: 'abc' } }],
    [{ key: 'a', value: { bytesValue: 5 } }],
    [{ key: 'a', value: { intValue: '99999999999999999999' } }],
  ],
  events: ['x', [5], [{ timeUnixNano: 'x' }], [{ name: 5 }], [{ attributes: 'x' }]],
  links: ['x', [{ traceId: 'bad' }], [5], [{ spanId: 7 }]],
};

function deepValue(depth: number): Record<string, unknown> {
  let v: Record<string, unknown> = { stringValue: 'leaf' };
  for (let i = 0; i < depth; i++) {
    v = rand() < 0.5 ? { arrayValue: { values: [v] } } : { kvlistValue: { values: [{ key: `k${i}`, value: v }] } };
  }
  return v;
}

/** Protobuf varint and length-delimited field, written by hand: encoders recurse and would overflow first. */
function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}
const field = (tag: number, body: Buffer) => Buffer.concat([varint((tag << 3) | 2), varint(body.length), body]);

/** A request whose one span has an attribute nested `depth` arrays deep. */
function deepProtobuf(traceId: string, depth: number): Buffer {
  // AnyValue.array_value -> ArrayValue.values -> ... -> AnyValue.string_value; prefixes built
  // outwards and joined once (re-wrapping a growing buffer per level would be quadratic).
  const leaf = field(1, Buffer.from('leaf'));
  const prefixes: Buffer[] = [];
  let len = leaf.length;
  for (let i = 0; i < depth; i++) {
    const inner = varint(len);
    const arrayLen = 1 + inner.length + len;
    const outer = varint(arrayLen);
    prefixes.push(Buffer.concat([Buffer.from([0x2a]), outer, Buffer.from([0x0a]), inner]));
    len = 1 + outer.length + arrayLen;
  }
  const any = Buffer.concat([...prefixes.reverse(), leaf]);
  const time = Buffer.alloc(8);
  time.writeBigUInt64LE(1764504000000000000n);
  const span = Buffer.concat([
    field(1, Buffer.from(traceId, 'hex')),
    field(2, Buffer.from('0102030405060708', 'hex')),
    field(5, Buffer.from('deep')),
    Buffer.from([0x39]), time,
    Buffer.from([0x41]), time,
    field(9, Buffer.concat([field(1, Buffer.from('d')), field(2, any)])),
  ]);
  return field(1, field(2, field(2, span)));
}

export function buildCorpus(): Case[] {
  const cases: Case[] = [];
  const protoBase = Array.from({ length: 5 }, () => protobufRequest(jsonRequest(sdkSession().spans)));
  const jsonBase = Array.from({ length: 5 }, () => JSON.stringify(jsonRequest(sdkSession().spans)));

  for (let i = 0; i < 220; i++) {
    const b = pick(protoBase);
    cases.push({ name: `truncated protobuf #${i}`, type: PROTO_T, body: b.subarray(0, 1 + Math.floor(rand() * (b.length - 2))), status: [200, 400] });
  }
  for (let i = 0; i < 200; i++) {
    const b = Buffer.from(pick(protoBase));
    const flips = 1 + Math.floor(rand() * 8);
    for (let f = 0; f < flips; f++) b[Math.floor(rand() * b.length)] = Math.floor(rand() * 256);
    cases.push({ name: `corrupted protobuf #${i}`, type: PROTO_T, body: b, status: [200, 400] });
  }
  for (let i = 0; i < 100; i++) {
    const b = Buffer.from(Array.from({ length: 1 + Math.floor(rand() * 2000) }, () => Math.floor(rand() * 256)));
    cases.push({ name: `random bytes #${i}`, type: PROTO_T, body: b, status: [200, 400] });
  }
  for (let i = 0; i < 120; i++) {
    const s = pick(jsonBase);
    cases.push({ name: `truncated JSON #${i}`, type: JSON_T, body: s.slice(0, 1 + Math.floor(rand() * (s.length - 2))), status: [400] });
  }
  for (const [field, values] of Object.entries(WRONG)) {
    for (const v of values) {
      for (let r = 0; r < 4; r++) {
        cases.push(neighbourCase(`wrong type ${field}=${JSON.stringify(v).slice(0, 40)} #${r}`, (span) => {
          span[field] = v;
        }));
      }
    }
  }
  for (let i = 0; i < 40; i++) {
    const depth = 17 + Math.floor(rand() * 200);
    cases.push(neighbourCase(`deep nesting ${depth}`, (span) => {
      span.attributes = [{ key: 'deep', value: deepValue(depth) }];
    }));
  }
  for (let i = 0; i < 20; i++) {
    cases.push(neighbourCase(`too many attributes #${i}`, (span) => {
      span.attributes = Array.from({ length: 1025 + i }, (_, k) => ({ key: `k${k}`, value: { intValue: k } }));
    }));
  }
  for (let i = 0; i < 20; i++) {
    // Huge but legal: stored truncated, nothing rejected.
    const good = jsonSpan({ traceId: hexOf(16), name: 'huge', attrs: { big: 'x'.repeat(100_000 + i * 1000) } });
    cases.push({ name: `huge attribute #${i}`, type: JSON_T, body: JSON.stringify(jsonRequest([good])), status: [200], rejected: 0, neighbour: good.traceId as string });
  }
  for (let i = 0; i < 20; i++) {
    cases.push({ name: `deep raw JSON #${i}`, type: JSON_T, body: '['.repeat(10_000 + i * 5000), status: [400] });
  }
  for (let i = 0; i < 10; i++) {
    cases.push({ name: `deep protobuf #${i}`, type: PROTO_T, body: deepProtobuf(hexOf(16), 2000 + i * 5000), status: [200, 400] });
  }
  for (let i = 0; i < 30; i++) {
    const mb = 2 + (i % 6);
    cases.push({ name: `gzip bomb ${mb} MiB #${i}`, type: i % 2 ? PROTO_T : JSON_T, encoding: 'gzip', body: gzipSync(Buffer.alloc(mb * LIMIT, i % 3 ? 0 : 0x7b)), status: [413] });
  }
  for (let i = 0; i < 10; i++) {
    cases.push({ name: `oversized plain body #${i}`, type: JSON_T, body: Buffer.alloc(LIMIT + 1 + i, 0x20), status: [413] });
  }
  for (const t of ['text/plain', 'application/xml', 'application/grpc', 'multipart/form-data; boundary=x', 'application/octet-stream', 'application/jsonx', 'image/png']) {
    for (let r = 0; r < 3; r++) cases.push({ name: `content type ${t}`, type: t, body: pick(jsonBase), status: [415] });
  }
  for (const enc of ['br', 'zstd', 'compress', 'gzip, br', 'snappy']) {
    for (let r = 0; r < 3; r++) cases.push({ name: `content encoding ${enc}`, type: JSON_T, encoding: enc, body: pick(jsonBase), status: [415] });
  }
  for (let i = 0; i < 20; i++) {
    cases.push({ name: `broken gzip #${i}`, type: i % 2 ? PROTO_T : JSON_T, encoding: 'gzip', body: gzipSync(pick(jsonBase)).subarray(0, 10 + i), status: [400] });
  }
  for (const body of ['[]', '5', '"x"', 'null', 'true', '{"resourceSpans": {}}', '{"resourceSpans": "x"}', '', ' ']) {
    for (let r = 0; r < 3; r++) cases.push({ name: `top-level ${body || 'empty'}`, type: JSON_T, body, status: [400] });
  }
  for (let r = 0; r < 10; r++) {
    // A number where a ResourceSpans message is required: undecodable, as in the protobuf JSON mapping.
    cases.push({ name: `bad resource entry #${r}`, type: JSON_T, body: JSON.stringify({ resourceSpans: [5] }), status: [400] });
  }
  return cases;
}
