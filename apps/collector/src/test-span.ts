/** A normalised span for unit tests: `name` and `attributes`, the rest fixed unless `more` says otherwise (each call its own span id). */
import type { Attributes, NormSpan } from './span.ts';

let n = 0;

export function testSpan(name: string, attributes: Attributes, more: Partial<NormSpan> = {}): NormSpan {
  n++;
  return {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: n.toString(16).padStart(16, '0'),
    parentSpanId: null,
    name,
    kind: 1,
    startNs: 1_000_000n,
    endNs: 3_000_000n,
    statusCode: 0,
    statusMessage: null,
    attributes,
    events: [],
    links: [],
    resource: {},
    serviceName: null,
    scopeName: null,
    scopeVersion: null,
    ...more,
  };
}
