/**
 * OpenTelemetry's general conventions every instrumentation shares: a span's status (code 2 is
 * ERROR, with its message) and its `exception` events (`exception.type`, `exception.message`).
 */
import { ATTR_EXCEPTION_MESSAGE, ATTR_EXCEPTION_TYPE, EVENT_EXCEPTION } from '@guardtrace/semconv';
import type { NormSpan, SpanEvent } from '../span.ts';
import { text } from './read.ts';

/** Status code ERROR. */
export function failed(span: NormSpan): boolean {
  return span.statusCode === 2;
}

/** The span's last `exception` event, if any. */
function lastException(span: NormSpan): SpanEvent | null {
  const events = span.events;
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i] as SpanEvent;
    if (e.name === EVENT_EXCEPTION) return e;
  }
  return null;
}

/**
 * Why the span failed, as text: its last exception (`Type: message`), else its error status
 * message, else null.
 */
export function failureReason(span: NormSpan): string | null {
  const e = span.events.length === 0 ? null : lastException(span);
  if (e !== null) {
    const type = text(e.attributes, ATTR_EXCEPTION_TYPE);
    const message = text(e.attributes, ATTR_EXCEPTION_MESSAGE);
    if (message !== null) return type === null ? message : `${type}: ${message}`;
    if (type !== null) return type;
  }
  return span.statusMessage === null || span.statusMessage === '' ? null : span.statusMessage;
}

/** The type of the span's last exception, if any. */
export function exceptionType(span: NormSpan): string | null {
  const e = span.events.length === 0 ? null : lastException(span);
  return e === null ? null : text(e.attributes, ATTR_EXCEPTION_TYPE);
}
