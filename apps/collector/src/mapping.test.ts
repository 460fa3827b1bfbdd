import { describe, expect, it } from 'vitest';
import { kvs, jsonRequest, jsonSpan, sdkSession } from '../test/helpers.ts';
import { copyLine, shareJson } from './copy.ts';
import { spanCopyHead, spanRow, timestamp } from './mapping.ts';
import { Normalizer } from './normalize.ts';
import { SPANS } from './sql.ts';

describe('spanCopyHead', () => {
  it('writes the same COPY text as the spans row does', () => {
    const s = sdkSession();
    const odd = jsonSpan({ traceId: s.traceId, name: 'tab\there\nnew\\line', attrs: { 'a\tb': 'x\\y\n', n: [1, { k: 'v\t' }] } });
    const withEvents = {
      ...jsonSpan({ traceId: s.traceId, parentSpanId: s.ids.root, name: 'ev', status: 2 }),
      status: { code: 2, message: 'bad\tthing\\' },
      events: [{ timeUnixNano: '1', name: 'e\n1', attributes: kvs({ k: 'v' }) }],
      links: [{ traceId: s.traceId, spanId: s.ids.root, attributes: [] }],
    };
    const body = jsonRequest([...s.spans, odd, withEvents], 'svc\tname');
    (body.resourceSpans as { scopeSpans: { scope: object }[] }[])[0]?.scopeSpans.forEach((ss) => {
      ss.scope = { name: 'sc\\ope', version: '1\n2' };
    });
    const { spans } = new Normalizer().normalize(JSON.parse(JSON.stringify(body)));
    expect(spans).toHaveLength(10);
    for (const span of spans) {
      shareJson(span.resource);
      for (const role of [null, 'guard_check'] as const) {
        expect(spanCopyHead(span, '00000000-0000-4000-8000-000000000001', role)).toBe(
          copyLine(spanRow(span, '00000000-0000-4000-8000-000000000001', '', role), SPANS.head),
        );
      }
    }
  });
});

describe('timestamp', () => {
  it('is exact to the microsecond across seconds, and past the range of a double', () => {
    const cases: [bigint, string][] = [
      [1_796_040_000_000_001_000n, '2026-11-30T12:00:00.000001Z'],
      [1_796_040_000_999_999_999n, '2026-11-30T12:00:00.999999Z'],
      [1_796_040_001_000_000_000n, '2026-11-30T12:00:01.000000Z'],
      [1_796_039_999_123_456_789n, '2026-11-30T11:59:59.123456Z'],
      [1_000n, '1970-01-01T00:00:00.000001Z'],
      [9_223_372_036_854_775_807n, '2262-04-11T23:47:16.854775Z'],
    ];
    for (const [ns, text] of cases) expect(timestamp(ns)).toBe(text);
  });
});
