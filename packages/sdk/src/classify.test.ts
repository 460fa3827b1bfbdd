import { describe, expect, it } from 'vitest';
import { classifyError, parseRetryAfter } from './classify.ts';
import { Fatal, FeedbackRequired, GuardViolation, ToolTimeout, TransientFailure } from './errors.ts';

const err = (props: Record<string, unknown>) => Object.assign(new Error('boom'), props);

describe('classifyError', () => {
  it('maps ENOENT to missing_resource', () => {
    expect(classifyError(err({ code: 'ENOENT' })).failureClass).toBe('missing_resource');
  });

  it('treats resets and timeouts as transient only for idempotent tools', () => {
    expect(classifyError(err({ code: 'ECONNRESET' }), { readOnly: true }).failureClass).toBe('transient');
    expect(classifyError(err({ code: 'ECONNRESET' }), { external: true }).failureClass).toBe('uncertain_side_effect');
    expect(classifyError(new ToolTimeout(100), { idempotent: true }).failureClass).toBe('transient');
    expect(classifyError(new ToolTimeout(100), { external: true }).failureClass).toBe('uncertain_side_effect');
    expect(classifyError(err({ code: 'ETIMEDOUT' }), {}).failureClass).toBe('uncertain_side_effect');
  });

  it('maps 429/503 to transient for any tool, honouring Retry-After', () => {
    const c = classifyError(err({ status: 429, headers: { 'retry-after': '2' } }), { external: true });
    expect(c).toMatchObject({ failureClass: 'transient', errorType: '429', retryAfterMs: 2000 });
    expect(classifyError(err({ status: 503 }), {}).failureClass).toBe('transient');
    const h = new Headers({ 'Retry-After': '1' });
    expect(classifyError(err({ response: { status: 503, headers: h } })).retryAfterMs).toBe(1000);
  });

  it('maps 502/504 to transient when idempotent, uncertain otherwise', () => {
    expect(classifyError(err({ status: 504 }), { readOnly: true }).failureClass).toBe('transient');
    expect(classifyError(err({ status: 502 }), { external: true }).failureClass).toBe('uncertain_side_effect');
  });

  it('maps 401 to fatal and 403 to guard_violation', () => {
    expect(classifyError(err({ status: 401 })).failureClass).toBe('fatal');
    expect(classifyError(err({ status: 403 })).failureClass).toBe('guard_violation');
  });

  it('respects the exported error classes', () => {
    expect(classifyError(new GuardViolation('no')).failureClass).toBe('guard_violation');
    expect(classifyError(new FeedbackRequired('TS2304')).failureClass).toBe('execution_feedback');
    expect(classifyError(new Fatal('no key')).failureClass).toBe('fatal');
    expect(classifyError(new TransientFailure('later', { retryAfterMs: 50 }))).toMatchObject({ failureClass: 'transient', retryAfterMs: 50 });
  });

  it('parses Retry-After dates', () => {
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter('nope')).toBeUndefined();
  });
});
