/**
 * The streaming protobuf decoder against the reference: protobufjs' generated decoder followed
 * by the normalizer. Random requests (every AnyValue kind, nesting, events, links, one fault in
 * some spans) must give the same spans and the same rejections; cut-short bodies the same
 * answer; corrupted bodies a 400 or a result, never another error.
 */
import { describe, expect, it } from 'vitest';
import { CollectorError } from './errors.ts';
import { Normalizer } from './normalize.ts';
import type { NormalizeLimits } from './span-rules.ts';
import { decodeRequestProtobuf, encodeRequestProtobuf } from '../test/otlp-reference.ts';
import { decodeProtobufSpans } from './otlp-proto.ts';
import { type NormSpan, type Rejection, Rejections } from './span.ts';

// Small limits, so random requests reach them often.
const LIMITS: NormalizeLimits = { maxStringChars: 40, maxValueDepth: 4, maxItemsPerSpan: 8 };

type Result = { ok: true; spans: NormSpan[]; rejected: Rejection[] } | { ok: false; error: CollectorError };

function streamed(buf: Buffer, limits = LIMITS): Result {
  const rejected = new Rejections();
  try {
    const spans = [...decodeProtobufSpans(buf, new Normalizer(limits), rejected)].filter((s) => s !== null);
    expect(rejected.count).toBe(rejected.first.length);
    return { ok: true, spans, rejected: rejected.first };
  } catch (err) {
    if (!(err instanceof CollectorError)) throw err;
    return { ok: false, error: err };
  }
}

function reference(buf: Buffer): Result {
  let tree: unknown;
  try {
    tree = decodeRequestProtobuf(buf);
  } catch (err) {
    return { ok: false, error: err as CollectorError };
  }
  return { ok: true, ...new Normalizer(LIMITS).normalize(tree) };
}

/** Deterministic PRNG (mulberry32): a failure is reproducible. */
function prng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(42);
const int = (n: number) => Math.floor(rand() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => 1 + int(255)));

const STRINGS = ['', 'a', 'héllo ☃ 日本', 'x'.repeat(60), 'nul\u0000inside', 'lone \ud800 surrogate', 'Bearer abcdefghijkl'];
const KEYS = ['service.name', 'gen_ai.tool.name', 'k', 'dup', 'dup', '', 'ключ'];
const INTS = [0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 2 ** 32 + 5, '9007199254740993', '-9223372036854775808', '9223372036854775807'];
const DOUBLES = [0.5, -1e300, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 3];

/** An AnyValue of every kind, at most `LIMITS.maxValueDepth` deep and `maxItems` wide. */
function anyValue(depth: number): Record<string, unknown> {
  const kinds = depth < LIMITS.maxValueDepth ? 9 : 6;
  switch (int(kinds)) {
    case 0:
      return { stringValue: pick(STRINGS) };
    case 1:
      return { boolValue: rand() < 0.5 };
    case 2:
      return { intValue: pick(INTS) };
    case 3:
      return { doubleValue: pick(DOUBLES) };
    case 4:
      return { bytesValue: bytes(int(6)) };
    case 5:
      return {};
    case 6:
    case 7:
      return { arrayValue: { values: Array.from({ length: int(4) }, () => anyValue(depth + 1)) } };
    default:
      return { kvlistValue: { values: attributes(int(4), depth + 1) } };
  }
}

function attributes(n: number, depth = 0) {
  return Array.from({ length: n }, () => (rand() < 0.05 ? { key: pick(KEYS) } : { key: pick(KEYS), value: anyValue(depth) }));
}

const BASE = 1764504000000000000n;
const time = (offset: number) => (BASE + BigInt(offset)).toString();
const nested = (levels: number): Record<string, unknown> =>
  levels === 0 ? { stringValue: 'deep' } : { arrayValue: { values: [nested(levels - 1)] } };

/** One fault, for some spans: each is a reason the normalizer rejects a span for. */
const FAULTS: ((s: Record<string, unknown>) => void)[] = [
  (s) => (s.traceId = bytes(5)),
  (s) => (s.traceId = Buffer.alloc(16)),
  (s) => (s.traceId = Buffer.alloc(0)),
  (s) => (s.spanId = bytes(9)),
  (s) => (s.spanId = Buffer.alloc(8)),
  (s) => delete s.spanId,
  (s) => (s.parentSpanId = bytes(3)),
  (s) => delete s.startTimeUnixNano,
  (s) => (s.endTimeUnixNano = time(-5)),
  (s) => (s.startTimeUnixNano = '18446744073709551615'),
  (s) => (s.kind = 6),
  (s) => (s.status = { code: 3 }),
  (s) => (s.attributes = attributes(LIMITS.maxItemsPerSpan + 1)),
  (s) => (s.events = Array.from({ length: LIMITS.maxItemsPerSpan + 1 }, () => ({ timeUnixNano: time(1), name: 'e' }))),
  (s) => (s.links = Array.from({ length: LIMITS.maxItemsPerSpan + 1 }, () => ({ traceId: bytes(16), spanId: bytes(8) }))),
  (s) => (s.attributes = [{ key: 'deep', value: nested(LIMITS.maxValueDepth + 2) }]),
  (s) => (s.events = [{ timeUnixNano: time(1), name: 'e', attributes: [{ key: 'deep', value: nested(9) }] }]),
  (s) => (s.links = [{ traceId: bytes(16), spanId: bytes(8), attributes: attributes(LIMITS.maxItemsPerSpan + 1) }]),
];

function span(): Record<string, unknown> {
  const s: Record<string, unknown> = {
    traceId: bytes(16),
    spanId: bytes(8),
    parentSpanId: pick([Buffer.alloc(0), bytes(8), undefined]),
    name: pick(STRINGS),
    kind: int(6),
    startTimeUnixNano: time(int(1000)),
    endTimeUnixNano: time(1000 + int(1000)),
    attributes: attributes(int(7)),
    events: Array.from({ length: int(3) }, () => ({ timeUnixNano: time(int(2000)), name: pick(STRINGS), attributes: attributes(int(3)) })),
    links: Array.from({ length: int(3) }, () => ({ traceId: pick([bytes(16), Buffer.alloc(0)]), spanId: bytes(8), attributes: attributes(int(3)) })),
  };
  if (rand() < 0.5) s.status = { code: int(3), message: pick(STRINGS) };
  if (rand() < 0.3) pick(FAULTS)(s);
  return s;
}

function request(): Buffer {
  return encodeRequestProtobuf({
    resourceSpans: Array.from({ length: 1 + int(3) }, () => ({
      resource: {
        attributes: rand() < 0.1 ? attributes(LIMITS.maxItemsPerSpan + 1) : [{ key: 'service.name', value: { stringValue: pick(['svc', 'other']) } }, ...attributes(int(3))],
      },
      scopeSpans: Array.from({ length: 1 + int(2) }, () => ({
        scope: rand() < 0.8 ? { name: pick(STRINGS), version: pick(STRINGS) } : undefined,
        spans: Array.from({ length: int(6) }, span),
      })),
    })),
  });
}

/** Hand-made protobuf, for field orders and wire types protobufjs never writes. */
const pb = {
  varint(n: bigint): Buffer {
    const out: number[] = [];
    let v = BigInt.asUintN(64, n);
    do {
      const b = Number(v & 0x7fn);
      v >>= 7n;
      out.push(v ? b | 0x80 : b);
    } while (v);
    return Buffer.from(out);
  },
  tag: (field: number, wire: number) => pb.varint(BigInt((field << 3) | wire)),
  len: (field: number, ...parts: Buffer[]) => {
    const body = Buffer.concat(parts);
    return Buffer.concat([pb.tag(field, 2), pb.varint(BigInt(body.length)), body]);
  },
  str: (field: number, s: string) => pb.len(field, Buffer.from(s)),
  fixed64(field: number, v: bigint) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(v);
    return Buffer.concat([pb.tag(field, 1), b]);
  },
  int: (field: number, v: bigint) => Buffer.concat([pb.tag(field, 0), pb.varint(v)]),
};
const T = Buffer.from('5b8efff798038103d269b633813fc60c', 'hex');
const S = Buffer.from('eee19b7ec3c1b174', 'hex');
/** A KeyValue as field `field` (1 in a Resource, 9 in a Span). */
const kv = (field: number, key: string, value: Buffer) => pb.len(field, pb.str(1, key), pb.len(2, value));
const spanBytes = (...extra: Buffer[]) =>
  Buffer.concat([pb.len(1, T), pb.len(2, S), pb.str(5, 'op'), pb.fixed64(7, BASE + 1n), pb.fixed64(8, BASE + 9n), ...extra]);
/** request { resourceSpans { scopeSpans { spans } } } with `spans` already encoded. */
const wrap = (...spans: Buffer[]) => pb.len(1, pb.len(2, ...spans.map((s) => pb.len(2, s))));

describe('decodeProtobufSpans', () => {
  it('gives the spans and rejections of protobufjs + the normalizer for 300 random requests', () => {
    let spans = 0;
    let rejected = 0;
    for (let i = 0; i < 300; i++) {
      const buf = request();
      const want = reference(buf);
      const got = streamed(buf);
      expect(got).toEqual(want);
      if (got.ok) {
        spans += got.spans.length;
        rejected += got.rejected.length;
      }
    }
    // The corpus reaches both outcomes often.
    expect(spans).toBeGreaterThan(1000);
    expect(rejected).toBeGreaterThan(200);
  });

  it('answers a body cut short anywhere as the reference does', () => {
    for (let i = 0; i < 300; i++) {
      const buf = request();
      const cut = buf.subarray(0, int(buf.length));
      const want = reference(cut);
      const got = streamed(cut);
      expect(got.ok).toBe(want.ok);
      if (got.ok) expect(got).toEqual(want);
      else expect(got.error.status).toBe(400);
    }
  });

  it('answers corrupted bytes with a result or a 400, never another error', () => {
    let undecodable = 0;
    for (let i = 0; i < 500; i++) {
      const buf = Buffer.from(request());
      for (let k = 0; k < 1 + int(4); k++) buf[int(buf.length)] = int(256);
      const got = streamed(buf);
      if (!got.ok) {
        undecodable++;
        expect(got.error.status).toBe(400);
        expect(got.error.message).toMatch(/^undecodable protobuf ExportTraceServiceRequest: .+ at byte \d+/);
      }
    }
    expect(undecodable).toBeGreaterThan(50);
  });

  it('reads fields in any order: a resource after its scopes, a scope after its spans, the value before the key', () => {
    const valueFirst = pb.len(9, pb.len(2, pb.str(1, 'v')), pb.str(1, 'k'));
    const body = pb.len(
      1,
      pb.len(2, pb.len(2, spanBytes(valueFirst)), pb.len(1, pb.str(1, 'lib'), pb.str(2, '2.0'))),
      pb.len(1, kv(1, 'service.name', pb.str(1, 'late-svc'))),
    );
    const got = streamed(body);
    expect(got).toMatchObject({ ok: true, rejected: [] });
    expect(got.ok && got.spans[0]).toMatchObject({ serviceName: 'late-svc', scopeName: 'lib', scopeVersion: '2.0', attributes: { k: 'v' } });
  });

  it('skips unknown fields (groups too) and known fields sent with another wire type', () => {
    const group = Buffer.concat([pb.tag(40, 3), pb.int(1, 7n), pb.tag(41, 3), pb.tag(41, 4), pb.tag(40, 4)]);
    const span = spanBytes(pb.int(5, 12n), pb.int(99, 1n), pb.fixed64(98, 5n), Buffer.concat([pb.tag(97, 5), Buffer.alloc(4)]), group);
    const got = streamed(wrap(span));
    expect(got.ok && got.spans.map((s) => s.name)).toEqual(['op']);
  });

  it('refuses undecodable bytes with 400 and says what and where', () => {
    const cases: [Buffer, RegExp][] = [
      [Buffer.from([0x00]), /invalid field tag at byte 0/],
      [Buffer.from([0x0f]), /invalid wire type 7/],
      [Buffer.concat([pb.tag(1, 0), Buffer.alloc(11, 0xff)]), /longer than 10 bytes/],
      [Buffer.concat([pb.tag(1, 2), pb.varint(50n), Buffer.alloc(3)]), /runs past the end of its message/],
      [wrap(Buffer.concat([pb.tag(6, 4)])), /end-group without a group/],
      [wrap(Buffer.concat([pb.tag(40, 3), pb.tag(41, 4)])), /does not match its group/],
      [wrap(spanBytes().subarray(0, 30)), /runs past the end|cut short/],
    ];
    for (const [body, message] of cases) {
      const got = streamed(body);
      expect(got.ok).toBe(false);
      if (!got.ok) {
        expect(got.error.status).toBe(400);
        expect(got.error.message).toMatch(message);
      }
    }
  });

  it('pauses after every 128 rejected spans and keeps only the rejections it is asked to keep', () => {
    const body = wrap(spanBytes(), ...Array.from({ length: 1000 }, () => Buffer.alloc(0)));
    const rejected = new Rejections(2);
    const items = [...decodeProtobufSpans(body, new Normalizer(LIMITS), rejected)];
    expect(items.filter((x) => x === null)).toHaveLength(Math.floor(1000 / 128));
    expect(items.filter((x) => x !== null)).toHaveLength(1);
    expect(rejected.count).toBe(1000);
    expect(rejected.first).toEqual([
      { path: 'resourceSpans[0].scopeSpans[0].spans[1]', reason: 'traceId is missing' },
      { path: 'resourceSpans[0].scopeSpans[0].spans[2]', reason: 'traceId is missing' },
    ]);
  });

  it('rejects a span nested 10,000 levels deep by its reason, without recursing, and keeps its neighbour', () => {
    let value = pb.str(1, 'bottom');
    for (let i = 0; i < 10_000; i++) value = pb.len(5, pb.len(1, value));
    const deep = spanBytes(kv(9, 'deep', value));
    const got = streamed(wrap(deep, spanBytes()), { ...LIMITS, maxValueDepth: 16 });
    expect(got.ok && got.spans.length).toBe(1);
    expect(got.ok && got.rejected).toEqual([
      {
        path: 'resourceSpans[0].scopeSpans[0].spans[0] (spanId eee19b7ec3c1b174)',
        reason: `attributes["deep"]${'[0]'.repeat(17)} is nested deeper than 16`,
      },
    ]);
  });
});
