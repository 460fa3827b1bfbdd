import { describe, expect, it } from 'vitest';
import { kvs, jsonRequest, jsonSpan, sdkSession } from '../test/helpers.ts';
import { copyLine, shareJson } from './copy.ts';
import { spanCopyHead, spanRow } from './mapping.ts';
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
      expect(spanCopyHead(span, '00000000-0000-4000-8000-000000000001')).toBe(
        copyLine(spanRow(span, '00000000-0000-4000-8000-000000000001', ''), SPANS.head),
      );
    }
  });
});
