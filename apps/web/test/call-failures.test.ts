import { describe, expect, it } from 'vitest';
import { diffRows } from '@/lib/attempt-diff-rows';
import { diffAttempts } from '@/lib/call-failures';
import type { AttemptDto, ToolCallStepDto } from '@/server/queries/session-types';

const attempt = (n: number, toolName: string | null, args: string, failureClass: string | null, pointers: string[] = []): AttemptDto =>
  ({
    spanId: `a${n}`,
    number: n,
    toolName,
    arguments: { text: args, chars: args.length },
    failureClass,
    outcome: failureClass ? 'failure' : 'success',
    guardChecks: failureClass ? [{ verdict: 'fail', failedPointers: pointers }] : [{ verdict: 'pass', failedPointers: [] }],
  }) as unknown as AttemptDto;

const call = (attempts: AttemptDto[]): ToolCallStepDto => ({ toolName: 'search_files', attempts }) as unknown as ToolCallStepDto;

describe('diffAttempts', () => {
  it('diffs a call whose attempts name one tool by its arguments and their pointers', () => {
    const d = diffAttempts(call([attempt(1, null, '{"filepath":"a"}', 'invalid_arguments', ['/filepath']), attempt(2, null, '{"path":"a"}', null)]));
    expect(d.map((x) => [x.tool, x.args, x.failedPointers, x.toolFailed, x.passed])).toEqual([
      ['search_files', { filepath: 'a' }, ['/filepath'], false, false],
      ['search_files', { path: 'a' }, [], false, true],
    ]);
    const { rows } = diffRows(d[0]!, d[1]!);
    expect(rows.map((r) => [r.field, r.pointer, r.kind, r.verdict])).toEqual([
      ['argument', '/filepath', 'removed', 'fixed'],
      ['argument', '/path', 'added', null],
    ]);
  });

  it('one convention for paths: a hallucinated tool corrected to a real one is the tool field, fixed; the arguments keep their own pointers', () => {
    const d = diffAttempts(
      call([attempt(1, 'search_codebase', '{"query":"Button.tsx"}', 'unknown_tool'), attempt(2, 'search_files', '{"name":"Button.tsx"}', null)]),
    );
    expect(d[0]).toMatchObject({ tool: 'search_codebase', args: { query: 'Button.tsx' }, failedPointers: [], toolFailed: true });
    expect(d[1]).toMatchObject({ tool: 'search_files', args: { name: 'Button.tsx' }, failedPointers: [], toolFailed: false, passed: true });
    const { rows, changes } = diffRows(d[0]!, d[1]!);
    expect(rows.map((r) => [r.field, r.pointer, r.kind, r.failed, r.verdict])).toEqual([
      ['tool', '', 'changed', true, 'fixed'],
      ['argument', '/name', 'added', false, null],
      ['argument', '/query', 'removed', false, null],
    ]);
    expect(changes).toBe(3);
  });

  it('compares no arguments with an attempt whose arguments were not recorded (a made-up name the Agents SDK hands over none for)', () => {
    const unrecorded = { ...attempt(1, 'get_forecast', '', 'unknown_tool'), arguments: null } as unknown as AttemptDto;
    const d = diffAttempts(call([unrecorded, attempt(2, 'get_weather', '{"city":"Paris"}', null)]));
    const diff = diffRows(d[0]!, d[1]!);
    // before: "/city added" (a diff from nothing, as if the model had sent no city)
    expect(diff.rows.map((r) => [r.field, r.kind, r.verdict])).toEqual([['tool', 'changed', 'fixed']]);
    expect([diff.changes, diff.unrecorded]).toEqual([1, 1]);
  });

  it('keeps argument pointers as the guards recorded them when the tools differ, and says when a renamed tool still fails', () => {
    const d = diffAttempts(call([attempt(1, 'write', '{"p":1}', 'invalid_arguments', ['/p']), attempt(2, 'write_file', '{"p":2}', null)]));
    expect(d[0]?.failedPointers).toEqual(['/p']);
    expect(diffRows(d[0]!, d[1]!).rows.map((r) => [r.field, r.pointer, r.verdict])).toEqual([
      ['tool', '', null],
      ['argument', '/p', 'fixed'],
    ]);
    const again = diffAttempts(call([attempt(1, 'grep_code', '{}', 'unknown_tool'), attempt(2, 'grep_files', '{}', 'unknown_tool')]));
    expect(diffRows(again[0]!, again[1]!).rows.map((r) => [r.field, r.verdict])).toEqual([['tool', 'still-failing']]);
    const same = diffAttempts(call([attempt(1, 'grep_code', '{"q":1}', 'unknown_tool'), attempt(2, 'grep_code', '{"q":2}', 'unknown_tool')]));
    expect(diffRows(same[0]!, same[1]!).rows.map((r) => [r.field, r.kind, r.verdict])).toEqual([
      ['tool', 'unchanged', 'changed-something-else'],
      ['argument', 'changed', null],
    ]);
  });
});
