import type { DatasetItemCheck, ReplayResult } from '@guardtrace/semconv';
import { describe, expect, it } from 'vitest';
import { decisionLine, diffAttempts, failedPointers, flaggedFields, stepHref } from '@/lib/replay-run';

const fail = (guard: string, pointers: string[], stage = 'logical'): DatasetItemCheck => ({ guard, stage, verdict: 'fail', reason: 'no', failureClass: 'guard_violation', pointers });
const pass = (guard: string): DatasetItemCheck => ({ guard, stage: 'schema', verdict: 'pass', reason: null, failureClass: null, pointers: [] });

const result = (over: Partial<ReplayResult> = {}): ReplayResult => ({
  itemId: 't:s',
  attempt: 1,
  tool: 'read_file',
  sessionId: 's1',
  stepPath: '/sessions/s1?project=p&call=s',
  change: 'newly_rejected',
  arguments: { path: 'docs/a.md', lines: 3 },
  recorded: { allowed: true, decision: 'proceed', failureClass: null, feedback: null, checks: [pass('schema')] },
  now: { allowed: false, decision: 'reject_with_feedback', failureClass: 'guard_violation', feedback: 'TOOL CALL REJECTED', checks: [fail('folders', ['/path']), fail('schema', ['/lines', '/path'])] },
  definition: { recordedHash: 'a', currentHash: 'b', changes: [] },
  ...over,
});

describe('replay run rows', () => {
  it('lists the failed checks\' pointers once each, in order, ignoring passes', () => {
    expect(failedPointers([fail('a', ['/x', '/y']), pass('b'), fail('c', ['/y', '/z'])])).toEqual(['/x', '/y', '/z']);
    expect(failedPointers(undefined)).toEqual([]);
  });

  it('names the fields the new checks object to with their values, and whether they failed then too', () => {
    const r = result({ recorded: { allowed: false, decision: 'reject_with_feedback', failureClass: 'guard_violation', feedback: 'x', checks: [fail('folders', ['/path'])] } });
    expect(flaggedFields(r)).toEqual([
      { pointer: '/path', present: true, value: 'docs/a.md', recorded: true },
      { pointer: '/lines', present: true, value: 3, recorded: false },
    ]);
    expect(flaggedFields(result({ now: { ...result().now!, checks: [fail('schema', ['/file', 'not a pointer'])] } }))).toEqual([
      { pointer: '/file', present: false, value: undefined, recorded: false },
      { pointer: 'not a pointer', present: false, value: undefined, recorded: false },
    ]);
    expect(flaggedFields(result({ now: null, change: 'not_replayed' }))).toEqual([]);
  });

  it('links only to the app\'s own session pages', () => {
    expect(stepHref('/sessions/s1?project=p&call=abc')).toBe('/sessions/s1?project=p&call=abc');
    for (const bad of ['javascript:alert(1)', '//evil.example/sessions/x', '/sessions//evil.example', 'https://evil.example/sessions/x', '/settings', '/sessions/', '/sessions/\\evil']) {
      expect(stepHref(bad), bad).toBeNull();
    }
  });

  it('says what was decided in one line', () => {
    expect(decisionLine(result().recorded)).toBe('let through (proceed)');
    expect(decisionLine(result().now)).toBe('rejected: guard_violation (reject_with_feedback)');
    expect(decisionLine(null)).toBe('not replayed');
  });

  it('judges each attempt for the argument diff by the run where it changed, else as recorded', () => {
    const attempts = [
      { number: 1, arguments: { file: 'a' }, failureClass: 'invalid_arguments', checks: [fail('schema', ['/file'], 'schema')] },
      { number: 2, arguments: { path: 'docs/a.md' }, failureClass: null, checks: [pass('schema')] },
    ];
    const now = result({ attempt: 2 }).now!;
    expect(diffAttempts('read_file', attempts, [result({ attempt: 2 })])).toEqual([
      { attempt: 1, tool: 'read_file', args: { file: 'a' }, failedPointers: ['/file'], toolFailed: false, failureClass: 'invalid_arguments', passed: false },
      { attempt: 2, tool: 'read_file', args: { path: 'docs/a.md' }, failedPointers: failedPointers(now.checks), toolFailed: false, failureClass: 'guard_violation', passed: false },
    ]);
  });
});
